package oauth

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeAS is an authorization server and an MCP server it protects, in one
// httptest server (the AS under /as, the MCP endpoint at /mcp), that
// checks what a client must do and records what it did. Authorization
// approves at once: the test's browser follows its redirect.
type fakeAS struct {
	t  *testing.T
	ts *httptest.Server

	// What it offers.
	authMethods []string // token_endpoint_auth_methods_supported (nil: none listed)
	noDCR       bool
	noPKCE      bool
	issuer      string // the issuer its metadata claims ("": its own)
	prmResource string // the resource its PRM claims ("": the endpoint)
	scopes      string // the scope its 401 challenge names
	required    string // the scope tools/call needs (403 insufficient_scope)
	expiresIn   int    // seconds (0: 3600)
	ungranted   string // a scope it never grants, though asked
	preClient   [2]string

	mu         sync.Mutex
	challenge  string            // the last code_challenge
	registered map[string]string // client_id -> secret
	authorized []url.Values      // each authorization request's query
	tokenReqs  []url.Values      // each token request's form, with "basic" set to the Basic user
	issued     map[string]string // access token -> scope
	refresh    map[string]bool   // live refresh tokens
	n          int
}

func newFakeAS(t *testing.T) *fakeAS {
	s := &fakeAS{t: t, registered: map[string]string{}, issued: map[string]string{}, refresh: map[string]bool{}}
	s.ts = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.ts.Close)
	return s
}

func (s *fakeAS) url() string { return s.ts.URL + "/mcp" }

func (s *fakeAS) serve(w http.ResponseWriter, r *http.Request) {
	base := s.ts.URL
	s.mu.Lock()
	defer s.mu.Unlock()
	switch r.URL.Path {
	case "/.well-known/oauth-protected-resource/mcp":
		res := s.prmResource
		if res == "" {
			res = base + "/mcp"
		}
		json.NewEncoder(w).Encode(map[string]any{"resource": res, "authorization_servers": []string{base + "/as"}})
	case "/.well-known/oauth-authorization-server/as":
		iss := s.issuer
		if iss == "" {
			iss = base + "/as"
		}
		m := map[string]any{"issuer": iss, "authorization_endpoint": base + "/as/authorize", "token_endpoint": base + "/as/token"}
		if !s.noDCR {
			m["registration_endpoint"] = base + "/as/register"
		}
		if !s.noPKCE {
			m["code_challenge_methods_supported"] = []string{"S256"}
		}
		if s.authMethods != nil {
			m["token_endpoint_auth_methods_supported"] = s.authMethods
		}
		json.NewEncoder(w).Encode(m)
	case "/as/register":
		var req map[string]any
		json.NewDecoder(r.Body).Decode(&req)
		s.n++
		id, secret := fmt.Sprintf("client-%d", s.n), ""
		method, _ := req["token_endpoint_auth_method"].(string)
		if method != "none" {
			secret = fmt.Sprintf("secret-%d", s.n)
		}
		s.registered[id] = secret
		w.WriteHeader(http.StatusCreated)
		json.NewEncoder(w).Encode(map[string]any{"client_id": id, "client_secret": secret, "token_endpoint_auth_method": method})
	case "/as/authorize":
		q := r.URL.Query()
		s.authorized = append(s.authorized, q)
		s.challenge = q.Get("code_challenge")
		to, _ := url.Parse(q.Get("redirect_uri"))
		back := to.Query()
		back.Set("code", "code-"+q.Get("scope"))
		back.Set("state", q.Get("state"))
		to.RawQuery = back.Encode()
		http.Redirect(w, r, to.String(), http.StatusFound)
	case "/as/token":
		r.ParseForm()
		f := r.PostForm
		if u, p, ok := r.BasicAuth(); ok {
			f.Set("basic", u+":"+p)
		}
		s.tokenReqs = append(s.tokenReqs, f)
		scope := ""
		switch f.Get("grant_type") {
		case "authorization_code":
			sum := sha256.Sum256([]byte(f.Get("code_verifier")))
			if base64.RawURLEncoding.EncodeToString(sum[:]) != s.challenge {
				http.Error(w, `{"error":"invalid_grant"}`, http.StatusBadRequest)
				return
			}
			scope = strings.TrimPrefix(f.Get("code"), "code-")
			if s.ungranted != "" {
				scope = strings.Join(slices.DeleteFunc(strings.Fields(scope), func(x string) bool { return x == s.ungranted }), " ")
			}
		case "refresh_token":
			if !s.refresh[f.Get("refresh_token")] {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusBadRequest)
				io.WriteString(w, `{"error":"invalid_grant"}`)
				return
			}
			delete(s.refresh, f.Get("refresh_token")) // rotation
			scope = "rotated"
		}
		s.n++
		access, refresh := fmt.Sprintf("at-%d", s.n), fmt.Sprintf("rt-%d", s.n)
		s.issued[access], s.refresh[refresh] = scope, true
		exp := s.expiresIn
		if exp == 0 {
			exp = 3600
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"access_token": access, "token_type": "Bearer", "expires_in": exp, "refresh_token": refresh, "scope": scope})
	case "/mcp":
		tok := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		scope, ok := s.issued[tok]
		meta := base + "/.well-known/oauth-protected-resource/mcp"
		if !ok {
			w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer resource_metadata=%q, scope=%q`, meta, s.scopes))
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		if s.required != "" && !strings.Contains(" "+scope+" ", " "+s.required+" ") {
			w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer error="insufficient_scope", scope=%q, resource_metadata=%q`, s.required, meta))
			w.WriteHeader(http.StatusForbidden)
			return
		}
		io.WriteString(w, "ok")
	default:
		http.NotFound(w, r)
	}
}

// browser follows the authorization URL's redirects, as a browser whose
// user allows would. (A failure shows as the login's timeout: the
// goroutine may outlive the test.)
func browser(*testing.T) func(string) error {
	return func(u string) error {
		go func() {
			if resp, err := http.Get(u); err == nil {
				resp.Body.Close()
			}
		}()
		return nil
	}
}

// newClient is a Client of s's endpoint with a fresh state dir.
func (s *fakeAS) client(t *testing.T, mod func(*Config)) *Client {
	cfg := Config{Server: s.url(), StateDir: t.TempDir() + "/state", OpenBrowser: browser(t), LoginTimeout: 10 * time.Second,
		Logf: func(f string, a ...any) { t.Logf(f, a...) }}
	if mod != nil {
		mod(&cfg)
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// call sends one request to the MCP endpoint as the relay does: the
// token, and on a 401 or 403 Challenged, once or twice.
func call(t *testing.T, c *Client, server string) (status int) {
	t.Helper()
	ctx := t.Context()
	for try := 0; ; try++ {
		auth, err := c.Authorization(ctx)
		if err != nil {
			t.Fatal(err)
		}
		req, _ := http.NewRequest(http.MethodPost, server, strings.NewReader("{}"))
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode < 400 || try == 2 {
			return resp.StatusCode
		}
		retry, err := c.Challenged(ctx, resp.StatusCode, resp.Header, auth)
		if err != nil {
			t.Fatalf("Challenged: %v", err)
		}
		if !retry {
			return resp.StatusCode
		}
	}
}
