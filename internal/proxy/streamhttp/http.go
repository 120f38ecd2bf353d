// Package streamhttp is the HTTP side of proxy mode: it relays a stdio MCP
// client to a Streamable HTTP server, rewriting messages with a
// proxy.Rewriter. It is its own package because net/http makes the binary
// twice as large and every hook run slower; only interceptor-http links it
// (internal/cli/httpcmd).
//
// http.go relays (a POST per message, the GET stream, the session's end);
// sse.go reads an event stream and resume.go resumes a dropped one;
// redirect.go is the redirect policy (same origin only); headers.go the
// headers the relay sends and auth.go OAuth on a 401.
package streamhttp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/interceptor-dev/interceptor/internal/proxy"
	"github.com/interceptor-dev/interceptor/internal/rawjson"
	"github.com/tidwall/gjson"
)

// HTTP is a proxied Streamable HTTP server: the client talks stdio to In
// and Out, the proxy talks HTTP to URL (MCP's Streamable HTTP transport:
// each client message is POSTed; a response comes back as JSON or as an
// event stream; server-initiated messages come on a GET event stream).
type HTTP struct {
	URL    string
	Header [][2]string  // sent with every request, e.g. Authorization
	Client *http.Client // nil: a client without an overall timeout
	// Auth, when set, authorizes every request (OAuth; auth.go): its
	// Authorization replaces any in Header.
	Auth Authorizer

	In  io.Reader // from the client
	Out io.Writer // to the client

	// Signals stop the proxy (after ending the HTTP session).
	Signals <-chan os.Signal
	// Grace bounds how long, after the client closes its end, answers
	// still under way are waited for. 0 means proxy.DefaultGrace.
	Grace time.Duration
}

// Run relays until the client closes its end or a signal comes. It returns
// 0 then; errors talking to the server go to the client as JSON-RPC errors
// of the requests they concern.
func (h *HTTP) Run(rw *proxy.Rewriter) (int, error) {
	if h.URL == "" {
		return 1, errors.New("no server URL given")
	}
	grace := h.Grace
	if grace <= 0 {
		grace = proxy.DefaultGrace
	}
	client := &http.Client{}
	if h.Client != nil {
		*client = *h.Client
	}
	client.CheckRedirect = sameOrigin(client.CheckRedirect)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := &httpConn{h: h, rw: rw, client: client, ctx: ctx}

	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		c.readClient()
	}()
	select {
	case <-readDone:
		// Answers to what the client asked before it closed may still be on
		// their way; it may be reading them.
		drained := make(chan struct{})
		go func() { c.inflight.Wait(); close(drained) }()
		select {
		case <-drained:
		case <-time.After(grace):
		case <-h.Signals:
		}
	case <-h.Signals:
	}
	cancel()
	c.endSession()
	return 0, nil
}

type httpConn struct {
	h      *HTTP
	rw     *proxy.Rewriter
	client *http.Client
	ctx    context.Context

	outMu sync.Mutex // one message per write to the client

	mu        sync.Mutex
	session   string // Mcp-Session-Id
	version   string // MCP-Protocol-Version, from the initialize result
	listening bool   // the GET stream was started
	// open are the 2026-07-28 requests whose answer is still coming, by
	// id (idKey): closing one's response stream is how it is cancelled.
	open map[string]*openRequest

	params paramHeaders // x-mcp-header bindings, from tools/list results

	inflight sync.WaitGroup
}

// openRequest is one 2026-07-28 request under way.
type openRequest struct {
	cancel context.CancelFunc
	o      *outstanding
}

func (c *httpConn) logf(format string, a ...any) { c.rw.Logf(format, a...) }

func (c *httpConn) readClient() {
	lr := proxy.NewLineReader(c.h.In, c.rw.MaxMessage())
	for {
		line, over, err := lr.Next()
		var out proxy.Out
		if over != nil {
			out = c.rw.Oversized(false, over)
		} else if msg, _ := proxy.SplitEnding(line); len(bytes.TrimSpace(msg)) > 0 {
			out = c.rw.FromClient(msg)
		} else {
			out.Drop = true
		}
		if len(out.Back) > 0 {
			c.writeLines(out.Back)
		}
		if !out.Drop {
			c.post(bytes.Clone(out.Msg))
		}
		if err != nil {
			return
		}
	}
}

// outstanding are the requests of one POST still waiting for an answer.
type outstanding struct {
	mu   sync.Mutex
	ids  map[string]string // idKey -> raw id
	init string            // idKey of an initialize request, if any
	list string            // idKey of a 2026-07-28 tools/list request, if any
}

// forget stops waiting for the request with idKey k (it was cancelled: no
// answer is due, not even an error).
func (o *outstanding) forget(k string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	delete(o.ids, k)
}

// waiting reports whether a request of o still waits for its answer.
func (o *outstanding) waiting() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return len(o.ids) > 0
}

// answersList reports whether msg (a single message) answers o's
// 2026-07-28 tools/list request.
func (o *outstanding) answersList(msg []byte) bool {
	if o == nil || o.list == "" {
		return false
	}
	k, ok := proxy.IDKey(gjson.GetBytes(msg, "id"))
	if !ok || k != o.list || gjson.GetBytes(msg, "method").Exists() {
		return false
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	_, waiting := o.ids[k]
	return waiting
}

func (o *outstanding) answered(msg []byte) (key string, ok bool) {
	if o == nil {
		return "", false
	}
	k, ok := proxy.IDKey(gjson.GetBytes(msg, "id"))
	if !ok {
		return "", false
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if _, ok := o.ids[k]; !ok {
		return "", false
	}
	delete(o.ids, k)
	return k, true
}

// scan lists the requests in a client message (single or batch).
func scan(body []byte) (o *outstanding, initialized bool) {
	o = &outstanding{ids: map[string]string{}}
	visit := func(m gjson.Result) {
		method := m.Get("method")
		if method.Type != gjson.String {
			return
		}
		if method.Str == "notifications/initialized" {
			initialized = true
		}
		id := m.Get("id")
		if k, ok := proxy.IDKey(id); ok {
			o.ids[k] = id.Raw
			if method.Str == "initialize" {
				o.init = k
			}
		}
	}
	v := gjson.ParseBytes(body)
	if v.IsArray() {
		v.ForEach(func(_, m gjson.Result) bool { visit(m); return true })
	} else {
		visit(v)
	}
	return o, initialized
}

// newRequest is an HTTP request to the server; m is the client message a
// POST carries, when it is a single one (its revision decides the
// headers).
func (c *httpConn) newRequest(ctx context.Context, method string, body []byte, m *message) (*http.Request, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.h.URL, rd)
	if err != nil {
		return nil, err
	}
	for _, kv := range c.h.Header {
		req.Header.Add(kv[0], kv[1])
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
	} else {
		req.Header.Set("Accept", "text/event-stream")
	}
	if err := c.authorize(req); err != nil {
		return nil, err
	}
	if m != nil && m.modern() {
		// Sessionless: no session id, whatever came before.
		return req, m.setHeaders(req.Header, &c.params)
	}
	c.mu.Lock()
	if c.session != "" {
		req.Header.Set("Mcp-Session-Id", c.session)
	}
	if c.version != "" {
		req.Header.Set("Mcp-Protocol-Version", c.version)
	}
	c.mu.Unlock()
	if m != nil {
		return req, m.setHeaders(req.Header, &c.params)
	}
	return req, nil
}

// post sends one client message. A legacy one: post returns once the
// server has accepted it (the response headers are in), so messages reach
// the server in the client's order (a session's are ordered). A
// 2026-07-28 request stands on its own, and its server may send no header
// before its answer: post returns at once, so that a cancellation or
// another request need not wait for it. The answer is read in the
// background.
func (c *httpConn) post(body []byte) {
	o, initialized := scan(body)
	var mp *message
	if m, ok := parseMessage(body); ok {
		mp = &m
		if m.method == "notifications/cancelled" && c.cancelOpen(m.v.Get("params.requestId")) {
			// 2026-07-28: closing the response stream is the cancellation;
			// the notification itself is not for HTTP.
			return
		}
		if k, ok := idKey(m.id); ok && m.modern() && m.method == "tools/list" {
			o.list = k
		}
	}
	ctx, cancel := context.WithCancel(c.ctx)
	req, err := c.newRequest(ctx, http.MethodPost, body, mp)
	if err != nil {
		cancel()
		c.fail(o, hideAddress(err))
		return
	}
	// A 2026-07-28 request's stream is its own: the client cancels it by
	// id. The listen stream never ends on its own; it does not hold up the
	// end of the relay.
	open, long := "", false
	if mp != nil && mp.modern() {
		if k, ok := idKey(mp.id); ok {
			open, long = k, mp.method == "subscriptions/listen"
			c.mu.Lock()
			if c.open == nil {
				c.open = map[string]*openRequest{}
			}
			c.open[k] = &openRequest{cancel: cancel, o: o}
			c.mu.Unlock()
		}
	}
	done := func() {
		cancel()
		if open != "" {
			c.mu.Lock()
			if r := c.open[open]; r != nil && r.o == o {
				delete(c.open, open)
			}
			c.mu.Unlock()
		}
	}
	// A legacy request's stream is resumed when it drops (resume.go).
	x := exchangeOf{o: o, initialized: initialized, long: long, resumable: mp == nil || !mp.modern(), done: done}
	if open == "" {
		c.exchange(ctx, req, x)
		return
	}
	if !long {
		c.inflight.Add(1)
	}
	go func() {
		if !long {
			defer c.inflight.Done()
		}
		c.exchange(ctx, req, x)
	}()
}

// exchangeOf is what exchange needs to know of one POST.
type exchangeOf struct {
	o           *outstanding // its requests
	initialized bool         // it carries notifications/initialized
	// long says its stream may last as long as the relay
	// (subscriptions/listen), and must not hold up its end.
	long bool
	// resumable says its event stream is resumed if it drops.
	resumable bool
	done      func() // ends the request (cancels its context)
}

// exchange sends req (a POST of x.o's requests) and hands its answer on:
// in the background once the response headers are in. ctx is the
// request's context.
func (c *httpConn) exchange(ctx context.Context, req *http.Request, x exchangeOf) {
	o, initialized, long, done := x.o, x.initialized, x.long, x.done
	resp, err := c.do(req)
	if err != nil {
		// Whether we cancelled it, asked before done cancels ctx: an
		// error of ours is no news to the client, one of the server's is.
		cancelled := c.ctx.Err() != nil || ctx.Err() != nil
		done()
		var cross *crossOrigin
		var auth *authFailed
		switch {
		case errors.As(err, &cross):
			c.logf("%v", cross)
			c.fail(o, cross.Error())
		case errors.As(err, &auth):
			c.logf("%v", auth)
			c.fail(o, auth.Error())
		case !cancelled:
			c.fail(o, "cannot reach the MCP server: "+hideAddress(err))
		}
		return
	}
	if sid := resp.Header.Get("Mcp-Session-Id"); sid != "" && o.init != "" {
		c.mu.Lock()
		c.session = sid
		c.mu.Unlock()
	}
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	ok := resp.StatusCode >= 200 && resp.StatusCode < 300
	switch {
	case ok && ct == "text/event-stream":
		if !long {
			c.inflight.Add(1)
		}
		go func() {
			if !long {
				defer c.inflight.Done()
			}
			defer done()
			c.readStream(ctx, resp.Body, o, x.resumable)
			c.fail(o, "the MCP server's event stream ended without an answer")
		}()
	case ok && ct == "application/json":
		c.inflight.Add(1)
		go func() {
			defer c.inflight.Done()
			defer done()
			defer resp.Body.Close()
			max := c.rw.MaxMessage()
			data, err := io.ReadAll(io.LimitReader(resp.Body, int64(max)+1))
			if len(data) > max {
				// Too large to keep: read it through for its head.
				h := new(rawjson.Head)
				h.Write(data)
				data = nil
				if _, err := io.Copy(h, resp.Body); err == nil {
					c.deliver(nil, h, o)
				}
			} else if err == nil && len(bytes.TrimSpace(data)) > 0 {
				c.deliver(data, nil, o)
			}
			c.fail(o, "the MCP server answered without a response to this request")
		}()
	case ok:
		resp.Body.Close()
		done()
		c.fail(o, fmt.Sprintf("the MCP server answered HTTP %d without a response", resp.StatusCode))
		if initialized {
			c.listen()
		}
	default:
		const keep = 4 << 10
		data, _ := io.ReadAll(io.LimitReader(resp.Body, keep+1))
		resp.Body.Close()
		done()
		cut := len(data) > keep
		if cut {
			data = data[:keep]
		} else if ct == "application/json" && gjson.ValidBytes(data) {
			c.deliver(data, nil, o) // a JSON-RPC error the server wrote itself
		}
		c.mu.Lock()
		expired := resp.StatusCode == http.StatusNotFound && c.session != ""
		c.mu.Unlock()
		// Held tokens are replaced before the text is cut: a cut inside a
		// token would leave most of it unrecognizable, and in clear.
		msg := strings.TrimSpace(fmt.Sprintf("the MCP server answered HTTP %d %s", resp.StatusCode, c.rw.Excerpt(data, 200, cut)))
		if expired {
			msg = "the MCP server ended the session (HTTP 404); restart the client to start a new one"
		}
		c.fail(o, msg)
	}
}

// cancelOpen closes the response stream of the 2026-07-28 request with id
// (the client cancelled it); no answer is then due. It reports false when
// no such request is under way (a legacy one: its server gets the
// notification).
func (c *httpConn) cancelOpen(id gjson.Result) bool {
	k, ok := idKey(id)
	if !ok {
		return false
	}
	c.mu.Lock()
	r := c.open[k]
	delete(c.open, k)
	c.mu.Unlock()
	if r == nil {
		return false
	}
	r.o.forget(k)
	r.cancel()
	return true
}

// deliver passes one message (or batch) from the server to the client, on
// one line; or for a message too large to keep (over), what answers it.
func (c *httpConn) deliver(data []byte, over *rawjson.Head, o *outstanding) {
	if over != nil {
		c.relay(c.rw.Oversized(true, over), o)
		return
	}
	if o.answersList(data) {
		// The server's own list, before the proxy edits it: the Mcp-Param
		// headers of later calls come from it.
		var dropped []string
		data, dropped = c.params.learn(data)
		for _, d := range dropped {
			c.logf("tools/list: left out tool %s (an HTTP client must not offer it)", d)
		}
	}
	if bytes.ContainsAny(data, "\r\n") {
		// In valid JSON, raw line breaks are only whitespace between tokens;
		// the stdio framing needs the message on one line.
		data = bytes.Map(func(r rune) rune {
			if r == '\n' || r == '\r' {
				return -1
			}
			return r
		}, data)
	}
	c.relay(c.rw.FromServer(data), o)
}

// relay passes what became of a server message on: to the client, and the
// answers back to the server.
func (c *httpConn) relay(out proxy.Out, o *outstanding) {
	for back := out.Back; len(back) > 0; {
		line, rest, _ := bytes.Cut(back, []byte{'\n'})
		c.post(bytes.Clone(line))
		back = rest
	}
	if out.Drop {
		return
	}
	data := out.Msg
	if o != nil {
		var keys []string
		v := gjson.ParseBytes(data)
		if v.IsArray() {
			v.ForEach(func(_, m gjson.Result) bool {
				if k, ok := o.answered([]byte(m.Raw)); ok {
					keys = append(keys, k)
				}
				return true
			})
		} else if k, ok := o.answered(data); ok {
			keys = append(keys, k)
		}
		for _, k := range keys {
			if k == o.init {
				c.initialized(data)
			}
		}
	}
	c.write(data)
}

// initialized takes the protocol version from the initialize result, to
// send as Mcp-Protocol-Version from then on.
func (c *httpConn) initialized(data []byte) {
	v := gjson.GetBytes(data, "result.protocolVersion")
	if gjson.ParseBytes(data).IsArray() {
		gjson.ParseBytes(data).ForEach(func(_, m gjson.Result) bool {
			if p := m.Get("result.protocolVersion"); p.Type == gjson.String {
				v = p
				return false
			}
			return true
		})
	}
	if v.Type == gjson.String {
		c.mu.Lock()
		c.version = v.Str
		c.mu.Unlock()
	}
}

// writeLines writes messages that end in '\n' to the client.
func (c *httpConn) writeLines(lines []byte) {
	c.outMu.Lock()
	defer c.outMu.Unlock()
	c.h.Out.Write(lines)
}

func (c *httpConn) write(msg []byte) {
	line := make([]byte, 0, len(msg)+1)
	line = append(append(line, msg...), '\n')
	c.outMu.Lock()
	defer c.outMu.Unlock()
	c.h.Out.Write(line)
}

// fail answers every request of o still waiting with a JSON-RPC error, so
// the client does not wait forever.
func (c *httpConn) fail(o *outstanding, reason string) {
	o.mu.Lock()
	ids := o.ids
	o.ids = map[string]string{}
	o.mu.Unlock()
	for _, raw := range ids {
		c.relay(c.rw.FromServer(proxy.ErrorResponse(raw, -32000, "interceptor proxy: "+reason)), nil)
	}
}

// listen opens the GET event stream for messages the server sends on its
// own (requests, notifications), once the session is initialized, and
// reopens it when it ends. A server that offers none (405) is fine.
func (c *httpConn) listen() {
	c.mu.Lock()
	started := c.listening
	c.listening = true
	c.mu.Unlock()
	if started {
		return
	}
	go func() {
		var cur sseCursor
		for backoff := 500 * time.Millisecond; c.ctx.Err() == nil; {
			req, err := c.newRequest(c.ctx, http.MethodGet, nil, nil)
			if err != nil {
				return
			}
			if cur.lastID != "" {
				req.Header.Set("Last-Event-ID", cur.lastID)
			}
			resp, err := c.do(req)
			if err == nil {
				ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
				if resp.StatusCode != http.StatusOK || ct != "text/event-stream" {
					resp.Body.Close()
					if resp.StatusCode != http.StatusMethodNotAllowed {
						c.logf("the MCP server refused the stream for its own messages (HTTP %d); continuing without it", resp.StatusCode)
					}
					return
				}
				readSSE(resp.Body, c.rw.MaxMessage(), &cur, func(data []byte, over *rawjson.Head) {
					c.deliver(data, over, nil)
				})
				resp.Body.Close()
			}
			// The server's retry field, when it gave one, is the wait it
			// asked for (SEP-1699); else a backoff.
			wait := backoff
			if cur.retry > 0 {
				wait = cur.wait(0)
			}
			select {
			case <-c.ctx.Done():
				return
			case <-time.After(wait):
			}
			backoff = min(2*backoff, 10*time.Second)
		}
	}()
}

// endSession tells the server the session is over.
func (c *httpConn) endSession() {
	c.mu.Lock()
	sid := c.session
	c.mu.Unlock()
	if sid == "" {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, c.h.URL, nil)
	if err != nil {
		return
	}
	for _, kv := range c.h.Header {
		req.Header.Add(kv[0], kv[1])
	}
	req.Header.Set("Mcp-Session-Id", sid)
	c.authorize(req)
	if resp, err := c.client.Do(req); err == nil {
		resp.Body.Close()
	}
}
