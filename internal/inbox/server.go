package inbox

import (
	"context"
	"embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/interceptor-dev/interceptor/internal/approvals"
	"github.com/interceptor-dev/interceptor/internal/children"
	"github.com/interceptor-dev/interceptor/internal/hooks"
	"github.com/tidwall/gjson"
)

// DefaultListen is where the page listens unless told otherwise: loopback,
// a port the system picks.
const DefaultListen = "127.0.0.1:0"

// Options configure a Server.
type Options struct {
	// StateDir holds the approval queue and the children.
	StateDir string
	// Listen is HOST:PORT (DefaultListen when empty). A host beyond
	// loopback is refused unless AllowRemote.
	Listen      string
	AllowRemote bool
	// Notify, when set, is a URL POSTed a short message whenever a request
	// starts waiting (ntfy style: text body, Title and Click headers);
	// NotifyJSON sends a JSON object instead (webhooks).
	Notify     string
	NotifyJSON bool
	// NotifyWait is how long a burst of new requests gathers before it is
	// notified as one (0: 1.5 s; negative: at once). notify.go.
	NotifyWait time.Duration
	// Desktop shows a desktop notification too, where the platform has a
	// way (notify-send on PATH, Linux).
	Desktop bool
	// Log gets warnings and failed notifications, one line each.
	Log io.Writer
	// DecidedBy is recorded with each decision and answer (default
	// approvals.Decider("inbox"): the uid, pid and parent of this process,
	// as the CLI records its own).
	DecidedBy string
	// NewKey replaces the page's key (key.go) before serving: tabs that
	// hold the old one stop working.
	NewKey bool
	// Source is where the requests come from and decisions and rules go
	// (nil: Local, the approval queue of StateDir; source.go).
	Source Source
}

// Server is the inbox page.
type Server struct {
	opts     Options
	src      Source
	kids     *children.Store
	ln       net.Listener
	port     string
	loopback bool
	auth     *authState
	by       string
	notify   *notifier
}

//go:embed assets
var assets embed.FS

// Listen checks the address, reads (or makes) the page's key and listens.
func Listen(o Options) (*Server, error) {
	if o.Listen == "" {
		o.Listen = DefaultListen
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	if o.StateDir == "" {
		return nil, errors.New("inbox: no state dir")
	}
	loopback, err := checkListen(o.Listen, o.AllowRemote)
	if err != nil {
		return nil, err
	}
	n, err := newNotifier(o)
	if err != nil {
		return nil, err
	}
	key, err := loadKey(o.StateDir, o.NewKey)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", o.Listen)
	if err != nil {
		return nil, fmt.Errorf("inbox: %w", err)
	}
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	if o.Source == nil {
		o.Source = Local(approvals.New(o.StateDir))
	}
	s := &Server{opts: o, src: o.Source, kids: children.New(o.StateDir), ln: ln, port: port,
		loopback: loopback, auth: newAuth(key), by: o.DecidedBy, notify: n}
	if s.by == "" {
		s.by = approvals.Decider("inbox")
	}
	n.link = s.Link()
	return s, nil
}

// Addr is the address the page listens on.
func (s *Server) Addr() net.Addr { return s.ln.Addr() }

// host is how the printed URLs name the listener.
func (s *Server) host() string {
	h, _, _ := net.SplitHostPort(s.opts.Listen)
	ip := net.ParseIP(h)
	switch {
	case strings.EqualFold(h, "localhost"):
		// The address bound, not the name: a browser resolves localhost to
		// ::1 as well as 127.0.0.1, and another user may listen on the one
		// the inbox does not hold; the page would send it its session.
		if a, ok := s.ln.Addr().(*net.TCPAddr); ok {
			return net.JoinHostPort(a.IP.String(), s.port)
		}
		return "127.0.0.1:" + s.port
	case h == "" || ip != nil && ip.IsUnspecified():
		return "127.0.0.1:" + s.port
	}
	return net.JoinHostPort(h, s.port)
}

// URL is the page's address with its key in the fragment (never sent to a
// server): print it to the person only.
func (s *Server) URL() string { return s.Link() + "#key=" + hex.EncodeToString(s.auth.key) }

// Link is the page's address without the key, for notifications.
func (s *Server) Link() string { return "http://" + s.host() + "/" }

// Serve serves the page until ctx ends, and watches the queue for
// notifications.
func (s *Server) Serve(ctx context.Context) error {
	srv := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second,
		BaseContext: func(net.Listener) context.Context { return ctx }}
	go s.notify.watch(ctx, s.src, s.kids)
	done := make(chan struct{})
	go func() {
		defer close(done)
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		srv.Shutdown(sctx) // streams end with ctx (BaseContext)
	}()
	err := srv.Serve(s.ln)
	<-done
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// Handler is the page and its API, behind the checks of auth.go.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	static, _ := fs.Sub(assets, "assets")
	files := http.FileServerFS(static)
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(indexHTML)
	})
	mux.Handle("GET /static/", http.StripPrefix("/static/", files))
	mux.HandleFunc("POST /api/hello", s.apiHello)
	mux.HandleFunc("POST /api/session", s.apiSession)
	mux.HandleFunc("GET /api/pending", s.apiPending)
	mux.HandleFunc("GET /api/request", s.apiRequest)
	mux.HandleFunc("GET /api/history", s.apiHistory)
	mux.HandleFunc("GET /api/children", s.apiChildren)
	mux.HandleFunc("GET /api/chat", s.apiChat)
	mux.HandleFunc("GET /api/stream", s.stream)
	mux.HandleFunc("GET /api/chat/stream", s.chatStream)
	mux.HandleFunc("POST /api/decide", s.apiDecide)
	mux.HandleFunc("POST /api/answer", s.apiAnswer)
	mux.HandleFunc("GET /api/rules", s.apiRules)
	mux.HandleFunc("POST /api/rules/add", s.apiRuleAdd)
	mux.HandleFunc("POST /api/rules/revoke", s.apiRuleRevoke)
	mux.HandleFunc("POST /api/children/start", s.apiChildStart)
	mux.HandleFunc("POST /api/chat/continue", s.apiChatContinue)
	mux.HandleFunc("POST /api/chat/cancel", s.apiChatCancel)
	return s.guard(mux)
}

// indexHTML is the page: the same for everyone, no secret in it.
var indexHTML, _ = assets.ReadFile("assets/index.html")

// apiHello is the handshake's first step (auth.go): {client_nonce} ->
// {server_nonce, proof}.
func (s *Server) apiHello(w http.ResponseWriter, r *http.Request) {
	var a helloAction
	if err := readAction(w, r, &a); err != nil {
		fail(w, err)
		return
	}
	cn := a.ClientNonce
	if !isNonce(cn) {
		fail(w, fmt.Errorf("%w: want client_nonce, %d hex digits", errBadRequest, 2*keyBytes))
		return
	}
	sn, sp, err := s.auth.hello(origin(r), cn)
	if err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, map[string]string{"server_nonce": sn, "proof": sp})
}

// apiSession is its second: {server_nonce, proof} -> {session,
// expires_in (ms)}.
func (s *Server) apiSession(w http.ResponseWriter, r *http.Request) {
	var a sessionAction
	if err := readAction(w, r, &a); err != nil {
		fail(w, err)
		return
	}
	tok, ttl, err := s.auth.session(origin(r), a.ServerNonce, a.Proof)
	if err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, map[string]any{"session": tok, "expires_in": ttl.Milliseconds()})
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

func fail(w http.ResponseWriter, err error) {
	code := http.StatusInternalServerError
	switch {
	case errors.Is(err, approvals.ErrUnknown), errors.Is(err, children.ErrUnknown):
		code = http.StatusNotFound
	case errors.Is(err, ErrUnreachable):
		code = http.StatusServiceUnavailable
	case errors.Is(err, approvals.ErrDecided), errors.Is(err, ErrElsewhere):
		code = http.StatusConflict
	case errors.Is(err, errBadRequest), errors.Is(err, approvals.ErrNeedsAnswer), errors.Is(err, approvals.ErrNotInput),
		errors.Is(err, approvals.ErrBadAnswer):
		code = http.StatusBadRequest
	case errors.Is(err, errNoChallenge), errors.Is(err, errWrongProof):
		code = http.StatusForbidden
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(map[string]string{"error": approvals.Visible(err.Error())})
}

var errBadRequest = errors.New("bad request")

func (s *Server) apiPending(w http.ResponseWriter, r *http.Request) {
	v, err := s.pendingView(r.Context())
	if err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, v)
}

// apiRequest is one request whole (a pending input the lists cut).
func (s *Server) apiRequest(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	req, err := s.src.Get(r.Context(), q.Get("machine"), q.Get("id"))
	if err != nil {
		fail(w, err)
		return
	}
	it := s.item(req, s.childNames([]approvals.Request{req}), time.Now(), 0)
	it.Machine = vis(q.Get("machine"))
	writeJSON(w, it)
}

func (s *Server) apiHistory(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	limit, _ := strconv.Atoi(q.Get("limit"))
	v, err := s.history(q.Get("q"), q.Get("before"), limit)
	if err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, v)
}

func (s *Server) apiChildren(w http.ResponseWriter, r *http.Request) {
	v, err := s.childrenView(r.Context())
	if err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, v)
}

func (s *Server) apiChat(w http.ResponseWriter, r *http.Request) {
	from, _ := strconv.Atoi(r.URL.Query().Get("from"))
	chat, err := s.kids.Chat(r.URL.Query().Get("id"))
	if err != nil {
		fail(w, err)
		return
	}
	v, err := s.chatView(r.Context(), chat, from)
	if err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, v)
}

// apiDecide allows or denies a request: {id, allow, message?,
// updated_input?} (updated_input: the complete new arguments as JSON text,
// allow only). It is approvals.Store.Decide, as `approvals allow|deny`.
func (s *Server) apiDecide(w http.ResponseWriter, r *http.Request) {
	var a decideAction
	if err := readAction(w, r, &a); err != nil {
		fail(w, err)
		return
	}
	if a.ID == nil || a.Allow == nil {
		fail(w, fmt.Errorf("%w: want id (a string) and allow (true or false)", errBadRequest))
		return
	}
	d := hooks.Decision{Allow: *a.Allow, Reason: a.Message, By: s.by}
	if u := a.UpdatedInput; u != nil && strings.TrimSpace(*u) != "" {
		if !gjson.Valid(*u) || !gjson.Parse(*u).IsObject() {
			fail(w, fmt.Errorf("%w: the edited input is not a JSON object", errBadRequest))
			return
		}
		if !d.Allow {
			fail(w, fmt.Errorf("%w: edited input goes only with an allow", errBadRequest))
			return
		}
		d.UpdatedInput = *u
	}
	req, err := s.src.Decide(r.Context(), a.Machine, *a.ID, d)
	if err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, map[string]string{"id": req.ID, "status": string(req.Status)})
}

// apiAnswer answers a human tool's question: {id, answer}. It is
// approvals.Store.AnswerInput, as `approvals answer`.
func (s *Server) apiAnswer(w http.ResponseWriter, r *http.Request) {
	var a answerAction
	if err := readAction(w, r, &a); err != nil {
		fail(w, err)
		return
	}
	if a.ID == nil || strings.TrimSpace(a.Answer) == "" {
		fail(w, fmt.Errorf("%w: want id and a non-empty answer", errBadRequest))
		return
	}
	// The page checked the answer against the question's answerSchema;
	// the queue that holds the question checks it again (AnswerInput, on
	// the question's own machine for a relay's), refusing ErrBadAnswer.
	req, err := s.src.Answer(r.Context(), a.Machine, *a.ID, a.Answer, s.by)
	if err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, map[string]string{"id": req.ID, "status": string(req.Status)})
}
