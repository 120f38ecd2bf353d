package oauth

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// Issue 33 item 2: a 401 with a Bearer challenge leads to the whole flow:
// the PRM its resource_metadata names, the AS metadata, a registration,
// the browser sent to the authorization endpoint with PKCE (S256), the
// resource indicator and the challenge's scope, the code exchanged with
// the verifier and the same resource; the token is sent from then on and
// kept in a private file, with no secret in it beyond the record's own.
func TestLoginOnFirst401(t *testing.T) {
	s := newFakeAS(t)
	s.scopes = "mcp:read"
	s.authMethods = []string{"none"}
	c := s.client(t, nil)
	if got := call(t, c, s.url()); got != 200 {
		t.Fatalf("status %d after authorizing", got)
	}
	s.mu.Lock()
	if len(s.authorized) != 1 || len(s.tokenReqs) != 1 || len(s.registered) != 1 {
		t.Fatalf("%d authorizations, %d token requests, %d registrations; want 1 each", len(s.authorized), len(s.tokenReqs), len(s.registered))
	}
	a, tr := s.authorized[0], s.tokenReqs[0]
	s.mu.Unlock()
	if a.Get("code_challenge_method") != "S256" || a.Get("code_challenge") == "" {
		t.Errorf("authorization without PKCE S256: %v", a)
	}
	if a.Get("resource") != s.url() || tr.Get("resource") != s.url() {
		t.Errorf("resource %q (authorization), %q (token); want %s in both", a.Get("resource"), tr.Get("resource"), s.url())
	}
	if a.Get("scope") != "mcp:read" {
		t.Errorf("scope %q, want the challenge's mcp:read", a.Get("scope"))
	}
	if !strings.HasPrefix(a.Get("redirect_uri"), "http://localhost:") {
		t.Errorf("redirect_uri %q", a.Get("redirect_uri"))
	}
	if tr.Get("client_secret") != "" || tr.Get("basic") != "" || tr.Get("client_id") == "" {
		t.Errorf("a public client (none) sent %v", tr)
	}
	path := c.Store().Path(c.Server())
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file %s: %v %v", path, fi.Mode(), err)
	}
	if di, _ := os.Stat(filepath.Dir(path)); di.Mode().Perm() != 0o700 {
		t.Fatalf("oauth dir mode %v", di.Mode())
	}
	// A second client of the same server (another relay) uses the kept
	// token: no browser.
	c2 := s.client(t, func(cfg *Config) { cfg.StateDir = c.store.StateDir; cfg.OpenBrowser = nil })
	if got := call(t, c2, s.url()); got != 200 {
		t.Fatalf("second relay: status %d", got)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.authorized) != 1 {
		t.Fatalf("the second relay authorized again")
	}
}

// The token endpoint's auth method follows what the server supports and
// what the registration gave: basic, post, none; a pre-registered client
// uses its id and the secret it was given, which is never written down.
func TestTokenEndpointAuthMethods(t *testing.T) {
	for _, c := range []struct {
		name    string
		methods []string
		pre     bool
		want    string // "basic", "post" or "none"
	}{
		{"basic", []string{"client_secret_basic"}, false, "basic"},
		{"post", []string{"client_secret_post"}, false, "post"},
		{"none", []string{"none"}, false, "none"},
		{"default is basic", nil, false, "basic"},
		{"pre-registered", []string{"client_secret_basic"}, true, "basic"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := newFakeAS(t)
			s.authMethods = c.methods
			mod := func(*Config) {}
			if c.pre {
				s.noDCR = true
				mod = func(cfg *Config) { cfg.ClientID, cfg.ClientSecret = "pre-id", "pre-s3cret" }
			}
			cl := s.client(t, mod)
			if got := call(t, cl, s.url()); got != 200 {
				t.Fatalf("status %d", got)
			}
			s.mu.Lock()
			tr := s.tokenReqs[0]
			s.mu.Unlock()
			var got string
			switch {
			case tr.Get("basic") != "":
				got = "basic"
			case tr.Get("client_secret") != "":
				got = "post"
			default:
				got = "none"
			}
			if got != c.want {
				t.Fatalf("client authenticated by %s, want %s (%v)", got, c.want, tr)
			}
			if c.pre && tr.Get("basic") != "pre-id:pre-s3cret" {
				t.Fatalf("pre-registered credentials %q", tr.Get("basic"))
			}
			data, _ := os.ReadFile(cl.Store().Path(cl.Server()))
			if c.pre && strings.Contains(string(data), "pre-s3cret") {
				t.Fatalf("the pre-registered client's secret was written to the token file")
			}
		})
	}
}

// A server without dynamic registration and no --client-id: the error
// says what to give.
func TestNoRegistrationNoClient(t *testing.T) {
	s := newFakeAS(t)
	s.noDCR = true
	c := s.client(t, nil)
	_, err := c.Challenged(t.Context(), 401, challengeHeader(s), "")
	if err == nil || !strings.Contains(err.Error(), "--client-id") {
		t.Fatalf("err %v", err)
	}
}

func challengeHeader(s *fakeAS) http.Header {
	h := http.Header{}
	h.Set("WWW-Authenticate", `Bearer resource_metadata="`+s.ts.URL+`/.well-known/oauth-protected-resource/mcp"`)
	return h
}

// An expired token is refreshed before it is sent: the refresh grant with
// the resource indicator (and no code), the rotated refresh token kept.
// A refresh token the server refuses is dropped, and the next 401
// authorizes anew.
func TestRefresh(t *testing.T) {
	s := newFakeAS(t)
	s.authMethods = []string{"client_secret_post"}
	now := time.Now()
	c := s.client(t, func(cfg *Config) { cfg.Now = func() time.Time { return now } })
	if got := call(t, c, s.url()); got != 200 {
		t.Fatalf("status %d", got)
	}
	first, _ := c.Status()
	now = now.Add(2 * time.Hour)
	if got := call(t, c, s.url()); got != 200 {
		t.Fatalf("status %d after expiry", got)
	}
	s.mu.Lock()
	if len(s.tokenReqs) != 2 || len(s.authorized) != 1 {
		t.Fatalf("%d token requests, %d authorizations; want a refresh, no new authorization", len(s.tokenReqs), len(s.authorized))
	}
	rf := s.tokenReqs[1]
	s.mu.Unlock()
	if rf.Get("grant_type") != "refresh_token" || rf.Get("refresh_token") != first.RefreshToken || rf.Get("resource") != s.url() || rf.Get("code") != "" || rf.Get("client_secret") == "" {
		t.Fatalf("refresh request %v", rf)
	}
	second, _ := c.Status()
	if second.RefreshToken == first.RefreshToken || second.AccessToken == first.AccessToken || second.Scope != "rotated" {
		t.Fatalf("after the refresh: %+v", second)
	}
	// The server forgets every refresh token: the next expiry's refresh
	// fails, the request goes without, and its 401 authorizes anew.
	s.mu.Lock()
	s.refresh = map[string]bool{}
	s.mu.Unlock()
	now = now.Add(2 * time.Hour)
	if got := call(t, c, s.url()); got != 200 {
		t.Fatalf("status %d", got)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.authorized) != 2 {
		t.Fatalf("%d authorizations; want a second one after the refused refresh", len(s.authorized))
	}
}

// Step-up: a 403 insufficient_scope authorizes again for the scopes the
// server names, with those granted. A scope the server asks for and the
// authorization server will not grant is asked for once: later requests
// get the 403, not another trip to the browser.
func TestStepUp(t *testing.T) {
	s := newFakeAS(t)
	s.scopes, s.required = "mcp:basic", "mcp:write"
	c := s.client(t, nil)
	if got := call(t, c, s.url()); got != 200 {
		t.Fatalf("status %d", got)
	}
	s.mu.Lock()
	if len(s.authorized) != 2 || s.authorized[0].Get("scope") != "mcp:basic" || s.authorized[1].Get("scope") != "mcp:basic mcp:write" {
		t.Fatalf("authorizations %v; want mcp:basic, then mcp:basic mcp:write", s.authorized)
	}
	s.required, s.ungranted = "mcp:admin", "mcp:admin"
	s.mu.Unlock()
	for range 3 {
		if got := call(t, c, s.url()); got != 403 {
			t.Fatalf("status %d, want the 403", got)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.authorized) != 3 || s.authorized[2].Get("scope") != "mcp:basic mcp:write mcp:admin" {
		t.Fatalf("%d authorizations (%v); want one more, for mcp:admin with the granted scopes", len(s.authorized), s.authorized)
	}
}

// A 403 whose scopes are already granted is not retried.
func TestForbiddenWithGrantedScopeIsFinal(t *testing.T) {
	s := newFakeAS(t)
	c := s.client(t, nil)
	call(t, c, s.url())
	rec, _ := c.Status()
	h := http.Header{}
	h.Set("WWW-Authenticate", `Bearer error="insufficient_scope", scope="`+rec.Scope+`"`)
	retry, err := c.Challenged(t.Context(), 403, h, "Bearer "+rec.AccessToken)
	if retry || err != nil {
		t.Fatalf("retry %v err %v", retry, err)
	}
	h.Set("WWW-Authenticate", `Bearer error="invalid_request"`)
	if retry, err := c.Challenged(t.Context(), 403, h, "Bearer "+rec.AccessToken); retry || err != nil {
		t.Fatalf("a 403 for another reason: retry %v err %v", retry, err)
	}
}

// A server that refuses the token it just authorized is not sent to the
// browser again at once.
func TestFreshTokenRefused(t *testing.T) {
	s := newFakeAS(t)
	c := s.client(t, nil)
	if got := call(t, c, s.url()); got != 200 {
		t.Fatalf("status %d", got)
	}
	rec, _ := c.Status()
	rec.RefreshToken = ""
	c.store.Save(rec)
	_, err := c.Challenged(t.Context(), 401, challengeHeader(s), "Bearer "+rec.AccessToken)
	if err == nil || !strings.Contains(err.Error(), "just authorized") {
		t.Fatalf("err %v", err)
	}
}

// Metadata the relay must not act on is refused before any browser opens.
func TestRefusedMetadata(t *testing.T) {
	for _, c := range []struct {
		name string
		mod  func(*fakeAS)
		want string
	}{
		{"PRM for another resource", func(s *fakeAS) { s.prmResource = "https://evil.example.com/mcp" }, "not for"},
		{"issuer mismatch", func(s *fakeAS) { s.issuer = "https://evil.example.com" }, "RFC 8414"},
		{"no PKCE", func(s *fakeAS) { s.noPKCE = true }, "PKCE"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := newFakeAS(t)
			c.mod(s)
			cl := s.client(t, func(cfg *Config) {
				cfg.OpenBrowser = func(string) error { t.Error("a browser was opened"); return nil }
			})
			_, err := cl.Challenged(t.Context(), 401, challengeHeader(s), "")
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err %v, want %q", err, c.want)
			}
		})
	}
}

// An authorization endpoint the browser must not be sent to (another
// scheme, plain HTTP beyond loopback) is refused.
func TestCheckEndpoint(t *testing.T) {
	for raw, ok := range map[string]bool{
		"https://as.example.com/authorize": true,
		"http://127.0.0.1:9/authorize":     true,
		"http://localhost:9/a":             true,
		"http://[::1]:9/a":                 true,
		"http://as.example.com/authorize":  false,
		"javascript:alert(1)":              false,
		"file:///etc/passwd":               false,
		"/relative":                        false,
	} {
		if err := checkEndpoint(raw); (err == nil) != ok {
			t.Errorf("%s: err %v, want ok=%v", raw, err, ok)
		}
	}
}

// The redirect listener answers only the browser that carries the state:
// another user's request to its port is refused and the wait goes on.
func TestCallbackState(t *testing.T) {
	cb, err := listenCallback(0, "st4te")
	if err != nil {
		t.Fatal(err)
	}
	defer cb.close()
	base := strings.Replace(cb.redirect, "localhost", "127.0.0.1", 1)
	resp, err := http.Get(base + "?code=evil&state=guess")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 400 {
		t.Fatalf("a wrong state got %d", resp.StatusCode)
	}
	go http.Get(base + "?code=good&state=st4te&iss=x")
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	code, iss, err := cb.wait(ctx)
	if code != "good" || iss != "x" || err != nil {
		t.Fatalf("code %q iss %q err %v", code, iss, err)
	}
}

func TestCanonical(t *testing.T) {
	for in, want := range map[string]string{
		"HTTPS://Host.Example:443/mcp/": "https://host.example/mcp",
		"http://h:80/mcp#frag":          "http://h/mcp",
		"http://h:8080/a?x=1":           "http://h:8080/a?x=1",
		"http://[::1]:9/mcp":            "http://[::1]:9/mcp",
		"http://[::1]/mcp":              "http://[::1]/mcp",
	} {
		if got, err := Canonical(in); got != want || err != nil {
			t.Errorf("%s: %q %v, want %q", in, got, err, want)
		}
	}
	if _, err := Canonical("ftp://h/x"); err == nil {
		t.Error("ftp accepted")
	}
}

// A token file open to others is refused, not read.
func TestStoreRefusesAnOpenFile(t *testing.T) {
	s := newFakeAS(t)
	c := s.client(t, nil)
	call(t, c, s.url())
	path := c.Store().Path(c.Server())
	os.Chmod(path, 0o644)
	if _, err := c.Status(); err == nil || !strings.Contains(err.Error(), "open to group or others") {
		t.Fatalf("err %v", err)
	}
}

// A pinned scope (--scope, Claude Code's oauth.scopes) is asked for
// instead of the challenge's.
func TestPinnedScope(t *testing.T) {
	s := newFakeAS(t)
	s.scopes = "mcp:read"
	c := s.client(t, func(cfg *Config) { cfg.Scope = "files:read files:write" })
	if got := call(t, c, s.url()); got != 200 {
		t.Fatalf("status %d", got)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if got := s.authorized[0].Get("scope"); got != "files:read files:write" {
		t.Fatalf("scope %q", got)
	}
}

// Requests that meet the 401 at once (a client's first calls) share one
// authorization: one browser, one registration.
func TestConcurrent401sShareOneLogin(t *testing.T) {
	s := newFakeAS(t)
	c := s.client(t, nil)
	var wg sync.WaitGroup
	for range 5 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if got := call(t, c, s.url()); got != 200 {
				t.Errorf("status %d", got)
			}
		}()
	}
	wg.Wait()
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.authorized) != 1 || len(s.registered) != 1 {
		t.Fatalf("%d authorizations, %d registrations; want 1 each", len(s.authorized), len(s.registered))
	}
}
