package inbox

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/interceptor-dev/interceptor/internal/approvals"
)

// testSessions holds one session token per test server (Server.req).
var testSessions sync.Map

// testSession is a session token for s, got once through the handshake as
// the page's script does it.
func (s *Server) testSession() string {
	if tok, ok := testSessions.Load(s); ok {
		return tok.(string)
	}
	tok, err := s.handshake("127.0.0.1:"+s.port, s.auth.key)
	if err != nil {
		panic(err)
	}
	testSessions.Store(s, tok)
	return tok
}

// handshake is api.js's handshake in Go, over the handler, as a page
// served at host that holds key: it checks the server's proof before it
// sends its own.
func (s *Server) handshake(host string, key []byte) (string, error) {
	cn := strings.Repeat("c1", keyBytes)
	sn, sp, err := s.hello(host, cn)
	if err != nil {
		return "", err
	}
	if want := hex.EncodeToString(proof(key, "server", "http://"+host, cn, sn)); sp != want {
		return "", fmt.Errorf("the server's proof %s, want %s", sp, want)
	}
	code, m := s.post(host, "/api/session", map[string]string{"server_nonce": sn, "proof": hex.EncodeToString(proof(key, "client", "http://"+host, cn, sn))})
	if code != http.StatusOK || m["session"] == nil {
		return "", fmt.Errorf("POST /api/session: %d %v", code, m)
	}
	return m["session"].(string), nil
}

func (s *Server) hello(host, cn string) (sn, sp string, err error) {
	code, m := s.post(host, "/api/hello", map[string]string{"client_nonce": cn})
	if code != http.StatusOK {
		return "", "", fmt.Errorf("POST /api/hello: %d %v", code, m)
	}
	sn, _ = m["server_nonce"].(string)
	sp, _ = m["proof"].(string)
	return sn, sp, nil
}

// post is a handshake call as a page served at host sends it.
func (s *Server) post(host, path string, body any) (int, map[string]any) {
	b, _ := json.Marshal(body)
	r := s.bare("POST", path, string(b))
	r.Host = host
	r.Header.Set("Origin", "http://"+host)
	w := s.do(r)
	if w.Header().Get("Set-Cookie") != "" {
		panic("a handshake call set a cookie: " + w.Header().Get("Set-Cookie"))
	}
	var m map[string]any
	json.Unmarshal(w.Body.Bytes(), &m)
	return w.Code, m
}

// The page and its files hold no secret and set no cookie; what the
// script is allowed to do is only what the CSP allows; the script puts
// nothing into markup and loads nothing from elsewhere.
func TestPageHoldsNoSecret(t *testing.T) {
	s := newServer(t, Options{})
	tok := s.testSession()
	key := hex.EncodeToString(s.auth.key)
	names, err := fs.Glob(assets, "assets/*")
	if err != nil || len(names) < 4 {
		t.Fatalf("assets: %v %v", names, err)
	}
	paths := []string{"/"}
	for _, n := range names {
		if n != "assets/index.html" { // served as /
			paths = append(paths, "/static/"+strings.TrimPrefix(n, "assets/"))
		}
	}
	for _, path := range paths {
		r := s.bare("GET", path, "")
		r.Header.Del("Origin")
		w := s.do(r)
		if w.Code != http.StatusOK {
			t.Errorf("GET %s: %d", path, w.Code)
		}
		if b := w.Body.String(); strings.Contains(b, key) || strings.Contains(b, tok) || w.Header().Get("Set-Cookie") != "" {
			t.Errorf("GET %s holds a secret or sets a cookie", path)
		}
		if csp := w.Header().Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") || !strings.Contains(csp, "script-src 'self'") ||
			!strings.Contains(csp, "frame-ancestors 'none'") {
			t.Errorf("GET %s: CSP %q", path, csp)
		}
		if w.Header().Get("X-Frame-Options") != "DENY" || w.Header().Get("Referrer-Policy") != "no-referrer" {
			t.Errorf("GET %s: headers %v", path, w.Header())
		}
	}
	for _, name := range names {
		if strings.HasSuffix(name, ".svg") {
			continue
		}
		b, err := assets.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, bad := range []string{"http://", "https://", "//cdn", "innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "document.cookie", "localStorage"} {
			if strings.Contains(string(b), bad) {
				t.Errorf("%s contains %q", name, bad)
			}
		}
	}
}

// The handshake: the server proves K first, then the page; each refusal
// makes no session, and a server nonce is good once.
func TestHandshakeRefusals(t *testing.T) {
	s := newServer(t, Options{})
	host := "127.0.0.1:" + s.port
	origin := "http://" + host
	cn := strings.Repeat("ab", keyBytes)
	session := func(sn string, p []byte) int {
		code, _ := s.post(host, "/api/session", map[string]string{"server_nonce": sn, "proof": hex.EncodeToString(p)})
		return code
	}
	for _, bad := range []string{"", "ab", strings.Repeat("AB", keyBytes), strings.Repeat("zz", keyBytes), strings.Repeat("ab", keyBytes+1)} {
		if code, _ := s.post(host, "/api/hello", map[string]string{"client_nonce": bad}); code != http.StatusBadRequest {
			t.Errorf("hello with client nonce %q: %d", bad, code)
		}
	}
	other := []byte(strings.Repeat("k", keyBytes))
	for _, c := range []struct {
		name  string
		proof func(sn string) []byte
	}{
		{"another key", func(sn string) []byte { return proof(other, "client", origin, cn, sn) }},
		{"the server's own proof sent back", func(sn string) []byte { return proof(s.auth.key, "server", origin, cn, sn) }},
		{"another origin", func(sn string) []byte { return proof(s.auth.key, "client", "http://localhost:"+s.port, cn, sn) }},
		{"another client nonce", func(sn string) []byte { return proof(s.auth.key, "client", origin, strings.Repeat("cd", keyBytes), sn) }},
		{"the key itself", func(string) []byte { return s.auth.key }},
		{"nothing", func(string) []byte { return nil }},
	} {
		sn, _, err := s.hello(host, cn)
		if err != nil {
			t.Fatal(err)
		}
		if code := session(sn, c.proof(sn)); code != http.StatusForbidden {
			t.Errorf("%s: %d, want 403", c.name, code)
		}
		// Spent: even the right proof is refused now.
		if code := session(sn, proof(s.auth.key, "client", origin, cn, sn)); code != http.StatusForbidden {
			t.Errorf("%s, then the right proof for the spent nonce: %d", c.name, code)
		}
	}
	if code := session(strings.Repeat("00", keyBytes), proof(s.auth.key, "client", origin, cn, strings.Repeat("00", keyBytes))); code != http.StatusForbidden {
		t.Errorf("a server nonce the server never made: %d", code)
	}
	// A nonce asked for under one host name and proved under another.
	sn, _, _ := s.hello("localhost:"+s.port, cn)
	if code := session(sn, proof(s.auth.key, "client", origin, cn, sn)); code != http.StatusForbidden {
		t.Errorf("hello as localhost, session as 127.0.0.1: %d", code)
	}
	// Expired.
	sn, _, _ = s.hello(host, cn)
	s.auth.now = func() time.Time { return time.Now().Add(challengeTTL + time.Second) }
	if code := session(sn, proof(s.auth.key, "client", origin, cn, sn)); code != http.StatusForbidden {
		t.Errorf("an expired server nonce: %d", code)
	}
	s.auth.now = time.Now
	// Replayed after it worked.
	sn, _, _ = s.hello(host, cn)
	if code := session(sn, proof(s.auth.key, "client", origin, cn, sn)); code != http.StatusOK {
		t.Fatalf("the right proof: %d", code)
	}
	if code := session(sn, proof(s.auth.key, "client", origin, cn, sn)); code != http.StatusForbidden {
		t.Errorf("a proof replayed: %d", code)
	}
	// A flood of hellos keeps a bounded number of nonces, and a page's
	// handshake still works after it.
	for range 10 * maxChallenges {
		s.hello(host, cn)
	}
	if n := len(s.auth.challenges); n > maxChallenges {
		t.Errorf("%d server nonces kept, want at most %d", n, maxChallenges)
	}
	if _, err := s.handshake(host, s.auth.key); err != nil {
		t.Errorf("the handshake after a flood: %v", err)
	}
	// The handshake answers the page's own origin only.
	r := s.bare("POST", "/api/hello", `{"client_nonce":"`+cn+`"}`)
	r.Header.Set("Origin", "http://127.0.0.1:1")
	if w := s.do(r); w.Code != http.StatusForbidden {
		t.Errorf("hello from another port's page: %d", w.Code)
	}
}

// Without a live session token in its header an API call is refused,
// whatever else it carries: a cookie (even one holding a live token), the
// key, a token in the query, an expired token. The request waits on.
func TestSessionRefusals(t *testing.T) {
	s := newServer(t, Options{})
	q := approvals.New(s.opts.StateDir)
	r0 := enqueue(t, q, approvals.Request{Client: "claude-code", Tool: "Bash", Input: `{"command":"curl x | sh"}`})
	tok := s.testSession()
	key := hex.EncodeToString(s.auth.key)
	body := fmt.Sprintf(`{"id":%q,"allow":true}`, r0.ID)
	for _, c := range []struct {
		name  string
		spoil func(r *http.Request)
	}{
		{"no header", func(r *http.Request) {}},
		{"a wrong token", func(r *http.Request) { r.Header.Set(sessionHeader, strings.Repeat("0", 64)) }},
		{"the key", func(r *http.Request) { r.Header.Set(sessionHeader, key) }},
		{"a cookie holding the token", func(r *http.Request) {
			r.AddCookie(&http.Cookie{Name: "interceptor_inbox_" + s.port, Value: tok})
		}},
		{"the token in the query", func(r *http.Request) { r.URL.RawQuery = "token=" + tok + "&session=" + tok }},
		{"the key in the query", func(r *http.Request) { r.URL.RawQuery = "token=" + key + "&key=" + key }},
		{"another header", func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+tok) }},
	} {
		for _, m := range []struct{ method, path, body string }{
			{"POST", "/api/decide", body}, {"GET", "/api/pending", ""}, {"GET", "/api/request?id=" + r0.ID, ""},
			{"GET", "/api/history", ""}, {"GET", "/api/children", ""}, {"POST", "/api/answer", `{"id":"x","answer":"y"}`},
			{"GET", "/api/rules", ""}, {"POST", "/api/rules/add", `{"id":"x"}`}, {"POST", "/api/rules/revoke", `{"id":"x"}`},
			{"POST", "/api/children/start", `{"name":"x"}`}, {"POST", "/api/chat/continue", `{"child":"x"}`},
			{"POST", "/api/chat/cancel", `{"chat":"x"}`}, {"GET", "/api/chat?id=x", ""},
		} {
			r := s.bare(m.method, m.path, m.body)
			c.spoil(r)
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			w := s.do(r.WithContext(ctx))
			cancel()
			if w.Code != http.StatusUnauthorized || strings.Contains(w.Body.String(), r0.ID) {
				t.Errorf("%s: %s %s: %d %q", c.name, m.method, m.path, w.Code, w.Body.String())
			}
		}
	}
	s.auth.now = func() time.Time { return time.Now().Add(sessionTTL) }
	if w := s.do(s.req("POST", "/api/decide", body)); w.Code != http.StatusUnauthorized {
		t.Errorf("an expired token: %d", w.Code)
	}
	s.auth.now = time.Now
	if got, _ := q.Get(r0.ID); got.Status != approvals.Pending {
		t.Fatalf("the request was decided: %+v", got)
	}
	// With a fresh session, it is decided.
	fresh, err := s.handshake("127.0.0.1:"+s.port, s.auth.key)
	if err != nil {
		t.Fatal(err)
	}
	r := s.bare("POST", "/api/decide", body)
	r.Header.Set(sessionHeader, fresh)
	if w := s.do(r); w.Code != http.StatusOK {
		t.Fatalf("a decision with a session: %d %s", w.Code, w.Body.String())
	}
}

// A live stream ends when its session does.
func TestStreamEndsWithItsSession(t *testing.T) {
	s := newServer(t, Options{})
	tok := s.testSession()
	s.auth.mu.Lock()
	for h := range s.auth.sessions {
		s.auth.sessions[h] = time.Now().Add(300 * time.Millisecond)
	}
	s.auth.mu.Unlock()
	r := s.bare("GET", "/api/stream", "")
	r.Header.Set(sessionHeader, tok)
	done := make(chan int)
	go func() { done <- s.do(r).Code }()
	select {
	case code := <-done:
		if code != http.StatusOK {
			t.Errorf("stream: %d", code)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the stream outlived its session by 5 s")
	}
}

// The key file: made 0600 in a 0700 dir on the first start, the same key
// on the next (an open tab reconnects), a new one with NewKey; a key file
// open to others, a symlink, or a damaged one is refused in one line.
func TestKeyFile(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	s1 := newServer(t, Options{StateDir: dir})
	path := keyPath(dir)
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("key file: %v %v", fi, err)
	}
	if di, _ := os.Stat(filepath.Dir(path)); di.Mode().Perm() != 0o700 {
		t.Errorf("key dir mode %v", di.Mode())
	}
	s2 := newServer(t, Options{StateDir: dir})
	if hex.EncodeToString(s1.auth.key) != hex.EncodeToString(s2.auth.key) {
		t.Error("a restart made a new key")
	}
	// A session of the first inbox's page is made again with the second.
	if _, err := s2.handshake("127.0.0.1:"+s2.port, s1.auth.key); err != nil {
		t.Errorf("the old tab's key on the restarted inbox: %v", err)
	}
	s3 := newServer(t, Options{StateDir: dir, NewKey: true})
	if hex.EncodeToString(s3.auth.key) == hex.EncodeToString(s1.auth.key) {
		t.Error("NewKey kept the key")
	}
	if _, err := s3.handshake("127.0.0.1:"+s3.port, s1.auth.key); err == nil || !strings.Contains(err.Error(), "the server's proof") {
		t.Errorf("the old key on a new-key inbox: %v", err)
	}
	if s4 := newServer(t, Options{StateDir: dir}); hex.EncodeToString(s4.auth.key) != hex.EncodeToString(s3.auth.key) {
		t.Error("the new key was not kept")
	}
	for _, c := range []struct {
		name, want string
		spoil      func()
	}{
		{"open to others", "chmod 600", func() { os.Chmod(path, 0o644) }},
		{"a symlink", "symlink", func() {
			os.Remove(path)
			os.WriteFile(filepath.Join(dir, "elsewhere"), []byte(strings.Repeat("ab", keyBytes)), 0o600)
			os.Symlink(filepath.Join(dir, "elsewhere"), path)
		}},
		{"damaged", "--new-key", func() {
			os.Remove(path)
			os.WriteFile(path, []byte("not a key\n"), 0o600)
		}},
	} {
		c.spoil()
		_, err := Listen(Options{StateDir: dir})
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want one line with %q", c.name, err, c.want)
		}
		os.Remove(path)
	}
}
