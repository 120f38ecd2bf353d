package inbox

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
)

// The page decides tool calls: whoever can use it runs code as the user.
// It is guarded as a local admin page:
//
//   - a secret of 256 random bits in the URL printed at start (as Jupyter
//     does), exchanged once for a cookie (HttpOnly: no script reads it;
//     SameSite=Strict: no other site's page sends it) and taken out of the
//     address bar by a redirect;
//   - every action (POST) carries a CSRF token the page reads from its own
//     HTML and an Origin that is the page's own;
//   - every request's Host must name this listener by IP or as localhost: a
//     DNS rebinding attack reaches 127.0.0.1 under its own host name, and is
//     refused before anything else;
//   - API reads refuse a Sec-Fetch-Site other than same-origin (or none).

// secretBytes is the length of the URL secret, the session cookie and the
// CSRF token.
const secretBytes = 32

func randomHex() (string, error) {
	b := make([]byte, secretBytes)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("making the page's secret: %w", err)
	}
	return hex.EncodeToString(b), nil
}

func equal(a, b string) bool {
	return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}

// keys are the page's secrets, made at start.
type keys struct {
	secret  string // in the printed URL, exchanged for the cookie
	session string // the cookie's value
	csrf    string // in the page's HTML; every POST sends it back
}

func newKeys() (keys, error) {
	var k keys
	var err error
	for _, p := range []*string{&k.secret, &k.session, &k.csrf} {
		if *p, err = randomHex(); err != nil {
			return keys{}, err
		}
	}
	return k, nil
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

func (s *Server) cookieName() string { return "interceptor_inbox_" + s.port }

func (s *Server) hasSession(r *http.Request) bool {
	c, err := r.Cookie(s.cookieName())
	return err == nil && equal(c.Value, s.keys.session)
}

// guard runs every request through the checks above, then next. The page
// itself (GET /) also takes the secret: ?token=SECRET sets the cookie and
// redirects to the page without it.
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
		if tok := r.URL.Query().Get("token"); tok != "" && r.Method == http.MethodGet && r.URL.Path == "/" {
			if !equal(tok, s.keys.secret) {
				deny(w, http.StatusForbidden, "wrong secret: open the URL interceptor inbox printed")
				return
			}
			http.SetCookie(w, &http.Cookie{Name: s.cookieName(), Value: s.keys.session, Path: "/",
				HttpOnly: true, SameSite: http.SameSiteStrictMode})
			http.Redirect(w, r, "/", http.StatusSeeOther)
			return
		}
		if !s.hasSession(r) {
			deny(w, http.StatusUnauthorized, "no session: open the URL interceptor inbox printed (it carries the secret)")
			return
		}
		if strings.HasPrefix(r.URL.Path, "/api/") && !fetchSiteOK(r) {
			deny(w, http.StatusForbidden, "cross-site request refused")
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			if !equal(r.Header.Get("X-CSRF-Token"), s.keys.csrf) {
				deny(w, http.StatusForbidden, "missing or wrong CSRF token: reload the page")
				return
			}
		}
		next.ServeHTTP(w, r)
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
