package inbox

import (
	"context"
	"encoding/hex"
	"encoding/json"
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
	body   string
	header http.Header
}

func newReceiver(t *testing.T) *receiver {
	rc := &receiver{got: make(chan struct{}, 16), code: http.StatusOK}
	rc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		rc.posts = append(rc.posts, post{string(b), r.Header.Clone()})
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
// what waited at start.
func serve(t *testing.T, s *Server) {
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
// link without its secret; never the arguments, never a token. What
// waited at start is not notified.
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

	args := `{"step":"secret-arg-value","session_token":"` + tok + `"}`
	a := enqueue(t, q, approvals.Request{Client: "claude-code", Session: "s1", Chat: children.ChatID(child.ID, 1),
		Tool: "mcp__wf__next_step", Input: args})
	got := rc.wait(t, 1)[0]
	want := "mcp__wf__next_step waits for your decision (child worker, claude-code). " + s.Link()
	if got.body != want {
		t.Errorf("body %q, want %q", got.body, want)
	}
	if got.header.Get("Title") != "interceptor: an approval waits" || got.header.Get("Click") != s.Link() {
		t.Errorf("headers %v", got.header)
	}
	// A tool name that carries the token (the model names permit's tool).
	enqueue(t, q, approvals.Request{Client: "claude-code", Session: "s1", Tool: "x" + tok + "\x1b[2J", Input: `{}`})
	enqueue(t, q, approvals.Request{Kind: approvals.KindInput, Mode: approvals.ModePark, Session: "s1", Tool: "request_access", Input: args})
	posts := rc.wait(t, 3)
	if !strings.Contains(posts[1].body, "x[session_token ") || !strings.Contains(posts[1].body, `\x1b[2J`) {
		t.Errorf("a tool name with a token and ESC: %q", posts[1].body)
	}
	if !strings.HasPrefix(posts[2].body, "request_access asks you a question") || posts[2].header.Get("Title") != "interceptor: a question waits" {
		t.Errorf("a question: %q %v", posts[2].body, posts[2].header)
	}
	for _, p := range posts {
		for _, bad := range []string{tok, "secret-arg-value", "{", `"step"`, hex.EncodeToString(s.auth.key), before.Tool} {
			if strings.Contains(p.body, bad) || strings.Contains(strings.Join(p.header.Values("Click"), " "), bad) {
				t.Errorf("a notification holds %q: %q", bad, p.body)
			}
		}
	}
	_ = a
	// A receiver that fails: one log line, the page goes on.
	rc.mu.Lock()
	rc.code = http.StatusInternalServerError
	rc.mu.Unlock()
	b := enqueue(t, q, approvals.Request{Tool: "t"})
	rc.wait(t, 4)
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(logs.String(), "notification for "+b.ID+" not sent: the notify URL answered 500") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if !strings.Contains(logs.String(), b.ID) {
		t.Errorf("log: %q", logs.String())
	}
}

func TestNotifyJSON(t *testing.T) {
	rc := newReceiver(t)
	s := newServer(t, Options{Notify: rc.URL, NotifyJSON: true})
	serve(t, s)
	a := enqueue(t, approvals.New(s.opts.StateDir), approvals.Request{Client: "gemini", Tool: "mcp_wf_next_step", Input: `{"step":"x"}`})
	got := rc.wait(t, 1)[0]
	var m map[string]string
	if err := json.Unmarshal([]byte(got.body), &m); err != nil || got.header.Get("Content-Type") != "application/json" {
		t.Fatalf("%v %q", err, got.body)
	}
	if m["tool"] != "mcp_wf_next_step" || m["id"] != a.ID || m["kind"] != "approval" || m["client"] != "gemini" || m["link"] != s.Link() ||
		!strings.HasPrefix(m["text"], "mcp_wf_next_step waits") {
		t.Errorf("%v", m)
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
	script := "#!/bin/sh\nall=''\nfor a in \"$@\"; do all=\"$all$a\n\"; done\nprintf '%s' \"$all\" > " + out + "\n"
	if err := os.WriteFile(filepath.Join(bin, "notify-send"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin)
	s := newServer(t, Options{Desktop: true})
	if !strings.Contains(s.Describe(), "desktop ("+filepath.Join(bin, "notify-send")+")") {
		t.Errorf("Describe: %s", s.Describe())
	}
	serve(t, s)
	enqueue(t, approvals.New(s.opts.StateDir), approvals.Request{Client: "codex", Tool: "mcp__wf__next_step; rm -rf ~", Input: `{"a":"b"}`})
	var got []byte
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if got, _ = os.ReadFile(out); len(got) > 0 {
			break
		}
	}
	want := "--app-name=interceptor\n--\ninterceptor: an approval waits\nmcp__wf__next_step; rm -rf ~ waits for your decision (codex). " + s.Link() + "\n"
	if string(got) != want {
		t.Errorf("notify-send got\n%s\nwant\n%s", got, want)
	}
	t.Setenv("PATH", t.TempDir())
	if s := newServer(t, Options{Desktop: true}); !strings.Contains(s.Describe(), "notify-send is not on PATH") {
		t.Errorf("Describe without notify-send: %s", s.Describe())
	}
}
