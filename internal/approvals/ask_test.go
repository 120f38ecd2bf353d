package approvals

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/interceptor-dev/interceptor/internal/hooks"
)

// TestAsk: rules decide without a record; otherwise the request waits for
// a decision, a timeout or the caller's cancellation, each answered once.
func TestAsk(t *testing.T) {
	q := newStore(t)
	ctx := context.Background()
	call := Call{Client: "codex", Session: "s", Tool: "mcp__wf__next_step", Input: `{"a":1}`, Origin: "test"}
	p := Policy{
		Match: regexp.MustCompile(`^mcp__`),
		Deny:  []*regexp.Regexp{regexp.MustCompile(`danger`)},
		Allow: []*regexp.Regexp{regexp.MustCompile(`next_step`), regexp.MustCompile(`danger`)},
	}
	if p.Decides("Bash") || !p.Decides("mcp__wf__x") || !(Policy{}).Decides("Bash") {
		t.Error("Decides: the policy decides what --match matches, and everything without one")
	}
	for _, c := range []struct {
		tool string
		want hooks.Decision
	}{
		{"mcp__wf__danger", hooks.Decision{Reason: "mcp__wf__danger is denied by rule (--deny danger)", By: "rule --deny danger"}},
		{"mcp__wf__next_step", hooks.Decision{Allow: true, By: "rule --allow next_step"}},
	} {
		c2 := call
		c2.Tool = c.tool
		if got, err := q.Ask(ctx, p, c2); err != nil || got != c.want {
			t.Errorf("%s: %+v %v, want %+v", c.tool, got, err, c.want)
		}
	}
	if rs, _ := q.List(Filter{}); len(rs) != 0 {
		t.Fatalf("rules queued %d requests", len(rs))
	}

	// A supervisor's allow with new input reaches the asker.
	done := make(chan hooks.Decision, 1)
	go func() { a, _ := q.Ask(ctx, Policy{Timeout: 10 * time.Second}, call); done <- a }()
	r := waitPending(t, q)
	if r.Tool != call.Tool || r.Origin != "test" || r.Input != `{"a":1}` {
		t.Fatalf("queued %+v", r)
	}
	q.Decide(r.ID, hooks.Decision{Allow: true, Reason: "ok", UpdatedInput: `{"a":2}`, By: "t"})
	if a := <-done; !a.Allow || a.Reason != "ok" || a.UpdatedInput != `{"a":2}` || a.By != "request "+r.ID+" allowed by t" {
		t.Fatalf("allowed: %+v", a)
	}
	// A deny without a message says who denied (the reply says "denied
	// by the supervisor": hooks.Decision).
	go func() { a, _ := q.Ask(ctx, Policy{Timeout: 10 * time.Second}, call); done <- a }()
	r = waitPending(t, q)
	q.Decide(r.ID, hooks.Decision{By: "t"})
	if a := <-done; a.Allow || a.Reason != "" || a.By != "request "+r.ID+" denied by t" {
		t.Fatalf("denied: %+v", a)
	}
	// Nobody decides: expired, denied (or allowed with OnTimeoutAllow).
	for _, allow := range []bool{false, true} {
		a, err := q.Ask(ctx, Policy{Timeout: 50 * time.Millisecond, OnTimeoutAllow: allow}, call)
		if err != nil || a.Allow != allow || !strings.Contains(a.Reason, "no supervisor decided within 50ms") {
			t.Fatalf("timeout (allow %t): %+v %v", allow, a, err)
		}
	}
	// The caller cancels: expired, denied, nothing left pending.
	cctx, cancel := context.WithCancel(ctx)
	time.AfterFunc(50*time.Millisecond, cancel)
	if a, err := q.Ask(cctx, Policy{Timeout: time.Minute}, call); err != nil || a.Allow || !strings.Contains(a.Reason, "cancelled") {
		t.Fatalf("cancelled: %+v %v", a, err)
	}
	if rs, _ := q.List(Filter{Pending: true}); len(rs) != 0 {
		t.Fatalf("left pending: %+v", rs)
	}
	// A queue that cannot be used is an error (the caller denies).
	if _, err := New("/proc/self/nonexistent/state").Ask(ctx, Policy{}, call); err == nil {
		t.Fatal("a broken queue gave an answer")
	}
}

func waitPending(t *testing.T, q *Store) Request {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	rs, err := q.WaitPending(ctx)
	if err != nil || len(rs) != 1 {
		t.Fatalf("pending: %v %v", rs, err)
	}
	return rs[0]
}
