package humantools

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/interceptor-dev/interceptor/internal/approvals"
	"github.com/interceptor-dev/interceptor/internal/hooks"
	"github.com/interceptor-dev/interceptor/internal/state"
	"github.com/interceptor-dev/interceptor/internal/token"
)

var (
	holdTool = Tool{Name: "ask_user", Description: "Ask the user", Mode: approvals.ModeHold,
		InputSchema: `{"type":"object","properties":{"question":{"type":"string"}}}`}
	parkTool = Tool{Name: "request_access", Description: "Request access", Mode: approvals.ModePark}
)

func newQueue(t *testing.T) *approvals.Store {
	t.Helper()
	return approvals.New(filepath.Join(t.TempDir(), "state"))
}

// pendingID waits for the one pending request and returns its id.
func pendingID(t *testing.T, q *approvals.Store) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	rs, err := q.WaitPending(ctx)
	if err != nil || len(rs) != 1 {
		t.Fatalf("pending: %v %v", rs, err)
	}
	return rs[0].ID
}

func TestParse(t *testing.T) {
	good := `[{"name":"ask_user","description":"Ask the user a question","mode":"hold",
	  "inputSchema":{"type":"object","properties":{"question":{"type":"string"}},"required":["question"]}},
	 {"name":"request_access","description":"Ask for access","mode":"park"}]`
	tools, err := Parse([]byte(good), "tools.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(tools) != 2 || tools[0].Mode != "hold" || tools[1].Mode != "park" || !strings.Contains(tools[0].InputSchema, "question") ||
		tools[1].InputSchema != `{"type":"object","properties":{}}` {
		t.Fatalf("parsed %+v", tools)
	}
	for _, c := range []struct{ decl, want string }{
		{`{}`, "tools.json: want a JSON array"},
		{`[`, "tools.json: not valid JSON"},
		{`[]`, "no tools declared"},
		{`[{"name":"a b","description":"d","mode":"hold"}]`, `tool 1: name "a b"`},
		{`[{"name":"a","description":"d","mode":"later"}]`, `tool 1 (a): mode "later": want "hold" or "park"`},
		{`[{"name":"a","description":"d"}]`, `tool 1 (a): mode missing`},
		{`[{"name":"a","mode":"park"}]`, `tool 1 (a): description is missing`},
		{`[{"name":"a","description":"d","mode":"park"},{"name":"a","description":"d","mode":"hold"}]`, `tool 2 (a): name declared twice`},
		{`[{"name":"a","description":"d","mode":"park","inputSchema":{"type":"string"}}]`, `tool 1 (a): inputSchema must be`},
	} {
		_, err := Parse([]byte(c.decl), "tools.json")
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("Parse(%s) = %v, want one line containing %q", c.decl, err, c.want)
		}
	}
	if _, err := Load(filepath.Join(t.TempDir(), "missing.json")); err == nil || !strings.Contains(err.Error(), "missing.json") {
		t.Errorf("Load of a missing file: %v", err)
	}
}

func TestHoldReturnsTheAnswer(t *testing.T) {
	q := newQueue(t)
	a := &Asker{Queue: q, Client: "test", Session: "s1", Timeout: 10 * time.Second}
	go func() {
		id := pendingID(t, q)
		if _, err := q.AnswerInput(id, "use the staging repo", "test person"); err != nil {
			t.Error(err)
		}
	}()
	r, err := a.Call(context.Background(), holdTool, `{"question":"which repo?"}`)
	if err != nil || r.IsError || r.Text != "use the staging repo" {
		t.Fatalf("hold: %+v %v", r, err)
	}
	got, _ := q.Get(r.ID)
	if got.Status != approvals.Answered || got.Kind != approvals.KindInput || got.Mode != approvals.ModeHold || got.Input != `{"question":"which repo?"}` {
		t.Fatalf("record: %+v", got)
	}
	if got.InputSchema != holdTool.InputSchema {
		t.Errorf("record's input schema %q, want the declared %q", got.InputSchema, holdTool.InputSchema)
	}
	// A held answer is the tool result: nothing is left for a prompt hook.
	if text, _, _ := Deliver(q, "s1", "", "test"); text != "" {
		t.Fatalf("a held answer was delivered again: %q", text)
	}
	if _, err := q.Decide(r.ID, hooks.Decision{Allow: true, By: "x"}); !errors.Is(err, approvals.ErrNeedsAnswer) {
		t.Fatalf("allow on a question: %v", err)
	}
}

func TestHoldExpires(t *testing.T) {
	q := newQueue(t)
	a := &Asker{Queue: q, Session: "s1", Timeout: 100 * time.Millisecond}
	r, err := a.Call(context.Background(), holdTool, `{}`)
	if err != nil || !r.IsError || !strings.Contains(r.Text, "Nobody answered within 100ms") || !strings.Contains(r.Text, r.ID) {
		t.Fatalf("hold timeout: %+v %v", r, err)
	}
	if _, err := q.AnswerInput(r.ID, "too late", "p"); !errors.Is(err, approvals.ErrDecided) {
		t.Fatalf("an answer after expiry: %v", err)
	}
}

func TestParkDeliversExactlyOnceToItsSession(t *testing.T) {
	q := newQueue(t)
	a := &Asker{Queue: q, Session: "s1"}
	r, err := a.Call(context.Background(), parkTool, `{"what":"prod db"}`)
	if err != nil || r.IsError || r.Text != ParkText(r.ID) || !strings.Contains(r.Text, "End your turn") {
		t.Fatalf("park: %+v %v", r, err)
	}
	// Nothing to deliver before the person answers.
	if text, _, err := Deliver(q, "s1", "", "test"); text != "" || err != nil {
		t.Fatalf("delivered before an answer: %q %v", text, err)
	}
	if _, err := q.AnswerInput(r.ID, "granted until 18:00", "p"); err != nil {
		t.Fatal(err)
	}
	if text, _, _ := Deliver(q, "s2", "", "test"); text != "" {
		t.Fatalf("another session got the answer: %q", text)
	}
	text, rs, err := Deliver(q, "s1", "", "hook 1")
	if err != nil || len(rs) != 1 || !strings.Contains(text, "granted until 18:00") || !strings.Contains(text, `{"what":"prod db"}`) {
		t.Fatalf("deliver: %q %v %v", text, rs, err)
	}
	if again, _, _ := Deliver(q, "s1", "", "hook 2"); again != "" {
		t.Fatalf("delivered twice: %q", again)
	}
	got, _ := q.Get(r.ID)
	if got.Status != approvals.Delivered || got.DeliveredTo != "hook 1" || got.DeliveredAt.IsZero() {
		t.Fatalf("record after delivery: %+v", got)
	}
}

// TestConcurrentDeliverProcesses runs many deliver processes at once on
// three answers: each answer reaches exactly one of them.
func TestConcurrentDeliverProcesses(t *testing.T) {
	q := newQueue(t)
	a := &Asker{Queue: q, Session: "s1"}
	var ids []string
	for i := range 3 {
		r, err := a.Call(context.Background(), parkTool, fmt.Sprintf(`{"n":%d}`, i))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := q.AnswerInput(r.ID, fmt.Sprintf("answer-%d", i), "p"); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, r.ID)
	}
	const procs = 16
	outs := make([]string, procs)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range procs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(os.Args[0], "-test.run=^TestHelperDeliver$")
			cmd.Env = append(os.Environ(), "HUMANTOOLS_HELPER_STATE="+q.StateDir, "HUMANTOOLS_HELPER_SESSION=s1")
			<-start
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Errorf("deliver process %d: %v\n%s", i, err, out)
			}
			outs[i] = string(out)
		}()
	}
	close(start)
	wg.Wait()
	for i := range 3 {
		n := 0
		for _, o := range outs {
			n += strings.Count(o, fmt.Sprintf("answer-%d", i))
		}
		if n != 1 {
			t.Errorf("answer-%d delivered %d times, want exactly once", i, n)
		}
	}
	for _, id := range ids {
		if r, _ := q.Get(id); r.Status != approvals.Delivered {
			t.Errorf("%s is %s", id, r.Status)
		}
	}
}

// TestHelperDeliver is one deliver process of TestConcurrentDeliverProcesses.
func TestHelperDeliver(t *testing.T) {
	dir := os.Getenv("HUMANTOOLS_HELPER_STATE")
	if dir == "" {
		t.Skip("helper process only")
	}
	text, _, err := Deliver(approvals.New(dir), os.Getenv("HUMANTOOLS_HELPER_SESSION"), "", fmt.Sprintf("pid %d", os.Getpid()))
	if err != nil {
		t.Fatal(err)
	}
	fmt.Println("DELIVERED:", text)
}

func TestParkExpires(t *testing.T) {
	q := newQueue(t)
	// A parked question whose answer-by time has passed (ParkTTL ago).
	r, err := q.Enqueue(approvals.Request{Kind: approvals.KindInput, Mode: approvals.ModePark, Session: "s1", Tool: "request_access",
		Deadline: time.Now().Add(-time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	if rs, _ := q.List(approvals.Filter{Pending: true}); len(rs) != 0 {
		t.Fatalf("an expired question is still offered: %v", rs)
	}
	if _, err := q.AnswerInput(r.ID, "late", "p"); !errors.Is(err, approvals.ErrDecided) {
		t.Fatalf("answer after expiry: %v", err)
	}
	if text, _, _ := Deliver(q, "s1", "", "test"); text != "" {
		t.Fatalf("delivered an expired question: %q", text)
	}
}

func TestAnswerAfterTheSessionEnded(t *testing.T) {
	q := newQueue(t)
	a := &Asker{Queue: q, Session: "s1"}
	waiting, _ := a.Call(context.Background(), parkTool, `{"n":1}`)
	answered, _ := a.Call(context.Background(), parkTool, `{"n":2}`)
	other, _ := (&Asker{Queue: q, Session: "s2"}).Call(context.Background(), parkTool, `{"n":3}`)
	if _, err := q.AnswerInput(answered.ID, "answered in time", "p"); err != nil {
		t.Fatal(err)
	}
	ended, err := EndSession(q, "s1", "the session ended")
	if err != nil || len(ended) != 2 {
		t.Fatalf("end session: %v %v", ended, err)
	}
	// The answer that arrives after the end is refused, and says why.
	_, err = q.AnswerInput(waiting.ID, "too late", "p")
	if !errors.Is(err, approvals.ErrDecided) || !strings.Contains(err.Error(), "the session ended") {
		t.Fatalf("answer after the session ended: %v", err)
	}
	// The answer given before the end but never delivered stays undelivered.
	if text, _, _ := Deliver(q, "s1", "", "test"); text != "" {
		t.Fatalf("delivered into an ended session: %q", text)
	}
	if r, _ := q.Get(answered.ID); r.Status != approvals.Expired || r.Answer != "answered in time" || !strings.Contains(r.DeliveredTo, "nobody") {
		t.Fatalf("answered record after the end: %+v", r)
	}
	// Another session is untouched.
	if r, _ := q.Get(other.ID); r.Status != approvals.Pending {
		t.Fatalf("other session's question: %+v", r)
	}
}

func TestBindTiesAParkedCallToTheHookSession(t *testing.T) {
	q := newQueue(t)
	a := &Asker{Queue: q} // the MCP server was not told its session
	r, _ := a.Call(context.Background(), parkTool, `{}`)
	// A result of another tool quoting the marker binds nothing.
	if _, err := Bind(q, "s1", "mcp__wf__next_step", []string{r.Text}); err == nil {
		t.Fatal("another tool's result bound the request")
	}
	id, err := Bind(q, "s1", "mcp__human__request_access", []string{"<untrusted_context>\n" + r.Text + "\n</untrusted_context>"})
	if err != nil || id != r.ID {
		t.Fatalf("bind: %q %v", id, err)
	}
	if id, err := Bind(q, "s1", "mcp__human__ask_user", []string{"no marker here"}); id != "" || err != nil {
		t.Fatalf("bind without a marker: %q %v", id, err)
	}
	q.AnswerInput(r.ID, "yes", "p")
	if text, _, _ := Deliver(q, "s1", "", "test"); !strings.Contains(text, "yes") {
		t.Fatalf("bound request not delivered: %q", text)
	}
}

func TestChildChatDelivery(t *testing.T) {
	q := newQueue(t)
	a := &Asker{Queue: q, Chat: "chat1"}
	r, _ := a.Call(context.Background(), parkTool, `{}`)
	q.AnswerInput(r.ID, "from the parent", "p")
	if text, _, _ := Deliver(q, "", "chat2", "test"); text != "" {
		t.Fatalf("another chat got it: %q", text)
	}
	if text, _, _ := Deliver(q, "", "chat1", "test"); !strings.Contains(text, "from the parent") {
		t.Fatalf("chat delivery: %q", text)
	}
}

func TestArgumentsShowTokensAsStandIns(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	st := state.New(dir)
	held := "tok3nVALUEabcdef0123456789XYZ"
	if err := st.Put(state.Record{Server: "wf", Session: "s1", Token: held, Updated: time.Now()}); err != nil {
		t.Fatal(err)
	}
	q := approvals.New(dir)
	a := &Asker{Queue: q, Session: "s1", Tokens: st}
	r, err := a.Call(context.Background(), parkTool, `{"note":"mine is `+held+`","session_token":"unheld-0123456789abcdefghij"}`)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := q.Get(r.ID)
	if strings.Contains(got.Input, held) || strings.Contains(got.Input, "unheld-0123") ||
		!strings.Contains(got.Input, token.StandIn(approvals.DefaultKey, held)) {
		t.Fatalf("input people see: %s", got.Input)
	}
}

// TestUnknownSessionMasksEveryHeldToken: an asker that cannot tell its
// session (a human tools server of Codex, Gemini CLI or OpenCode) masks
// every token the store holds, not only the servers' current ones: a token
// of a session that is no longer its server's latest stayed in clear in
// every view (approvals list --json, show, pending, history).
func TestUnknownSessionMasksEveryHeldToken(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	st := state.New(dir)
	older := "olderSESSIONtok3n0123456789abc"
	latest := "latestSESSIONtok3n0123456789ab"
	for _, r := range []state.Record{{Server: "wf", Session: "A", Token: older}, {Server: "wf", Session: "B", Token: latest}} {
		if err := st.Put(r); err != nil {
			t.Fatal(err)
		}
	}
	q := approvals.New(dir)
	a := &Asker{Queue: q, Tokens: st} // no session known
	r, err := a.Call(context.Background(), parkTool, `{"note":"use `+older+` or `+latest+`"}`)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := q.Get(r.ID)
	for _, tok := range []string{older, latest} {
		if strings.Contains(got.JSON(), tok) || !strings.Contains(got.Input, token.StandIn(approvals.DefaultKey, tok)) {
			t.Errorf("the record shows %s: %s", tok, got.JSON())
		}
	}
}

// TestSessionIDsAreBytes: a parked call bound to session "A\xff" is
// delivered to that session and not to "A\ufffd", which is another one
// (the record used to store the id with U+FFFD for the byte).
func TestSessionIDsAreBytes(t *testing.T) {
	for _, bind := range []bool{false, true} {
		q := newQueue(t)
		a := &Asker{Queue: q}
		if !bind {
			a.Session = "A\xff"
		}
		r, err := a.Call(context.Background(), parkTool, `{}`)
		if err != nil {
			t.Fatal(err)
		}
		if bind {
			if _, err := Bind(q, "A\xff", "mcp__human__request_access", []string{r.Text}); err != nil {
				t.Fatal(err)
			}
		}
		if got, _ := q.Get(r.ID); got.Session != "A\xff" {
			t.Errorf("stored session %q", got.Session)
		}
		q.AnswerInput(r.ID, "yes", "p")
		if text, _, _ := Deliver(q, "A\ufffd", "", "test"); text != "" {
			t.Fatalf("bind %v: session A\\ufffd got the answer of session A\\xff: %q", bind, text)
		}
		if text, _, _ := Deliver(q, "A\xff", "", "test"); !strings.Contains(text, "yes") {
			t.Fatalf("bind %v: session A\\xff did not get its answer: %q", bind, text)
		}
	}
}
