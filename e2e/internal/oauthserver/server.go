// Package oauthserver is an OAuth-protected MCP endpoint for the
// end-to-end tests: an OAuth 2.1 authorization server (protected resource
// metadata, RFC 8414 metadata, dynamic client registration, an
// authorization endpoint that approves at once, a token endpoint with
// PKCE S256, resource indicators and refresh-token rotation) in front of
// an MCP handler, which it serves at /mcp only to a bearer token it
// issued. It listens on loopback, and records what clients did.
package oauthserver

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// Options configure a Server.
type Options struct {
	MCP http.Handler // the protected endpoint, served at /mcp
	// Clients are pre-registered public clients: id -> their redirect URI.
	Clients map[string]string
	Scope   string        // what the 401 names, and tokens are granted
	TTL     time.Duration // access tokens' lifetime (0: an hour)
}

// Event is one thing a client did at the server.
type Event struct {
	Kind   string `json:"kind"` // register, authorize, token, refresh, refused
	Client string `json:"client,omitempty"`
	Detail string `json:"detail,omitempty"`
}

// Server is a running OAuth-protected MCP endpoint.
type Server struct {
	URL string // its base: the endpoint is URL+"/mcp"

	o   Options
	srv *http.Server

	mu      sync.Mutex
	clients map[string]string // id -> redirect URI
	codes   map[string]grant  // authorization code -> what it grants
	access  map[string]time.Time
	refresh map[string]string // refresh token -> client
	events  []Event
}

type grant struct {
	client, redirect, challenge, resource string
}

// Start listens on 127.0.0.1 and serves.
func Start(o Options) (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	if o.TTL <= 0 {
		o.TTL = time.Hour
	}
	s := &Server{URL: "http://" + ln.Addr().String(), o: o, clients: map[string]string{}, codes: map[string]grant{},
		access: map[string]time.Time{}, refresh: map[string]string{}}
	for id, redirect := range o.Clients {
		s.clients[id] = redirect
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/oauth-protected-resource/mcp", s.resourceMeta)
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", s.authMeta)
	mux.HandleFunc("POST /register", s.register)
	mux.HandleFunc("GET /authorize", s.authorize)
	mux.HandleFunc("POST /token", s.token)
	mux.HandleFunc("/mcp", s.protected)
	s.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go s.srv.Serve(ln)
	return s, nil
}

// Close stops the server.
func (s *Server) Close() error { return s.srv.Close() }

// Endpoint is the MCP endpoint's URL.
func (s *Server) Endpoint() string { return s.URL + "/mcp" }

// Events are what clients did, in order.
func (s *Server) Events() []Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Event(nil), s.events...)
}

// Tokens are every access and refresh token issued: none may reach a model.
func (s *Server) Tokens() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for t := range s.access {
		out = append(out, t)
	}
	for t := range s.refresh {
		out = append(out, t)
	}
	return out
}

func (s *Server) event(kind, client, format string, a ...any) {
	s.events = append(s.events, Event{Kind: kind, Client: client, Detail: fmt.Sprintf(format, a...)})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func oauthError(w http.ResponseWriter, status int, code, desc string) {
	writeJSON(w, status, map[string]string{"error": code, "error_description": desc})
}

func (s *Server) resourceMeta(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, 200, map[string]any{"resource": s.Endpoint(), "authorization_servers": []string{s.URL},
		"scopes_supported": strings.Fields(s.o.Scope)})
}

func (s *Server) authMeta(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, 200, map[string]any{
		"issuer": s.URL, "authorization_endpoint": s.URL + "/authorize", "token_endpoint": s.URL + "/token",
		"registration_endpoint": s.URL + "/register", "response_types_supported": []string{"code"},
		"grant_types_supported":                 []string{"authorization_code", "refresh_token"},
		"code_challenge_methods_supported":      []string{"S256"},
		"token_endpoint_auth_methods_supported": []string{"none"},
		"scopes_supported":                      strings.Fields(s.o.Scope),
	})
}

func (s *Server) register(w http.ResponseWriter, r *http.Request) {
	var req struct {
		RedirectURIs []string `json:"redirect_uris"`
		Method       string   `json:"token_endpoint_auth_method"`
	}
	if json.NewDecoder(r.Body).Decode(&req) != nil || len(req.RedirectURIs) != 1 || !loopbackRedirect(req.RedirectURIs[0]) {
		oauthError(w, 400, "invalid_redirect_uri", "one loopback redirect URI")
		return
	}
	id := "dyn-" + rand.Text()[:8]
	s.mu.Lock()
	s.clients[id] = req.RedirectURIs[0]
	s.event("register", id, "%s", req.RedirectURIs[0])
	s.mu.Unlock()
	writeJSON(w, 201, map[string]any{"client_id": id, "redirect_uris": req.RedirectURIs, "token_endpoint_auth_method": "none"})
}

func loopbackRedirect(u string) bool {
	p, err := url.Parse(u)
	return err == nil && p.Scheme == "http" && (p.Hostname() == "localhost" || p.Hostname() == "127.0.0.1")
}

// authorize approves at once, as a user who clicks Allow: the browser is
// sent back to the client's redirect URI with a code.
func (s *Server) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	client, redirect := q.Get("client_id"), q.Get("redirect_uri")
	s.mu.Lock()
	defer s.mu.Unlock()
	want, known := s.clients[client]
	switch {
	case !known:
		http.Error(w, "unknown client", 400)
	case redirect != want:
		http.Error(w, "redirect_uri "+redirect+" is not the client's "+want, 400)
	case q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "":
		http.Error(w, "PKCE S256 required", 400)
	case q.Get("resource") != s.Endpoint():
		http.Error(w, "resource must be "+s.Endpoint(), 400)
	default:
		code := rand.Text()
		s.codes[code] = grant{client: client, redirect: redirect, challenge: q.Get("code_challenge"), resource: q.Get("resource")}
		s.event("authorize", client, "scope=%q", q.Get("scope"))
		back, _ := url.Parse(redirect)
		v := url.Values{"code": {code}, "state": {q.Get("state")}}
		back.RawQuery = v.Encode()
		http.Redirect(w, r, back.String(), http.StatusFound)
	}
}

func (s *Server) token(w http.ResponseWriter, r *http.Request) {
	r.ParseForm()
	f := r.PostForm
	s.mu.Lock()
	defer s.mu.Unlock()
	if f.Get("resource") != s.Endpoint() {
		oauthError(w, 400, "invalid_target", "resource must be "+s.Endpoint())
		return
	}
	var client string
	switch f.Get("grant_type") {
	case "authorization_code":
		g, ok := s.codes[f.Get("code")]
		delete(s.codes, f.Get("code")) // one use
		sum := sha256.Sum256([]byte(f.Get("code_verifier")))
		if !ok || g.client != f.Get("client_id") || g.redirect != f.Get("redirect_uri") ||
			base64.RawURLEncoding.EncodeToString(sum[:]) != g.challenge {
			oauthError(w, 400, "invalid_grant", "bad code, client, redirect_uri or code_verifier")
			return
		}
		client = g.client
		s.event("token", client, "authorization_code")
	case "refresh_token":
		var ok bool
		if client, ok = s.refresh[f.Get("refresh_token")]; !ok {
			oauthError(w, 400, "invalid_grant", "unknown refresh token")
			return
		}
		delete(s.refresh, f.Get("refresh_token")) // rotation
		s.event("refresh", client, "")
	default:
		oauthError(w, 400, "unsupported_grant_type", f.Get("grant_type"))
		return
	}
	access, refresh := "at-"+rand.Text(), "rt-"+rand.Text()
	s.access[access] = time.Now().Add(s.o.TTL)
	s.refresh[refresh] = client
	writeJSON(w, 200, map[string]any{"access_token": access, "token_type": "Bearer", "expires_in": int(s.o.TTL.Seconds()),
		"refresh_token": refresh, "scope": s.o.Scope})
}

// protected serves the MCP endpoint to a live token it issued, and answers
// anything else 401 with the challenge a client discovers the rest from.
func (s *Server) protected(w http.ResponseWriter, r *http.Request) {
	tok, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	s.mu.Lock()
	exp, ok := s.access[tok]
	live := ok && time.Now().Before(exp)
	if !live {
		s.event("refused", "", "%s %s (token held: %t)", r.Method, r.URL.Path, ok)
	}
	s.mu.Unlock()
	if !live {
		w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer resource_metadata="%s/.well-known/oauth-protected-resource/mcp", scope=%q`, s.URL, s.o.Scope))
		oauthError(w, 401, "invalid_token", "a token from this server is required")
		return
	}
	s.o.MCP.ServeHTTP(w, r)
}
