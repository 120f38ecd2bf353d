package children

import (
	"context"
	"strings"
	"time"

	"github.com/interceptor-dev/interceptor/internal/approvals"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// PollRequest asks for a chat's events from FromSeq on.
type PollRequest struct {
	ChatID  string
	FromSeq int
	Limit   int           // 0: all
	Wait    time.Duration // long poll: wait this long for something new
}

// Poll returns the poll result as JSON text:
// {"type":"ok","session_id","status","events":[{"seq","time","event"}],
// "pending_approvals":[{"id","tool_name","tool_use_id","input","created_at",
// "kind"?,"mode"?}] (kind "input": a human tool's question, to answer),
// "read_position","total_events","has_more"}. With Wait it returns as soon
// as there are events from FromSeq on, a pending approval of the chat, or
// the chat has ended; else when Wait is up. Tokens are stand-ins.
func (s *Store) Poll(ctx context.Context, q *approvals.Store, r PollRequest) (string, error) {
	chat, err := s.Chat(r.ChatID)
	if err != nil {
		return "", err
	}
	if r.FromSeq < 0 {
		r.FromSeq = 0
	}
	wctx, cancel := context.WithTimeout(ctx, r.Wait)
	defer cancel()
	changed := make(chan struct{}, 1)
	if r.Wait > 0 {
		// The chat's dir (its log and runner) and the queue's open
		// requests. Each loop reads the log's tail and what is new, and
		// the open requests: nothing of it grows with the log or the
		// queue's history.
		watch := func(w *approvals.DirWatcher, err error) {
			if err != nil {
				return
			}
			go func() {
				defer w.Close()
				for w.Wait(wctx, time.Second) == nil {
					select {
					case changed <- struct{}{}:
					default:
					}
				}
			}()
		}
		watch(approvals.WatchDir(chat.Dir()))
		watch(q.Watch())
	}
	for {
		// The state first: it may close the log of a dead runner, and
		// the events read next then include that end.
		st, err := chat.State()
		if err != nil {
			return "", err
		}
		evs, err := chat.Events(r.FromSeq, r.Limit)
		if err != nil {
			return "", err
		}
		if st == Running {
			if last, err := chat.lastEvent(); err == nil {
				if end, ok := terminal(last); ok {
					st = end // the chat ended meanwhile
				}
			}
		}
		pending, err := PendingFor(q, chat.ID)
		if err != nil {
			return "", err
		}
		if st == Running && len(pending) > 0 {
			st = AwaitingPermission
		}
		done := st == Complete || st == Failed
		if len(evs) > 0 || done || len(pending) > 0 || wctx.Err() != nil || r.Wait <= 0 {
			total, err := chat.Total()
			if err != nil {
				return "", err
			}
			return s.pollJSON(chat, st, evs, pending, r.FromSeq, total), nil
		}
		select {
		case <-changed:
		case <-wctx.Done():
		case <-time.After(time.Second): // a watch that could not be set up
		}
	}
}

func (s *Store) pollJSON(chat *Chat, st Status, evs []Event, pending []approvals.Request, from, total int) string {
	v := NewViewer(s.StateDir, chat.Child.Session)
	var b strings.Builder
	b.WriteString(`{"type":"ok"`)
	head := `{}`
	head, _ = sjson.Set(head, "session_id", chat.ID)
	head, _ = sjson.Set(head, "child", chat.Child.Name)
	head, _ = sjson.Set(head, "status", string(st))
	b.WriteString("," + head[1:len(head)-1])
	b.WriteString(`,"events":[`)
	for i, e := range evs {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(e.JSON())
	}
	b.WriteString(`],"pending_approvals":[`)
	for i, r := range pending {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(ApprovalJSON(r))
	}
	pos := from + len(evs)
	if len(evs) > 0 {
		pos = evs[len(evs)-1].Seq + 1
	}
	tail := `{}`
	tail, _ = sjson.Set(tail, "read_position", pos)
	tail, _ = sjson.Set(tail, "total_events", total)
	tail, _ = sjson.Set(tail, "has_more", pos < total)
	b.WriteString("]," + tail[1:])
	return v.JSON(b.String())
}

// ApprovalJSON is a queue request as poll shows it.
func ApprovalJSON(r approvals.Request) string {
	out := `{}`
	out, _ = sjson.Set(out, "id", r.ID)
	out, _ = sjson.Set(out, "tool_name", r.Tool)
	out, _ = sjson.Set(out, "tool_use_id", r.ToolUseID)
	in := r.Input
	if !gjson.Valid(in) {
		in = "{}"
	}
	out, _ = sjson.SetRaw(out, "input", in)
	out, _ = sjson.Set(out, "created_at", r.Created.UTC().Format(time.RFC3339Nano))
	if r.IsInput() { // a human tool's question: respond(id, answer=…)
		out, _ = sjson.Set(out, "kind", r.Kind)
		out, _ = sjson.Set(out, "mode", r.Mode)
	}
	return out
}

// PendingFor lists the requests of one chat still waiting for a decision
// (reading the queue's open requests only).
func PendingFor(q *approvals.Store, chatID string) ([]approvals.Request, error) {
	all, err := q.Pending()
	if err != nil {
		return nil, err
	}
	out := []approvals.Request{}
	for _, r := range all {
		if r.Chat == chatID {
			out = append(out, r)
		}
	}
	return out, nil
}

// Summary is a child with the state of its latest chat, as JSON.
func (s *Store) Summary(q *approvals.Store, c Child) string {
	out := c.JSON()
	out, _ = sjson.Delete(out, "env") // values may be secrets: names only
	names := []string{}
	for k := range c.Env {
		names = append(names, k)
	}
	out, _ = sjson.Set(out, "env_names", names)
	if c.Chats > 0 {
		chat := &Chat{s: s, Child: c, N: c.Chats, ID: ChatID(c.ID, c.Chats)}
		out, _ = sjson.Set(out, "latest_chat.session_id", chat.ID)
		if st, err := chat.State(); err == nil {
			if p, _ := PendingFor(q, chat.ID); st == Running && len(p) > 0 {
				st = AwaitingPermission
			}
			out, _ = sjson.Set(out, "latest_chat.status", string(st))
		}
		if n, err := chat.Total(); err == nil {
			out, _ = sjson.Set(out, "latest_chat.total_events", n)
		}
	}
	return NewViewer(s.StateDir, c.Session).JSON(out)
}
