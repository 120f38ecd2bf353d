package children

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"time"

	"github.com/interceptor-dev/interceptor/internal/approvals"
	"github.com/interceptor-dev/interceptor/internal/rawjson"
	"github.com/tidwall/gjson"
)

// PollRequest asks for a chat's events from FromSeq on.
type PollRequest struct {
	ChatID  string
	FromSeq int
	Limit   int           // 0: all
	Wait    time.Duration // long poll: wait this long for something new
}

// Poll returns a chat's events from FromSeq on, its status and its
// pending approvals (kind "input": a human tool's question, to answer).
// With Wait it returns as soon as there are events from FromSeq on, a
// pending approval of the chat, or the chat has ended; else when Wait is
// up. Held values are stand-ins in it (Viewer.poll): every field a child,
// its model or a person wrote, and the JSON of each event and input, which
// holds visible escapes for hidden characters. Where it leaves the process
// it is encoded with rawjson.Marshal (its MarshalJSON).
func (s *Store) Poll(ctx context.Context, q *approvals.Store, r PollRequest) (PollResult, error) {
	chat, err := s.Chat(r.ChatID)
	if err != nil {
		return PollResult{}, err
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
			return PollResult{}, err
		}
		evs, err := chat.Events(r.FromSeq, r.Limit)
		if err != nil {
			return PollResult{}, err
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
			return PollResult{}, err
		}
		if st == Running && len(pending) > 0 {
			st = AwaitingPermission
		}
		done := st == Complete || st == Failed
		if len(evs) > 0 || done || len(pending) > 0 || wctx.Err() != nil || r.Wait <= 0 {
			total, err := chat.Total()
			if err != nil {
				return PollResult{}, err
			}
			res := pollResult(chat, st, evs, pending, r.FromSeq, total)
			NewViewer(s.StateDir, chat.Child.Session).poll(&res)
			return res, nil
		}
		select {
		case <-changed:
		case <-wctx.Done():
		case <-time.After(time.Second): // a watch that could not be set up
		}
	}
}

// PollResult is a chat's events and pending approvals as poll shows
// them: {"type":"ok","session_id","child","status","events":[{"seq",
// "time","event"}],"pending_approvals":[{"id","tool_name","tool_use_id",
// "input","created_at","kind"?,"mode"?}],"read_position","total_events",
// "has_more"}.
type PollResult struct {
	Type             string            `json:"type"` // ok
	SessionID        string            `json:"session_id"`
	Child            string            `json:"child"`
	Status           Status            `json:"status"`
	Events           []EventRecord     `json:"events"`
	PendingApprovals []PendingApproval `json:"pending_approvals"`
	ReadPosition     int               `json:"read_position"` // the FromSeq of the next poll
	TotalEvents      int               `json:"total_events"`
	HasMore          bool              `json:"has_more"`
}

// MarshalJSON encodes r as the poll tool and `children show` print it: on
// one line, <, > and & as they are, and every hidden character of its
// strings a \u escape (approvals.VisibleJSON): its events and inputs are
// the child's and its model's words. (encoding/json.Marshal would escape
// <, > and & once more: use rawjson.Marshal.)
func (r PollResult) MarshalJSON() ([]byte, error) {
	type plain PollResult
	b, err := rawjson.Marshal(plain(r))
	if err != nil {
		return nil, fmt.Errorf("chat %s: encoding the poll: %w", r.SessionID, err)
	}
	return []byte(approvals.VisibleJSON(string(b))), nil
}

// pollResult is what Poll returns before the Viewer masks it.
func pollResult(chat *Chat, st Status, evs []Event, pending []approvals.Request, from, total int) PollResult {
	res := PollResult{Type: "ok", SessionID: chat.ID, Child: chat.Child.Name, Status: st,
		Events: make([]EventRecord, 0, len(evs)), PendingApprovals: make([]PendingApproval, 0, len(pending))}
	for _, e := range evs {
		res.Events = append(res.Events, e.record())
	}
	for _, r := range pending {
		res.PendingApprovals = append(res.PendingApprovals, approvalOf(r))
	}
	res.ReadPosition = from + len(evs)
	if len(evs) > 0 {
		res.ReadPosition = evs[len(evs)-1].Seq + 1
	}
	res.TotalEvents, res.HasMore = total, res.ReadPosition < total
	return res
}

// PendingApproval is a queue request as poll shows it; Kind and Mode only
// for a human tool's question, which the parent answers (respond(id,
// answer=…)).
type PendingApproval struct {
	ID        string          `json:"id"`
	ToolName  string          `json:"tool_name"`
	ToolUseID string          `json:"tool_use_id"`
	Input     json.RawMessage `json:"input"` // the tool's arguments, a JSON object
	CreatedAt string          `json:"created_at"`
	Kind      string          `json:"kind,omitempty"`
	Mode      string          `json:"mode,omitempty"`
}

func approvalOf(r approvals.Request) PendingApproval {
	in := r.Input
	if !gjson.Valid(in) {
		in = "{}"
	}
	p := PendingApproval{ID: r.ID, ToolName: r.Tool, ToolUseID: r.ToolUseID, Input: json.RawMessage(in),
		CreatedAt: r.Created.UTC().Format(time.RFC3339Nano)}
	if r.IsInput() {
		p.Kind, p.Mode = r.Kind, r.Mode
	}
	return p
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

// childSummary is a child as Summary shows it: its record with the names
// of its env (its values may be secrets) and its latest chat.
type childSummary struct {
	childHead
	childTail
	EnvNames   []string    `json:"env_names"`
	LatestChat *latestChat `json:"latest_chat,omitempty"`
}

type latestChat struct {
	SessionID   string `json:"session_id"`
	Status      Status `json:"status,omitempty"`
	TotalEvents *int   `json:"total_events,omitempty"`
}

// Summary is a child with the state of its latest chat, as JSON.
func (s *Store) Summary(q *approvals.Store, c Child) string {
	sum := childSummary{childHead: c.head(), childTail: c.tail(), EnvNames: []string{}}
	for k := range c.Env {
		sum.EnvNames = append(sum.EnvNames, k)
	}
	sort.Strings(sum.EnvNames)
	if c.Chats > 0 {
		chat := &Chat{s: s, Child: c, N: c.Chats, ID: ChatID(c.ID, c.Chats)}
		sum.LatestChat = &latestChat{SessionID: chat.ID}
		if st, err := chat.State(); err == nil {
			if p, _ := PendingFor(q, chat.ID); st == Running && len(p) > 0 {
				st = AwaitingPermission
			}
			sum.LatestChat.Status = st
		}
		if n, err := chat.Total(); err == nil {
			sum.LatestChat.TotalEvents = &n
		}
	}
	b, err := rawjson.Marshal(sum)
	if err != nil {
		// Nothing in a child fails to encode; say so rather than print
		// nothing.
		b = rawjson.AppendString([]byte(`{"id":`), c.ID)
		b = rawjson.AppendString(append(b, `,"error":`...), "encoding the child's summary: "+err.Error())
		b = append(b, '}')
	}
	return NewViewer(s.StateDir, c.Session).JSON(string(b))
}
