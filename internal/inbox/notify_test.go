package inbox

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/interceptor-dev/interceptor/internal/approvals"
	"github.com/interceptor-dev/interceptor/internal/children"
	"github.com/interceptor-dev/interceptor/internal/hooks"
	"github.com/interceptor-dev/interceptor/internal/state"
)

// receiver is a loopback notify URL that keeps what it was sent.
type receiver struct {
	*httptest.Server
	mu    sync.Mutex
	posts []post
	got   chan struct{}
	code  int
}

type post struct {
	method, path string
	body         string
	header       http.Header
}

func newReceiver(t *testing.T) *receiver {
	rc := &receiver{got: make(chan struct{}, 16), code: http.StatusOK}
	rc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		rc.posts = append(rc.posts, post{r.Method, r.URL.Path, string(b), r.Header.Clone()})
		code := rc.code
		rc.mu.Unlock()
		w.WriteHeader(code)
		rc.got <- struct{}{}
	}))
	t.Cleanup(rc.Close)
	return rc
}

func (rc *receiver) wait(t *testing.T, n int) []post {
	t.Helper()
	for {
		rc.mu.Lock()
		if len(rc.posts) >= n {
			out := append([]post(nil), rc.posts...)
			rc.mu.Unlock()
			return out
		}
		rc.mu.Unlock()
		select {
		case <-rc.got:
		case <-time.After(5 * time.Second):
			t.Fatalf("%d notification(s) came, want %d", len(rc.posts), n)
		}
	}
}

// serve runs s until the test ends and waits until its notifier knows
// what waited at start. A burst is gathered for 50 ms, not burstWait.
func serve(t *testing.T, s *Server) {
	if s.notify.burst == burstWait {
		s.notify.burst = 50 * time.Millisecond
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { s.Serve(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	select {
	case <-s.notify.ready:
	case <-time.After(5 * time.Second):
		t.Fatal("the notifier did not start")
	}
}

// A request that starts waiting is notified in a short message: the tool
// (masked: permit takes any name), the child and the client, the page's
// link without its secret; never the arguments, never a token. An
// approval is sent at ntfy's high priority, a question at the default; the
// message is cleared (PUT TOPIC/SID/clear) once decided, and the next one
// has a sequence id of its own. What waited at start is not notified.
func TestNotifyPostsAShortMessage(t *testing.T) {
	rc := newReceiver(t)
	dir := filepath.Join(t.TempDir(), "state")
	const tok = "tok-SESSION-S1-0123456789abcdef"
	if err := state.New(dir).Put(state.Record{Token: tok, Server: "wf", Session: "s1"}); err != nil {
		t.Fatal(err)
	}
	kids := children.New(dir)
	child, err := kids.Create(children.Child{Name: "worker", Client: "claude-code", WorkingDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	q := approvals.New(dir)
	before := enqueue(t, q, approvals.Request{Client: "codex", Tool: "waited_before_start"})
	var logs syncBuffer
	s := newServer(t, Options{StateDir: dir, Notify: rc.URL + "/topic", Log: &logs})
	serve(t, s)
	decide := func(id string) {
		t.Helper()
		if _, err := q.Decide(id, hooks.Decision{Allow: true, By: "test"}); err != nil {
			t.Fatal(err)
		}
	}

	args := `{"step":"secret-arg-value","session_token":"` + tok + `"}`
	a := enqueue(t, q, approvals.Request{Client: "claude-code", Session: "s1", Chat: children.ChatID(child.ID, 1),
		Tool: "mcp__wf__next_step", Input: args})
	got := rc.wait(t, 1)[0]
	want := "mcp__wf__next_step waits for your decision (child worker, claude-code). " + s.Link()
	if got.method != http.MethodPost || got.path != "/topic" || got.body != want {
		t.Errorf("%s %s %q, want POST /topic %q", got.method, got.path, got.body, want)
	}
	sid := got.header.Get("X-Sequence-ID")
	if got.header.Get("Title") != "interceptor: an approval waits" || got.header.Get("Click") != s.Link() ||
		got.header.Get("Priority") != "high" || !strings.HasPrefix(sid, "interceptor-") {
		t.Errorf("headers %v", got.header)
	}
	decide(a.ID)
	if c := rc.wait(t, 2)[1]; c.method != http.MethodPut || c.path != "/topic/"+sid+"/clear" || c.body != "" {
		t.Errorf("once decided: %s %s %q, want PUT /topic/%s/clear", c.method, c.path, c.body, sid)
	}
	// A tool name that carries the token (the model names permit's tool).
	x := enqueue(t, q, approvals.Request{Client: "claude-code", Session: "s1", Tool: "x" + tok + "\x1b[2J", Input: `{}`})
	p := rc.wait(t, 3)[2]
	if !strings.Contains(p.body, "x[session_token ") || !strings.Contains(p.body, `\x1b[2J`) {
		t.Errorf("a tool name with a token and ESC: %q", p.body)
	}
	if p.header.Get("X-Sequence-ID") == sid || p.header.Get("X-Sequence-ID") == "" {
		t.Errorf("the next message's sequence id %q, the cleared one's %q", p.header.Get("X-Sequence-ID"), sid)
	}
	decide(x.ID)
	rc.wait(t, 4)
	qn := enqueue(t, q, approvals.Request{Kind: approvals.KindInput, Mode: approvals.ModePark, Session: "s1", Tool: "request_access", Input: args})
	p = rc.wait(t, 5)[4]
	if !strings.HasPrefix(p.body, "request_access asks you a question") || p.header.Get("Title") != "interceptor: a question waits" ||
		p.header.Get("Priority") != "default" {
		t.Errorf("a question: %q %v", p.body, p.header)
	}
	for _, p := range rc.wait(t, 5) {
		for _, bad := range []string{tok, "secret-arg-value", "{", `"step"`, hex.EncodeToString(s.auth.key), before.Tool} {
			if strings.Contains(p.body+p.path, bad) || strings.Contains(strings.Join(p.header.Values("Click"), " "), bad) {
				t.Errorf("a notification holds %q: %s %q", bad, p.path, p.body)
			}
		}
	}
	// A receiver that fails: one log line, the page goes on.
	rc.mu.Lock()
	rc.code = http.StatusInternalServerError
	rc.mu.Unlock()
	b := enqueue(t, q, approvals.Request{Tool: "t"})
	rc.wait(t, 6)
	line := "notification for " + qn.ID + ", " + b.ID + " not sent: the notify URL answered 500"
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(logs.String(), line) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if !strings.Contains(logs.String(), line) {
		t.Errorf("log: %q, want %q", logs.String(), line)
	}
}

// A burst is one message: five requests within the burst's wait make one
// POST ("5 requests wait"), not five. A decision updates it quietly (the
// same sequence id, low priority) with what still waits; the last clears
// it.
func TestNotifyBurst(t *testing.T) {
	rc := newReceiver(t)
	s := newServer(t, Options{Notify: rc.URL + "/topic"})
	s.notify.burst = time.Second // five enqueues (each fsyncs) fit in it on a loaded machine
	serve(t, s)
	q := approvals.New(s.opts.StateDir)
	var reqs []approvals.Request
	for i := range 4 {
		reqs = append(reqs, enqueue(t, q, approvals.Request{Client: "codex", Tool: fmt.Sprintf("mcp__wf__step%d", i), Input: `{}`}))
	}
	reqs = append(reqs, enqueue(t, q, approvals.Request{Kind: approvals.KindInput, Mode: approvals.ModePark, Tool: "ask", Input: `{}`}))
	got := rc.wait(t, 1)[0]
	time.Sleep(2 * time.Second) // two more bursts' time: nothing else comes
	if n := len(rc.wait(t, 1)); n != 1 {
		t.Fatalf("5 requests at once made %d messages, want 1", n)
	}
	want := "5 requests wait (4 approvals, 1 question): mcp__wf__step0 (codex); mcp__wf__step1 (codex); mcp__wf__step2 (codex); and 2 more. " + s.Link()
	if got.body != want || got.header.Get("Title") != "interceptor: 5 requests wait" || got.header.Get("Priority") != "high" {
		t.Errorf("burst: %q %v\nwant %q", got.body, got.header, want)
	}
	sid := got.header.Get("X-Sequence-ID")
	for _, r := range reqs[:2] {
		if _, err := q.Decide(r.ID, hooks.Decision{Allow: true, By: "test"}); err != nil {
			t.Fatal(err)
		}
	}
	var update post
	for deadline := time.Now().Add(5 * time.Second); ; {
		posts := rc.wait(t, 2)
		update = posts[len(posts)-1]
		if strings.HasPrefix(update.body, "3 requests wait") || time.Now().After(deadline) {
			break
		}
		rc.wait(t, len(posts)+1)
	}
	if !strings.HasPrefix(update.body, "3 requests wait (2 approvals, 1 question): mcp__wf__step2 (codex); mcp__wf__step3 (codex); ask. ") ||
		update.method != http.MethodPost || update.header.Get("X-Sequence-ID") != sid || update.header.Get("Priority") != "low" {
		t.Errorf("after two decisions: %s %q %v", update.method, update.body, update.header)
	}
	for _, r := range reqs[2:4] {
		if _, err := q.Decide(r.ID, hooks.Decision{Allow: true, By: "test"}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := q.AnswerInput(reqs[4].ID, "yes", "test"); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(5 * time.Second); ; {
		posts := rc.wait(t, 3)
		last := posts[len(posts)-1]
		if last.method == http.MethodPut {
			if last.path != "/topic/"+sid+"/clear" {
				t.Errorf("clear: %s %s", last.method, last.path)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("never cleared: %+v", posts)
		}
		rc.wait(t, len(posts)+1)
	}
	for _, p := range rc.wait(t, 3) {
		if p.header.Get("X-Sequence-ID") != sid {
			t.Errorf("%s %s: sequence id %q, want %q", p.method, p.path, p.header.Get("X-Sequence-ID"), sid)
		}
	}
}

// A webhook (--notify-json) gets the event, the sequence id, the counts and
// each request; one request's fields are at the top too.
func TestNotifyJSON(t *testing.T) {
	rc := newReceiver(t)
	s := newServer(t, Options{Notify: rc.URL, NotifyJSON: true})
	serve(t, s)
	q := approvals.New(s.opts.StateDir)
	a := enqueue(t, q, approvals.Request{Client: "gemini", Tool: "mcp_wf_next_step", Input: `{"step":"x"}`})
	got := rc.wait(t, 1)[0]
	var m map[string]any
	if err := json.Unmarshal([]byte(got.body), &m); err != nil || got.header.Get("Content-Type") != "application/json" {
		t.Fatalf("%v %q", err, got.body)
	}
	if m["event"] != "wait" || m["tool"] != "mcp_wf_next_step" || m["id"] != a.ID || m["kind"] != "approval" || m["client"] != "gemini" ||
		m["link"] != s.Link() || m["count"] != 1.0 || m["priority"] != "high" || m["sequence_id"] == "" ||
		!strings.HasPrefix(m["text"].(string), "mcp_wf_next_step waits") {
		t.Errorf("%v", m)
	}
	if _, err := q.Decide(a.ID, hooks.Decision{Allow: true, By: "test"}); err != nil {
		t.Fatal(err)
	}
	got = rc.wait(t, 2)[1]
	m = nil
	if err := json.Unmarshal([]byte(got.body), &m); err != nil || got.method != http.MethodPost || m["event"] != "clear" || m["count"] != 0.0 {
		t.Errorf("once decided: %s %v %q", got.method, err, got.body)
	}
}

// A bad --notify is refused without repeating it: it may be a secret.
func TestNotifyURLChecked(t *testing.T) {
	for _, u := range []string{"ftp://x/SECRET-topic", "not a url SECRET", "http://", "file:///etc/SECRET", "https://SECRET%zz"} {
		_, err := Listen(Options{StateDir: t.TempDir(), Notify: u})
		if err == nil || !strings.Contains(err.Error(), "--notify") || strings.Contains(err.Error(), "SECRET") {
			t.Errorf("--notify %q: %v", u, err)
		}
	}
}

// The notify URL's path, query and user are never logged or printed: a
// failed POST (an error status, a refused connection) logs scheme://host
// and a mask.
func TestNotifyURLNeverLogged(t *testing.T) {
	rc := newReceiver(t)
	rc.code = http.StatusInternalServerError
	dead, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	deadAddr := dead.Addr().String()
	dead.Close()
	for _, c := range []struct{ url, want string }{
		{rc.URL + "/SECRET-topic?auth=SECRET-q", "the notify URL answered 500"},
		{"http://user:SECRET-pw@" + deadAddr + "/SECRET-topic?auth=SECRET-q#SECRET-f", "http://" + deadAddr + "/…: dial tcp"},
		{"http://" + deadAddr + "/SECRET-topic", "http://" + deadAddr + "/…: dial tcp"},
	} {
		var logs syncBuffer
		s := newServer(t, Options{Notify: c.url, Log: &logs})
		if d := s.Describe(); strings.Contains(d, "SECRET") || !strings.Contains(d, "/…") {
			t.Errorf("Describe: %s", d)
		}
		serve(t, s)
		a := enqueue(t, approvals.New(s.opts.StateDir), approvals.Request{Tool: "t"})
		for deadline := time.Now().Add(10 * time.Second); !strings.Contains(logs.String(), a.ID) && time.Now().Before(deadline); {
			time.Sleep(10 * time.Millisecond)
		}
		got := logs.String()
		if !strings.Contains(got, "notification for "+a.ID+" not sent") || !strings.Contains(got, c.want) || strings.Contains(got, "SECRET") ||
			strings.Count(got, "\n") != 1 {
			t.Errorf("--notify %s: logged %q, want one line with %q and no secret", c.url, got, c.want)
		}
		// Its clearing (PUT TOPIC/SID/clear) fails too, and names no more.
		if _, err := approvals.New(s.opts.StateDir).Decide(a.ID, hooks.Decision{Allow: true, By: "test"}); err != nil {
			t.Fatal(err)
		}
		for deadline := time.Now().Add(10 * time.Second); !strings.Contains(logs.String(), "the decided requests") && time.Now().Before(deadline); {
			time.Sleep(10 * time.Millisecond)
		}
		if got := logs.String(); !strings.Contains(got, "notification for the decided requests not sent") || strings.Contains(got, "SECRET") {
			t.Errorf("--notify %s: clearing logged %q", c.url, got)
		}
	}
}

// syncBuffer is a bytes.Buffer the notifier's goroutine writes to while the
// test reads.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// On Linux a desktop notification goes through notify-send, its words as
// arguments (no shell).
func TestDesktopNotification(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("notify-send is looked for on Linux and the BSDs only")
	}
	bin := t.TempDir()
	out := filepath.Join(t.TempDir(), "args")
	// One write of all the lines (PATH holds no mv): the test polls the
	// file, and a half-written one read as the first line only.
	script := "#!/bin/sh\nall=''\nfor a in \"$@\"; do all=\"$all$a\n\"; done\nprintf '%s' \"$all\" >> " + out + "\n"
	if err := os.WriteFile(filepath.Join(bin, "notify-send"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin)
	s := newServer(t, Options{Desktop: true})
	if !strings.Contains(s.Describe(), "desktop ("+filepath.Join(bin, "notify-send")+")") {
		t.Errorf("Describe: %s", s.Describe())
	}
	s.notify.burst = time.Second
	serve(t, s)
	q := approvals.New(s.opts.StateDir)
	enqueue(t, q, approvals.Request{Client: "codex", Tool: "mcp__wf__next_step; rm -rf ~", Input: `{"a":"b"}`})
	read := func(want string) string {
		var got []byte
		for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if got, _ = os.ReadFile(out); len(got) >= len(want) {
				break
			}
		}
		return string(got)
	}
	want := "--app-name=interceptor\n--\ninterceptor: an approval waits\nmcp__wf__next_step; rm -rf ~ waits for your decision (codex). " + s.Link() + "\n"
	if got := read(want); got != want {
		t.Errorf("notify-send got\n%s\nwant\n%s", got, want)
	}
	// A burst of three is one more notification, not three.
	for i := range 3 {
		enqueue(t, q, approvals.Request{Client: "codex", Tool: fmt.Sprintf("t%d", i), Input: `{}`})
	}
	want += "--app-name=interceptor\n--\ninterceptor: 4 requests wait\n4 requests wait (4 approvals, 0 questions): mcp__wf__next_step; rm -rf ~ (codex); t0 (codex); t1 (codex); and 1 more. " + s.Link() + "\n"
	read(want)
	time.Sleep(2 * time.Second)
	if got, _ := os.ReadFile(out); string(got) != want {
		t.Errorf("notify-send after a burst got\n%s\nwant\n%s", got, want)
	}
	t.Setenv("PATH", t.TempDir())
	if s := newServer(t, Options{Desktop: true}); !strings.Contains(s.Describe(), "notify-send is not on PATH") {
		t.Errorf("Describe without notify-send: %s", s.Describe())
	}
}

// NotifyWait sets the burst's wait: 0 is burstWait, negative none.
func TestNotifyWait(t *testing.T) {
	for _, c := range []struct {
		wait, want time.Duration
	}{{0, burstWait}, {-1, 0}, {time.Second, time.Second}} {
		if got := newServer(t, Options{Notify: "http://127.0.0.1:9/t", NotifyWait: c.wait}).notify.burst; got != c.want {
			t.Errorf("NotifyWait %s: a burst waits %s, want %s", c.wait, got, c.want)
		}
	}
}
