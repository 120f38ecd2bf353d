package streamhttp

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/interceptor-dev/interceptor/internal/proxy/proxytest"
	"github.com/tidwall/gjson"
)

// dropServer answers a tools/call with an event stream it ends before the
// answer: a priming event (an id, retry, no data) unless noID, then the
// close. A GET is the resumption: answer says what it sends.
type dropServer struct {
	retry string // the priming event's retry field ("": none)
	noID  bool   // the priming event has no id: nothing to resume from
	// answer: on a GET with Last-Event-ID, send the pending call's answer
	// (else an empty stream that just ends).
	answer bool

	mu      sync.Mutex
	closed  time.Time // when the POST's stream ended
	gets    []string  // Last-Event-ID of each GET
	getAt   []time.Time
	pending string // the call's id, raw
}

func (s *dropServer) start(t *testing.T) *httptest.Server {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			s.mu.Lock()
			s.gets = append(s.gets, r.Header.Get("Last-Event-ID"))
			s.getAt = append(s.getAt, time.Now())
			id, last := s.pending, r.Header.Get("Last-Event-ID")
			s.mu.Unlock()
			w.Header().Set("Content-Type", "text/event-stream")
			if s.answer && last != "" && id != "" {
				io.WriteString(w, "id: e2\nevent: message\ndata: "+`{"jsonrpc":"2.0","id":`+id+`,"result":{"content":[{"type":"text","text":"resumed"}]}}`+"\n\n")
			}
			return
		}
		body, _ := io.ReadAll(r.Body)
		id := gjson.GetBytes(body, "id")
		if !id.Exists() {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		if gjson.GetBytes(body, "method").Str != "tools/call" {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"jsonrpc":"2.0","id":`+id.Raw+`,"result":{}}`)
			return
		}
		s.mu.Lock()
		s.pending = id.Raw
		s.mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		priming := "data: \n\n"
		if !s.noID {
			priming = "id: e1\n" + priming
		}
		if s.retry != "" {
			priming = "retry: " + s.retry + "\n" + priming
		}
		io.WriteString(w, priming)
		w.(http.Flusher).Flush()
		s.mu.Lock()
		s.closed = time.Now()
		s.mu.Unlock()
	}))
	t.Cleanup(ts.Close)
	return ts
}

// call sends one client line through the relay to s and returns the
// answer the client got, and the Last-Event-ID of each GET s saw.
func (s *dropServer) call(t *testing.T, line string) (gjson.Result, []string) {
	ts := s.start(t)
	send, stop := relayLines(t, &HTTP{URL: ts.URL})
	r := send(line)
	stop()
	s.mu.Lock()
	defer s.mu.Unlock()
	return r, append([]string(nil), s.gets...)
}

const callLine = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"slow","arguments":{}}}`

// Issue 33 item 1 (SEP-1699): a call's event stream that ends before the
// answer is resumed after the stream's retry interval, by a GET carrying
// Last-Event-ID; the answer that comes there reaches the client. The
// priming event (an id, no data) is not relayed.
func TestResumeAfterRetryWithLastEventID(t *testing.T) {
	s := &dropServer{retry: "300", answer: true}
	ts := s.start(t)
	send, stop := relayLines(t, &HTTP{URL: ts.URL})
	r := send(callLine)
	stop()
	if r.Get("id").Int() != 7 || r.Get("result.content.0.text").Str != "resumed" {
		t.Fatalf("the client got %s; want the answer sent on the resumed stream", r.Raw)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.gets) != 1 || s.gets[0] != "e1" {
		t.Fatalf("GETs with Last-Event-ID %q; want one, with e1", s.gets)
	}
	if waited := s.getAt[0].Sub(s.closed); waited < 300*time.Millisecond {
		t.Fatalf("reconnected %v after the stream ended; the server asked for 300ms", waited)
	}
}

// A stream that gave no event id cannot be resumed: the call is answered
// with an error at once, and nothing is asked again.
func TestNoResumeWithoutAnEventID(t *testing.T) {
	r, gets := (&dropServer{noID: true, answer: true}).call(t, callLine)
	if !strings.Contains(r.Get("error.message").Str, "ended without an answer") || len(gets) != 0 {
		t.Fatalf("the client got %s after %d GETs; want an error, and no GET", r.Raw, len(gets))
	}
}

// A server whose resumed streams bring nothing is given up on after
// resumeTries reconnections, and the call is answered with an error.
func TestResumeGivesUp(t *testing.T) {
	r, gets := (&dropServer{retry: "50"}).call(t, callLine)
	if !strings.Contains(r.Get("error.message").Str, "ended without an answer") {
		t.Fatalf("the client got %s; want an error", r.Raw)
	}
	if len(gets) != resumeTries {
		t.Fatalf("%d GETs (%q); want %d", len(gets), gets, resumeTries)
	}
	for _, id := range gets {
		if id != "e1" {
			t.Fatalf("a GET resumed from %q, want e1", id)
		}
	}
}

// 2026-07-28 is unchanged: a request's stream is its own, and its end is
// not resumed (there is no session to resume it in).
func TestModernStreamIsNotResumed(t *testing.T) {
	r, gets := (&dropServer{retry: "50", answer: true}).call(t, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"slow","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"`+proxytest.Modern+`"}}}`)
	if r.Get("error").Raw == "" || len(gets) != 0 {
		t.Fatalf("the client got %s after %d GETs; want an error, and no GET", r.Raw, len(gets))
	}
}

// The stream for the server's own messages (GET) is reopened after the
// retry interval it asked for, from its last event id.
func TestListenStreamHonoursRetry(t *testing.T) {
	var mu sync.Mutex
	var gets []string
	var at []time.Time
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			mu.Lock()
			gets, at = append(gets, r.Header.Get("Last-Event-ID")), append(at, time.Now())
			mu.Unlock()
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, "retry: 1200\nid: g1\ndata: \n\n")
			return
		}
		body, _ := io.ReadAll(r.Body)
		if id := gjson.GetBytes(body, "id"); id.Exists() {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"jsonrpc":"2.0","id":`+id.Raw+`,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}`)
			return
		}
		w.WriteHeader(http.StatusAccepted)
	}))
	defer ts.Close()
	write, read, stop := relayPipes(t, &HTTP{URL: ts.URL})
	write(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`)
	read()
	write(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	deadline := time.Now().Add(5 * time.Second)
	for {
		mu.Lock()
		n := len(gets)
		mu.Unlock()
		if n >= 2 || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	stop()
	mu.Lock()
	defer mu.Unlock()
	if len(gets) < 2 || gets[0] != "" || gets[1] != "g1" {
		t.Fatalf("GETs with Last-Event-ID %q; want a first without, then g1", gets)
	}
	if waited := at[1].Sub(at[0]); waited < 1200*time.Millisecond {
		t.Fatalf("reopened %v after; the server asked for 1200ms (more than the relay's own backoff)", waited)
	}
}
