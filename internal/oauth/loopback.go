package oauth

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"html"
	"net"
	"net/http"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// callback is the loopback redirect listener (RFC 8252 §7.3) one
// authorization waits on: the authorization server sends the browser back
// to it with the code. It listens on 127.0.0.1 (and on ::1 at the same
// port where it can, as the redirect URI names localhost, which a browser
// may resolve to either), nowhere else.
type callback struct {
	lns      []net.Listener
	srv      *http.Server
	redirect string
	state    string

	once sync.Once
	got  chan callbackResult
}

type callbackResult struct {
	code, iss string
	err       error
}

// callbackPath is the redirect URI's path.
const callbackPath = "/callback"

// listenCallback listens on port (0: any free one) for the redirect of
// the authorization whose state is state.
func listenCallback(port int, state string) (*callback, error) {
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if errors.Is(err, syscall.EADDRINUSE) {
		return nil, fmt.Errorf("the redirect listener: port %d of 127.0.0.1 is taken by another program: free it, or give another --callback-port (one the redirect URI registered with the server allows)", port)
	}
	if err != nil {
		return nil, fmt.Errorf("the redirect listener on 127.0.0.1:%d: %w", port, err)
	}
	port = ln.Addr().(*net.TCPAddr).Port
	cb := &callback{
		lns:      []net.Listener{ln},
		redirect: "http://localhost:" + strconv.Itoa(port) + callbackPath,
		state:    state,
		got:      make(chan callbackResult, 1),
	}
	if ln6, err := net.Listen("tcp", net.JoinHostPort("::1", strconv.Itoa(port))); err == nil {
		cb.lns = append(cb.lns, ln6)
	}
	cb.srv = &http.Server{Handler: http.HandlerFunc(cb.serve), ReadHeaderTimeout: 10 * time.Second}
	for _, l := range cb.lns {
		go cb.srv.Serve(l)
	}
	return cb, nil
}

func (cb *callback) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != callbackPath || r.Method != http.MethodGet {
		http.NotFound(w, r)
		return
	}
	q := r.URL.Query()
	// Another user of the machine can reach this port too: only the
	// browser that was sent with the state is answered; anything else is
	// refused and the wait goes on.
	if subtle.ConstantTimeCompare([]byte(q.Get("state")), []byte(cb.state)) != 1 {
		http.Error(w, "this is not the authorization interceptor is waiting for (state does not match)", http.StatusBadRequest)
		return
	}
	var res callbackResult
	if e := q.Get("error"); e != "" {
		res.err = fmt.Errorf("the authorization server refused: %s", oneLine(e+" "+q.Get("error_description"), 200))
	} else if res.code = q.Get("code"); res.code == "" {
		res.err = errors.New("the authorization server sent the browser back without a code")
	}
	res.iss = q.Get("iss")
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	if res.err != nil {
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, "<!doctype html><title>interceptor</title><p>Authorization failed: %s</p>", html.EscapeString(res.err.Error()))
	} else {
		fmt.Fprint(w, "<!doctype html><title>interceptor</title><p>Authorized. You can close this tab.</p>")
	}
	cb.once.Do(func() { cb.got <- res })
}

// wait returns the code (and the iss the server added, RFC 9207) once the
// browser comes back, or an error when ctx ends first.
func (cb *callback) wait(ctx context.Context) (code, iss string, err error) {
	select {
	case res := <-cb.got:
		return res.code, res.iss, res.err
	case <-ctx.Done():
		return "", "", ctx.Err()
	}
}

func (cb *callback) close() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	cb.srv.Shutdown(ctx)
}

// oneLine is s on one line, at most max bytes, control characters shown
// as '?': a server's text goes into the log and the page.
func oneLine(s string, max int) string {
	b := []byte(s)
	if len(b) > max {
		b = b[:max]
	}
	for i, c := range b {
		if c < 0x20 || c == 0x7f {
			b[i] = '?'
		}
	}
	return string(b)
}
