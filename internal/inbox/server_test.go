package inbox

import (
	"bufio"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/interceptor-dev/interceptor/internal/approvals"
	"github.com/interceptor-dev/interceptor/internal/hooks"
	"github.com/interceptor-dev/interceptor/internal/state"
)

// newServer listens on loopback (port 0) with a fresh state dir.
func newServer(t *testing.T, o Options) *Server {
	t.Helper()
	if o.StateDir == "" {
		o.StateDir = filepath.Join(t.TempDir(), "state")
	}
	s, err := Listen(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.ln.Close() })
	return s
}

// req is a request as the page's own script sends it: the page's Host and
// Origin, and a session token (auth_test.go's handshake). Each test then
// spoils one.
func (s *Server) req(method, path, body string) *http.Request {
	r := s.bare(method, path, body)
	r.Header.Set(sessionHeader, s.testSession())
	return r
}

// bare is req without a session.
func (s *Server) bare(method, path, body string) *http.Request {
	r := httptest.NewRequest(method, path, strings.NewReader(body))
	r.Host = "127.0.0.1:" + s.port
	r.Header.Set("Origin", "http://"+r.Host)
	r.Header.Set("Sec-Fetch-Site", "same-origin")
	return r
}

func (s *Server) do(r *http.Request) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	s.Handler().ServeHTTP(w, r)
	return w
}

func enqueue(t *testing.T, q *approvals.Store, r approvals.Request) approvals.Request {
	t.Helper()
	if r.Deadline.IsZero() {
		r.Deadline = time.Now().Add(time.Minute)
	}
	got, err := q.Enqueue(r)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// js is v as JSON (strings escaped as JSON wants, unlike %q).
func js(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// Binding beyond loopback is refused without AllowRemote, with a line
// that says why and how.
func TestListenRefusesBeyondLoopback(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", ":0", "[::]:0", "192.0.2.1:0", "example.com:0"} {
		_, err := Listen(Options{StateDir: t.TempDir(), Listen: addr})
		if !errors.Is(err, ErrNotLoopback) || !strings.Contains(err.Error(), "--allow-remote") || strings.Contains(err.Error(), "\n") {
			t.Errorf("Listen(%q) = %v, want a one-line refusal naming --allow-remote", addr, err)
		}
		if _, err := checkListen(addr, true); err != nil {
			t.Errorf("checkListen(%q, allowRemote) = %v", addr, err)
		}
	}
	if _, err := Listen(Options{StateDir: t.TempDir(), Listen: "127.0.0.1"}); err == nil || !strings.Contains(err.Error(), "HOST:PORT") {
		t.Errorf("a listen address without a port: %v", err)
	}
	for _, addr := range []string{"127.0.0.1:0", "localhost:0", "127.0.0.2:0"} {
		s, err := Listen(Options{StateDir: filepath.Join(t.TempDir(), "state"), Listen: addr})
		if err != nil {
			t.Errorf("Listen(%q): %v", addr, err)
			continue
		}
		key := hex.EncodeToString(s.auth.key)
		if !strings.HasPrefix(s.URL(), "http://") || s.URL() != s.Link()+"#key="+key || strings.Contains(s.Link(), key) {
			t.Errorf("URL %q / Link %q", s.URL(), s.Link())
		}
		// An IP literal, never localhost: the browser could reach another
		// user's listener on the loopback address the inbox does not hold.
		if u, err := url.Parse(s.Link()); err != nil || net.ParseIP(u.Hostname()) == nil {
			t.Errorf("Listen(%q): the page's link %q does not name an IP", addr, s.Link())
		}
		s.ln.Close()
	}
}

// Host (DNS rebinding), Origin and Sec-Fetch-Site are checked before
// anything is served or done.
func TestHostAndOriginChecks(t *testing.T) {
	s := newServer(t, Options{})
	q := approvals.New(s.opts.StateDir)
	r0 := enqueue(t, q, approvals.Request{Client: "codex", Tool: "t"})
	body := fmt.Sprintf(`{"id":%q,"allow":true}`, r0.ID)
	rebind := func(host string) func(r *http.Request) {
		return func(r *http.Request) {
			r.Host = host
			r.Header.Set("Origin", "http://"+host)
		}
	}
	for _, c := range []struct {
		name  string
		spoil func(r *http.Request)
		want  int
	}{
		// DNS rebinding: the attacker's page is its own origin, so Host
		// and Origin agree; only the Host check stops it.
		{"evil host", rebind("evil.example:" + s.port), http.StatusForbidden},
		{"evil host, no port", rebind("evil.example"), http.StatusForbidden},
		{"another port", rebind("127.0.0.1:1"), http.StatusForbidden},
		{"a LAN address", rebind("192.168.1.10:" + s.port), http.StatusForbidden},
		{"cross origin", func(r *http.Request) { r.Header.Set("Origin", "http://evil.example") }, http.StatusForbidden},
		{"origin of another port", func(r *http.Request) { r.Header.Set("Origin", "http://127.0.0.1:1") }, http.StatusForbidden},
		{"no origin", func(r *http.Request) { r.Header.Del("Origin") }, http.StatusForbidden},
		{"cross site fetch", func(r *http.Request) { r.Header.Set("Sec-Fetch-Site", "cross-site") }, http.StatusForbidden},
		{"same site (another port's page)", func(r *http.Request) { r.Header.Set("Sec-Fetch-Site", "same-site") }, http.StatusForbidden},
		{"no session", func(r *http.Request) { r.Header.Del(sessionHeader) }, http.StatusUnauthorized},
	} {
		r := s.req("POST", "/api/decide", body)
		c.spoil(r)
		if w := s.do(r); w.Code != c.want {
			t.Errorf("%s: %d %q, want %d", c.name, w.Code, w.Body.String(), c.want)
		}
		if got, _ := q.Get(r0.ID); got.Status != approvals.Pending {
			t.Fatalf("%s: the request was decided: %s", c.name, got.Status)
		}
	}
	// Reads: Host and Origin too.
	for _, host := range []string{"evil.example:" + s.port, "attacker.localhost.example:" + s.port} {
		r := s.req("GET", "/api/pending", "")
		rebind(host)(r)
		if w := s.do(r); w.Code != http.StatusForbidden || strings.Contains(w.Body.String(), r0.ID) {
			t.Errorf("GET with Host %s: %d", host, w.Code)
		}
	}
	r := s.req("GET", "/api/pending", "")
	r.Header.Set("Origin", "http://evil.example")
	if w := s.do(r); w.Code != http.StatusForbidden {
		t.Errorf("GET with a foreign Origin: %d", w.Code)
	}
	// The names the page answers to.
	for _, host := range []string{"127.0.0.1:" + s.port, "localhost:" + s.port, "LOCALHOST:" + s.port, "[::1]:" + s.port} {
		r := s.req("GET", "/api/pending", "")
		r.Host = host
		r.Header.Set("Origin", "http://"+host)
		if w := s.do(r); w.Code != http.StatusOK {
			t.Errorf("GET with Host %s: %d %s", host, w.Code, w.Body.String())
		}
	}
	// With every check passed, the decision is made.
	if w := s.do(s.req("POST", "/api/decide", body)); w.Code != http.StatusOK {
		t.Fatalf("a proper decision: %d %s", w.Code, w.Body.String())
	}
}

// Decisions and answers go through the queue's own Decide and AnswerInput,
// recorded with decided_by; a second one is refused and changes nothing.
func TestDecideAndAnswer(t *testing.T) {
	s := newServer(t, Options{})
	q := approvals.New(s.opts.StateDir)
	post := func(path, body string) (int, map[string]string) {
		t.Helper()
		w := s.do(s.req("POST", path, body))
		var m map[string]string
		json.Unmarshal(w.Body.Bytes(), &m)
		return w.Code, m
	}
	a := enqueue(t, q, approvals.Request{Client: "claude-code", Tool: "mcp__wf__next_step", Input: `{"step":"two"}`})
	if code, m := post("/api/decide", fmt.Sprintf(`{"id":%q,"allow":false,"message":"needs a reviewer"}`, a.ID)); code != 200 || m["status"] != "denied" {
		t.Fatalf("deny: %d %v", code, m)
	}
	got, _ := q.Get(a.ID)
	if got.Status != approvals.Denied || got.Reason != "needs a reviewer" || !strings.HasPrefix(got.DecidedBy, "inbox (uid ") ||
		!strings.Contains(got.DecidedBy, fmt.Sprintf("pid %d", os.Getpid())) {
		t.Fatalf("record after the deny: %+v", got)
	}
	if code, m := post("/api/decide", fmt.Sprintf(`{"id":%q,"allow":true}`, a.ID)); code != http.StatusConflict || !strings.Contains(m["error"], "already decided") {
		t.Errorf("a second decision: %d %v", code, m)
	}
	if again, _ := q.Get(a.ID); again.Status != approvals.Denied || again.DecidedAt != got.DecidedAt {
		t.Errorf("the second decision changed the record: %+v", again)
	}
	b := enqueue(t, q, approvals.Request{Client: "codex", Tool: "t", Input: `{"a":1}`})
	for _, bad := range []string{
		fmt.Sprintf(`{"id":%q,"allow":true,"updated_input":"[1]"}`, b.ID),
		fmt.Sprintf(`{"id":%q,"allow":true,"updated_input":"{"}`, b.ID),
		fmt.Sprintf(`{"id":%q,"allow":false,"updated_input":"{\"a\":2}"}`, b.ID),
		fmt.Sprintf(`{"id":%q,"allow":"yes"}`, b.ID),
		`{"allow":true}`, `[]`, `not json`,
	} {
		if code, m := post("/api/decide", bad); code != http.StatusBadRequest || m["error"] == "" {
			t.Errorf("%s: %d %v", bad, code, m)
		}
	}
	if code, _ := post("/api/decide", `{"id":"0123456789abcdef","allow":true}`); code != http.StatusNotFound {
		t.Errorf("an unknown id: %d", code)
	}
	if code, m := post("/api/decide", fmt.Sprintf(`{"id":%q,"allow":true,"updated_input":"{\n  \"a\": 2\n}"}`, b.ID)); code != 200 || m["status"] != "allowed" {
		t.Fatalf("allow with new input: %d %v", code, m)
	}
	if got, _ := q.Get(b.ID); got.UpdatedInput != `{"a":2}` {
		t.Errorf("updated input %q", got.UpdatedInput)
	}

	ask := enqueue(t, q, approvals.Request{Kind: approvals.KindInput, Mode: approvals.ModePark, Tool: "request_access", Input: `{"what":"db"}`})
	if code, _ := post("/api/decide", fmt.Sprintf(`{"id":%q,"allow":true}`, ask.ID)); code != http.StatusBadRequest {
		t.Errorf("allow on a question: %d", code)
	}
	if code, _ := post("/api/answer", fmt.Sprintf(`{"id":%q,"answer":"  "}`, ask.ID)); code != http.StatusBadRequest {
		t.Errorf("an empty answer: %d", code)
	}
	if code, m := post("/api/answer", fmt.Sprintf(`{"id":%q,"answer":"granted until Friday"}`, ask.ID)); code != 200 || m["status"] != "answered" {
		t.Fatalf("answer: %d %v", code, m)
	}
	if got, _ := q.Get(ask.ID); got.Answer != "granted until Friday" || !strings.HasPrefix(got.DecidedBy, "inbox (uid ") {
		t.Errorf("answered record %+v", got)
	}
	if code, _ := post("/api/answer", fmt.Sprintf(`{"id":%q,"answer":"again"}`, ask.ID)); code != http.StatusConflict {
		t.Errorf("a second answer: %d", code)
	}
	c := enqueue(t, q, approvals.Request{Tool: "t"})
	if code, _ := post("/api/answer", fmt.Sprintf(`{"id":%q,"answer":"x"}`, c.ID)); code != http.StatusBadRequest {
		t.Errorf("an answer to an approval: %d", code)
	}
}

// What the page shows holds stand-ins for held tokens and visible escapes
// for control and bidi characters, in the list, one request, the history
// and the question's fields.
func TestPageShowsStandInsAndEscapes(t *testing.T) {
	s := newServer(t, Options{})
	q := approvals.New(s.opts.StateDir)
	const tok = "tok-SESSION-S1-0123456789abcdef"
	if err := state.New(s.opts.StateDir).Put(state.Record{Token: tok, Server: "wf", Session: "s1"}); err != nil {
		t.Fatal(err)
	}
	evil := "\x1b[31mred\u202eevil\u2028"
	a := enqueue(t, q, approvals.Request{Client: "claude-code", Session: "s1", Tool: "mcp__wf__" + evil,
		Input: js(map[string]any{"note": evil, "nested": map[string]any{"x": "carries " + tok + " inside"}})})
	ask := enqueue(t, q, approvals.Request{Kind: approvals.KindInput, Mode: approvals.ModeHold, Session: "s1", Tool: "ask_person",
		Input:       js(map[string]any{"question": "which repo?\nsay " + tok, "extra": evil}),
		InputSchema: `{"type":"object","properties":{"question":{"type":"string","title":"Question","description":"what to ask \u202e"},"urgency":{"type":"string"}},"required":["question"]}`})
	done := enqueue(t, q, approvals.Request{Client: "codex", Session: "s1", Tool: "t", Input: js(map[string]any{"v": tok})})
	if _, err := q.Decide(done.ID, hooks.Decision{Reason: "no " + tok + evil, By: "test"}); err != nil {
		t.Fatal(err)
	}

	check := func(what, body string) {
		t.Helper()
		if strings.Contains(body, tok) {
			t.Errorf("%s shows the token: %s", what, body)
		}
		// The body is JSON: a raw control or bidi character would come
		// back from JSON.parse as itself; the page must get the escape
		// as text (a backslash).
		var v any
		if err := json.Unmarshal([]byte(body), &v); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		var walk func(v any)
		walk = func(v any) {
			switch x := v.(type) {
			case string:
				for _, r := range x {
					if r == 0x1b || r == 0x202e || r == 0x2028 || r == 0x7f {
						t.Errorf("%s: a string holds %U: %q", what, r, x)
					}
				}
			case []any:
				for _, e := range x {
					walk(e)
				}
			case map[string]any:
				for _, e := range x {
					walk(e)
				}
			}
		}
		walk(v)
	}
	w := s.do(s.req("GET", "/api/pending", ""))
	check("pending", w.Body.String())
	var p pending
	json.Unmarshal(w.Body.Bytes(), &p)
	if len(p.Items) != 2 {
		t.Fatalf("pending: %s", w.Body.String())
	}
	it := p.Items[0]
	if it.ID != a.ID || !strings.Contains(it.Tool, `\x1b[31mred\u202eevil\u2028`) || !strings.Contains(it.Input, "[session_token ") || !it.Editable {
		t.Errorf("approval shown as %+v", it)
	}
	// The editor starts from the shown input: it must parse back to the
	// same value (with the stand-in, which Ask resolves).
	var shownIn, stored map[string]any
	if err := json.Unmarshal([]byte(it.Input), &shownIn); err != nil {
		t.Errorf("the shown input is not JSON: %v\n%s", err, it.Input)
	}
	masked, _ := q.Get(a.ID)
	json.Unmarshal([]byte(q.Viewer().Request(masked).Input), &stored)
	if fmt.Sprint(shownIn) != fmt.Sprint(stored) {
		t.Errorf("shown input %v, stored %v", shownIn, stored)
	}
	qi := p.Items[1]
	if qi.Kind != "question" || len(qi.Fields) != 3 {
		t.Fatalf("question shown as %+v", qi)
	}
	f := qi.Fields
	if f[0].Name != "question" || f[0].Title != "Question" || f[0].Description != `what to ask \u202e` || !f[0].Required ||
		!strings.HasPrefix(f[0].Value, "which repo?\nsay [session_token ") {
		t.Errorf("field 1: %+v", f[0])
	}
	if f[1].Name != "urgency" || !f[1].Missing || f[1].Required {
		t.Errorf("field 2 (declared, not sent): %+v", f[1])
	}
	if f[2].Name != "extra" || f[2].Value != `\x1b[31mred\u202eevil\u2028` {
		t.Errorf("field 3 (sent, not declared): %+v", f[2])
	}
	w = s.do(s.req("GET", "/api/request?id="+a.ID, ""))
	check("request", w.Body.String())
	w = s.do(s.req("GET", "/api/history", ""))
	check("history", w.Body.String())
	if !strings.Contains(w.Body.String(), done.ID) || !strings.Contains(w.Body.String(), `[session_token `) {
		t.Errorf("history: %s", w.Body.String())
	}
	_ = ask
}

// A long input is cut in the list (and says so); the whole of it is one
// request away.
func TestLongInputIsCut(t *testing.T) {
	s := newServer(t, Options{})
	q := approvals.New(s.opts.StateDir)
	big := strings.Repeat("x", maxShown+100)
	a := enqueue(t, q, approvals.Request{Tool: "t", Input: js(map[string]any{"big": big})})
	p, err := s.pendingView(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if it := p.Items[0]; it.InputCut == 0 || len(it.Input) > maxShown || it.InputCut <= len(it.Input) {
		t.Errorf("cut %d, shown %d", it.InputCut, len(it.Input))
	}
	var whole item
	json.Unmarshal(s.do(s.req("GET", "/api/request?id="+a.ID, "")).Body.Bytes(), &whole)
	if whole.InputCut != 0 || !strings.Contains(whole.Input, big) {
		t.Errorf("the whole input: cut %d, %d bytes", whole.InputCut, len(whole.Input))
	}
}

// History pages newest first, searches every word, and reads at most
// maxScan records per request: a search of a long history goes on from
// Next.
func TestHistoryPagesAndSearch(t *testing.T) {
	s := newServer(t, Options{})
	q := approvals.New(s.opts.StateDir)
	var ids []string
	for i := range 40 {
		r := enqueue(t, q, approvals.Request{Client: "codex", Tool: fmt.Sprintf("tool_%02d", i), Input: `{}`})
		d := hooks.Decision{Allow: i%2 == 0, By: "test", Reason: fmt.Sprintf("reason %02d", i)}
		if i == 3 {
			d.Reason = "the needle"
		}
		if _, err := q.Decide(r.ID, d); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, r.ID)
	}
	enqueue(t, q, approvals.Request{Tool: "still_pending"})
	get := func(query string) historyPage {
		t.Helper()
		w := s.do(s.req("GET", "/api/history?"+query, ""))
		if w.Code != 200 {
			t.Fatalf("history?%s: %d %s", query, w.Code, w.Body.String())
		}
		var h historyPage
		json.Unmarshal(w.Body.Bytes(), &h)
		return h
	}
	h := get("limit=15")
	if len(h.Items) != 15 || h.Items[0].ID != ids[39] || h.Items[14].ID != ids[25] || h.Next != ids[25] || h.Scanned != 15 {
		t.Fatalf("page 1: %d items, next %q, scanned %d", len(h.Items), h.Next, h.Scanned)
	}
	all := len(h.Items)
	for h.Next != "" {
		h = get("limit=15&before=" + h.Next)
		all += len(h.Items)
		for _, it := range h.Items {
			if it.Tool == "still_pending" {
				t.Error("a pending request in the history")
			}
		}
	}
	if all != 40 {
		t.Errorf("paged through %d requests, want 40", all)
	}
	h = get("q=NEEDLE+denied")
	if len(h.Items) != 1 || h.Items[0].ID != ids[3] || h.Next != "" {
		t.Errorf("search: %+v", h)
	}
	if h := get("q=needle+allowed"); len(h.Items) != 0 {
		t.Errorf("every word must match: %+v", h.Items)
	}
	// Bounded: a search reads maxScan records, then says where to go on.
	maxScan = 10
	defer func() { maxScan = 2000 }()
	h = get("q=needle")
	if len(h.Items) != 0 || h.Scanned != 10 || h.Next != ids[30] {
		t.Fatalf("bounded search: %d found, scanned %d, next %q (want %q)", len(h.Items), h.Scanned, h.Next, ids[30])
	}
	for h.Next != "" && len(h.Items) == 0 {
		h = get("q=needle&before=" + h.Next)
		if h.Scanned > 10 {
			t.Fatalf("a step read %d records", h.Scanned)
		}
	}
	if len(h.Items) != 1 || h.Items[0].ID != ids[3] {
		t.Errorf("the search went on to %+v", h)
	}
}

// The stream sends what waits as soon as it is queued.
func TestStreamSendsNewRequests(t *testing.T) {
	// With the queue's poll at an hour, only its watch can wake the stream:
	// that is what this test proves, not a wall-clock figure (a 1 s bound
	// is too tight for a loaded CI machine).
	dir := filepath.Join(t.TempDir(), "state")
	q := approvals.New(dir)
	if runtime.GOOS == "linux" {
		q.Poll = time.Hour
	}
	s := newServer(t, Options{StateDir: dir, Source: Local(q)})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go s.Serve(ctx)
	r, _ := http.NewRequestWithContext(ctx, "GET", "http://127.0.0.1:"+s.port+"/api/stream", nil)
	r.Header.Set(sessionHeader, s.testSession())
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("stream: %s %s", resp.Status, resp.Header.Get("Content-Type"))
	}
	events := make(chan [2]string, 16)
	go func() {
		br := bufio.NewReader(resp.Body)
		var name string
		for {
			line, err := br.ReadString('\n')
			if err != nil {
				close(events)
				return
			}
			switch {
			case strings.HasPrefix(line, "event: "):
				name = strings.TrimSpace(line[7:])
			case strings.HasPrefix(line, "data: "):
				events <- [2]string{name, line[6:]}
			}
		}
	}()
	next := func(want string) string {
		t.Helper()
		for {
			select {
			case e, ok := <-events:
				if !ok {
					t.Fatalf("the stream ended waiting for %s", want)
				}
				if e[0] == want {
					return e[1]
				}
			case <-time.After(20 * time.Second):
				t.Fatalf("no %s event", want)
			}
		}
	}
	if first := next("pending"); !strings.Contains(first, `"items":[]`) {
		t.Fatalf("first pending event: %s", first)
	}
	t0 := time.Now()
	a := enqueue(t, q, approvals.Request{Client: "codex", Tool: "t"})
	got := next("pending")
	took := time.Since(t0)
	if !strings.Contains(got, a.ID) {
		t.Fatalf("pending event: %s", got)
	}
	t.Logf("a queued request reached the stream in %s", took)
	if _, err := q.Decide(a.ID, hooks.Decision{Allow: true, By: "test"}); err != nil {
		t.Fatal(err)
	}
	if got := next("pending"); strings.Contains(got, a.ID) {
		t.Errorf("a decided request is still sent: %s", got)
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, 0))
}
