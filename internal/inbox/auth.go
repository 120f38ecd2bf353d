package inbox

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// The page decides tool calls: whoever can use it runs code as the user.
// It is guarded as a local admin page, against the nearest attacker:
// another user of this machine, who can serve pages on other ports of
// 127.0.0.1 and get the person's browser to load them. Cookies ignore
// ports, so a cookie would reach such a page; nothing here is a cookie.
//
//   - The page's key K (key.go) reaches the browser in the printed URL's
//     fragment, which no browser sends to any server. The page's script
//     keeps it in sessionStorage (per origin, so per port, and per tab) and
//     takes it out of the address bar.
//   - The page and its static files carry no secret. Every other API call
//     carries a session token in a header (sessionHeader) that only the
//     page's own script adds, got by a mutual proof of K that never sends
//     K: the page sends a client nonce (POST /api/hello); the server
//     answers a server nonce and HMAC(K, "server", origin, both nonces);
//     the page checks that proof BEFORE it proves anything, so a server
//     squatting the port while the inbox is down learns nothing; then it
//     sends HMAC(K, "client", ...) (POST /api/session) for a token that
//     lives sessionTTL in the page's memory. A server nonce is good once
//     and for challengeTTL.
//   - Every request's Host must name this listener by IP or as localhost:
//     a DNS rebinding attack reaches 127.0.0.1 under its own host name, and
//     is refused before anything else; a POST needs the page's own Origin;
//     the API refuses a Sec-Fetch-Site other than same-origin (or none).
//   - A Content-Security-Policy allows only the page's own files, no
//     frames.

// sessionHeader carries the session token of every API call.
const sessionHeader = "X-Inbox-Session"

const (
	// sessionTTL is how long a session token is good for; the page proves
	// K again for a new one before then, and a live stream ends with its
	// token.
	sessionTTL = 10 * time.Minute
	// challengeTTL is how long a server nonce waits for its proof.
	challengeTTL = 30 * time.Second
	// maxChallenges and maxSessions bound what the handshake keeps: the
	// oldest goes first.
	maxChallenges = 64
	maxSessions   = 32
)

func randomHex() (string, error) {
	b := make([]byte, keyBytes)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("making a nonce: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// isNonce accepts what randomHex makes: 64 lower-case hex digits.
func isNonce(s string) bool {
	if len(s) != 2*keyBytes {
		return false
	}
	for _, c := range s {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// proof is HMAC-SHA256(K, ...) of one side of the handshake: role
// ("server" or "client") keeps one side's proof from serving as the
// other's, origin binds it to this listener.
func proof(key []byte, role, origin, clientNonce, serverNonce string) []byte {
	h := hmac.New(sha256.New, key)
	fmt.Fprintf(h, "interceptor inbox v1 %s\n%s\n%s\n%s", role, origin, clientNonce, serverNonce)
	return h.Sum(nil)
}

// authState is the key and what the handshake keeps in memory.
type authState struct {
	key        []byte
	now        func() time.Time
	mu         sync.Mutex
	challenges map[string]challenge   // by server nonce
	sessions   map[[32]byte]time.Time // by the token's SHA-256: its expiry
}

type challenge struct {
	client, origin string
	expires        time.Time
}

func newAuth(key []byte) *authState {
	return &authState{key: key, now: time.Now, challenges: map[string]challenge{}, sessions: map[[32]byte]time.Time{}}
}

// hello answers a client nonce with a server nonce and the server's proof.
func (a *authState) hello(origin, clientNonce string) (serverNonce, serverProof string, err error) {
	if serverNonce, err = randomHex(); err != nil {
		return "", "", err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	now := a.now()
	evict(a.challenges, maxChallenges, func(c challenge) time.Time { return c.expires }, now)
	a.challenges[serverNonce] = challenge{client: clientNonce, origin: origin, expires: now.Add(challengeTTL)}
	return serverNonce, hex.EncodeToString(proof(a.key, "server", origin, clientNonce, serverNonce)), nil
}

// Why a handshake is refused, for the page's one line.
var (
	errNoChallenge = errors.New("unknown or expired server nonce: start again (reload the page)")
	errWrongProof  = errors.New("wrong proof: this tab's key is not this inbox's; open the URL interceptor inbox printed")
)

// session checks the client's proof for a server nonce (good once,
// whatever the outcome) and makes a session token.
func (a *authState) session(origin, serverNonce, clientProof string) (token string, ttl time.Duration, err error) {
	a.mu.Lock()
	c, ok := a.challenges[serverNonce]
	delete(a.challenges, serverNonce)
	a.mu.Unlock()
	now := a.now()
	if !ok || !now.Before(c.expires) || c.origin != origin {
		return "", 0, errNoChallenge
	}
	got, err := hex.DecodeString(clientProof)
	if err != nil || !hmac.Equal(got, proof(a.key, "client", origin, c.client, serverNonce)) {
		return "", 0, errWrongProof
	}
	if token, err = randomHex(); err != nil {
		return "", 0, err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	evict(a.sessions, maxSessions, func(t time.Time) time.Time { return t }, now)
	a.sessions[sha256.Sum256([]byte(token))] = now.Add(sessionTTL)
	return token, sessionTTL, nil
}

// valid reports whether token is a live session, and until when.
func (a *authState) valid(token string) (time.Time, bool) {
	if token == "" {
		return time.Time{}, false
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	h := sha256.Sum256([]byte(token))
	exp, ok := a.sessions[h]
	if ok && !a.now().Before(exp) {
		delete(a.sessions, h)
		ok = false
	}
	return exp, ok
}

// evict drops m's expired entries, then the oldest until m has room for
// one more under max.
func evict[K comparable, V any](m map[K]V, max int, expiry func(V) time.Time, now time.Time) {
	for k, v := range m {
		if !now.Before(expiry(v)) {
			delete(m, k)
		}
	}
	for len(m) >= max {
		var oldest K
		first := true
		for k, v := range m {
			if first || expiry(v).Before(expiry(m[oldest])) {
				oldest, first = k, false
			}
		}
		delete(m, oldest)
	}
}

// ErrNotLoopback refuses a listen address beyond loopback without
// Options.AllowRemote.
var ErrNotLoopback = errors.New("not a loopback address")

// checkListen accepts a loopback host (127.0.0.0/8, ::1, localhost), and
// any other only with allowRemote. It reports whether the host is
// loopback.
func checkListen(addr string, allowRemote bool) (loopback bool, err error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false, fmt.Errorf("--listen %q: want HOST:PORT (e.g. 127.0.0.1:8765): %v", addr, err)
	}
	if strings.EqualFold(host, "localhost") {
		return true, nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return true, nil
	}
	if allowRemote {
		return false, nil
	}
	what := host
	if host == "" {
		what = "every interface"
	}
	return false, fmt.Errorf("--listen %q: %s is %w: the page decides tool calls, so it listens on loopback only (127.0.0.1, ::1, localhost) unless --allow-remote says otherwise", addr, what, ErrNotLoopback)
}

// hostOK reports whether a request's Host names this listener: localhost
// or an IP literal (never another name: that is how DNS rebinding comes
// in), a loopback one when the listener is loopback, and the listener's
// port.
func (s *Server) hostOK(host string) bool {
	h, p, err := net.SplitHostPort(host)
	if err != nil {
		// No port: the scheme's default, 80.
		h, p = strings.Trim(host, "[]"), "80"
	}
	if p != s.port {
		return false
	}
	if strings.EqualFold(h, "localhost") {
		return true
	}
	ip := net.ParseIP(h)
	if ip == nil {
		return false
	}
	return !s.loopback || ip.IsLoopback()
}

// originOK: a POST must carry Origin, and any Origin must be the page's
// own (http://<its Host>).
func originOK(r *http.Request) bool {
	o := r.Header.Get("Origin")
	if o == "" {
		return r.Method == http.MethodGet || r.Method == http.MethodHead
	}
	return o == "http://"+r.Host
}

// fetchSiteOK refuses what another site's page asks of the API: browsers
// say where a request comes from in Sec-Fetch-Site.
func fetchSiteOK(r *http.Request) bool {
	switch r.Header.Get("Sec-Fetch-Site") {
	case "", "same-origin", "none":
		return true
	}
	return false
}

// origin is the page's own origin, as the browser names it.
func origin(r *http.Request) string { return "http://" + r.Host }

// isHandshake is what a page without a session may call.
func isHandshake(path string) bool { return path == "/api/hello" || path == "/api/session" }

// guard runs every request through the checks above, then next. The page
// and its static files need no session: they hold no secret. An API call
// does (the handshake's two excepted), and runs until its session ends: a
// stream ends with its token.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cross-Origin-Opener-Policy", "same-origin")
		h.Set("Cross-Origin-Resource-Policy", "same-origin")
		h.Set("Cache-Control", "no-store")
		if !s.hostOK(r.Host) {
			deny(w, http.StatusForbidden, "this page answers only to its own address (Host "+quote(r.Host)+" refused)")
			return
		}
		if !originOK(r) {
			deny(w, http.StatusForbidden, "cross-origin request refused")
			return
		}
		if !strings.HasPrefix(r.URL.Path, "/api/") {
			next.ServeHTTP(w, r)
			return
		}
		if !fetchSiteOK(r) {
			deny(w, http.StatusForbidden, "cross-site request refused")
			return
		}
		if isHandshake(r.URL.Path) {
			next.ServeHTTP(w, r)
			return
		}
		until, ok := s.auth.valid(r.Header.Get(sessionHeader))
		if !ok {
			deny(w, http.StatusUnauthorized, "no session: open the URL interceptor inbox printed (its key proves this page)")
			return
		}
		ctx, cancel := context.WithDeadline(r.Context(), until)
		defer cancel()
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// deny answers a refused request in one line of plain text.
func deny(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(code)
	fmt.Fprintln(w, msg)
}

func quote(s string) string {
	if len(s) > 100 {
		s = s[:100]
	}
	return fmt.Sprintf("%q", s)
}
