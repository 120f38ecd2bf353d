package inbox

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/interceptor-dev/interceptor/internal/approvals"
)

// Live updates are server-sent events, read by the page's script from a
// fetch (EventSource cannot send the session header): what waits
// is sent again whenever the queue's open requests change (the queue's
// watch: inotify on Linux, so a new request reaches the page in
// milliseconds), the children's overview when it changed (checked at each
// wake, at least every second), and a chat's events as its log grows.

// keepAlive is how often an idle stream writes a comment, so a closed page
// is noticed and proxies do not time the stream out.
const keepAlive = 15 * time.Second

type sse struct {
	w    http.ResponseWriter
	f    http.Flusher
	last time.Time
}

func newSSE(w http.ResponseWriter) (*sse, bool) {
	f, ok := w.(http.Flusher)
	if !ok {
		return nil, false
	}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	f.Flush()
	return &sse{w: w, f: f, last: time.Now()}, true
}

// send writes one event; id, when set, is what a reconnecting client may
// send back as Last-Event-ID.
func (e *sse) send(event, id string, data []byte) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "event: %s\n", event)
	if id != "" {
		fmt.Fprintf(&b, "id: %s\n", id)
	}
	fmt.Fprintf(&b, "data: %s\n\n", data) // JSON: one line
	if _, err := e.w.Write(b.Bytes()); err != nil {
		return err
	}
	e.f.Flush()
	e.last = time.Now()
	return nil
}

func (e *sse) ping() error {
	if time.Since(e.last) < keepAlive {
		return nil
	}
	if _, err := e.w.Write([]byte(": ping\n\n")); err != nil {
		return err
	}
	e.f.Flush()
	e.last = time.Now()
	return nil
}

// stream sends "pending" ({now, items}) and "children" ({children}) events,
// each when it changed, until the page goes away.
func (s *Server) stream(w http.ResponseWriter, r *http.Request) {
	out, ok := newSSE(w)
	if !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	ctx := r.Context()
	var lastItems, lastKids []byte
	var err error
	s.src.Changes(ctx, func() bool {
		err = s.streamOnce(ctx, out, &lastItems, &lastKids)
		return err == nil && ctx.Err() == nil
	})
	if err != nil && ctx.Err() == nil {
		out.send("failure", "", mustJSON(map[string]string{"error": approvals.Visible(err.Error())}))
	}
}

func (s *Server) streamOnce(ctx context.Context, out *sse, lastItems, lastKids *[]byte) error {
	// One read of the open requests serves both views.
	open, err := s.src.Open(ctx)
	if err != nil {
		return err
	}
	p := s.pendingOf(open)
	items := mustJSON(p.Items)
	if !bytes.Equal(items, *lastItems) {
		*lastItems = items
		if err := out.send("pending", "", mustJSON(p)); err != nil {
			return err
		}
	}
	kids, err := s.childrenOf(s.here(open))
	if err != nil {
		return err
	}
	kb := mustJSON(kids)
	if !bytes.Equal(kb, *lastKids) {
		*lastKids = kb
		if err := out.send("children", "", kb); err != nil {
			return err
		}
	}
	return out.ping()
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		return []byte(`{}`)
	}
	return b
}

// chatStream sends a chat's events from ?from= (or a Last-Event-ID) as
// "events" ({chat, events, next, done}), then "end" once the chat has ended
// and everything was sent. The page reconnects from the last next.
func (s *Server) chatStream(w http.ResponseWriter, r *http.Request) {
	chat, err := s.kids.Chat(r.URL.Query().Get("id"))
	if err != nil {
		fail(w, err)
		return
	}
	from, _ := strconv.Atoi(r.URL.Query().Get("from"))
	if id := r.Header.Get("Last-Event-ID"); id != "" {
		if n, err := strconv.Atoi(id); err == nil {
			from = n
		}
	}
	out, ok := newSSE(w)
	if !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	ctx := r.Context()
	watch, werr := approvals.WatchDir(chat.Dir())
	if werr == nil {
		defer watch.Close()
	}
	var lastStatus string
	for ctx.Err() == nil {
		v, err := s.chatView(ctx, chat, from)
		if err != nil {
			out.send("failure", "", mustJSON(map[string]string{"error": approvals.Visible(err.Error())}))
			return
		}
		if len(v.Events) > 0 || v.Chat.Status != lastStatus || v.Done {
			lastStatus = v.Chat.Status
			if out.send("events", strconv.Itoa(v.Next), mustJSON(v)) != nil {
				return
			}
		}
		from = v.Next
		if v.Done {
			out.send("end", "", []byte(`{}`))
			return
		}
		if len(v.Events) == maxEventsRead {
			continue // more to read now
		}
		if out.ping() != nil {
			return
		}
		if werr == nil {
			watch.Wait(ctx, time.Second)
		} else {
			sleep(ctx, time.Second)
		}
	}
}

func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}
