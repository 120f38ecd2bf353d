// Package proxy is proxy mode: interceptor runs as the client's MCP server,
// relays every JSON-RPC message to the real server (a child process over
// stdio, or a Streamable HTTP endpoint) and owns the session token on the
// way: it removes the token argument from the tool schemas the client lists,
// injects the held token into tool calls, and takes the new token out of
// each tool result before the client (and so the model) sees it.
//
// Messages are relayed as raw bytes. Only three kinds are ever looked into
// and edited: tools/list results, tools/call requests and tools/call
// results; every other message (and every byte of those three that is not
// edited) passes through exactly as it came. The token logic itself is
// internal/token's, shared with hook mode.
package proxy

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"sync"

	"github.com/interceptor-dev/interceptor/internal/rawjson"
	"github.com/interceptor-dev/interceptor/internal/state"
	"github.com/interceptor-dev/interceptor/internal/token"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// Config is the token handling of one proxied connection. The options mean
// what they mean in hook mode.
type Config struct {
	Server    string   // the server's name: the state store key, and in messages
	Arg       string   // the tool argument the token goes into
	MetaKey   string   // the key the server returns the token under
	SkipTools []string // tools never injected (and whose schema is left alone)
	KeepIf    []string // a call carrying one of these arguments is not injected

	// Persist also writes each new token to Store under Session (and as the
	// server's current token), and starts from the token held there, so a
	// restarted client resumes.
	Persist bool
	Store   *state.Store
	Session string

	// MaxMessage is the largest message relayed, in bytes (0:
	// DefaultMaxMessage).
	MaxMessage int

	// Log receives the proxy's own diagnostics, one line each (never a
	// token). Nil discards them.
	Log io.Writer
}

// Validate checks the options a user gave.
func (c Config) Validate() error {
	if err := token.ValidateKey(c.Arg); err != nil {
		return fmt.Errorf("--arg: %w", err)
	}
	if err := token.ValidateKey(c.MetaKey); err != nil {
		return fmt.Errorf("--meta-key: %w", err)
	}
	if c.Persist {
		if c.Server == "" {
			return errors.New("--persist needs --server-name (the key the token is stored under)")
		}
		if c.Store == nil {
			return errors.New("--persist needs a state dir")
		}
	}
	return nil
}

// kind is what a tracked request was, so its response can be rewritten.
type kind uint8

const (
	kindList kind = iota + 1 // tools/list
	kindCall                 // tools/call
)

// Rewriter holds the token state of one connection (one client session) and
// rewrites the messages that cross it. FromClient and FromServer may be
// called from different goroutines.
type Rewriter struct {
	cfg  Config
	keep []string // KeepIf plus Arg

	mu      sync.Mutex
	tok     string
	pending map[string]kind // request id (see idKey) -> what it asked
}

// New returns the rewriter of one connection. With Persist, it starts from
// the token held in the store for Server and Session, if any.
func New(cfg Config) (*Rewriter, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	keep := slices.Clone(cfg.KeepIf)
	if !slices.Contains(keep, cfg.Arg) {
		keep = append(keep, cfg.Arg)
	}
	r := &Rewriter{cfg: cfg, keep: keep, pending: map[string]kind{}}
	if cfg.Persist {
		rec, err := cfg.Store.Get(cfg.Server, cfg.Session)
		switch {
		case errors.Is(err, state.ErrNotFound):
		case err != nil:
			r.logf("cannot resume the held token: %v", err)
		case token.Validate(rec.Token) != nil:
			r.logf("the held token for %q is not valid; starting without one", cfg.Server)
		default:
			r.tok = rec.Token
			r.logf("resumed token %s for %q", token.Mask(rec.Token), cfg.Server)
		}
	}
	return r, nil
}

// Token returns the token currently held.
func (r *Rewriter) Token() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.tok
}

// Logf writes one diagnostic line to Config.Log.
func (r *Rewriter) Logf(format string, a ...any) { r.logf(format, a...) }

func (r *Rewriter) logf(format string, a ...any) {
	if r.cfg.Log != nil {
		fmt.Fprintf(r.cfg.Log, "interceptor proxy: "+format+"\n", a...)
	}
}

// IDKey turns a JSON-RPC id into a key for matching a response to its
// request; see idKey.
func IDKey(id gjson.Result) (string, bool) { return idKey(id) }

// idKey turns a JSON-RPC id into a map key that compares ids as JSON
// values: strings by their unescaped value, numbers by their numeric value
// (a client's 2.0 is answered by a server's 2), and a string never equals a
// number. Null or absent ids are not tracked.
func idKey(id gjson.Result) (string, bool) {
	switch id.Type {
	case gjson.String:
		return "s" + id.Str, true
	case gjson.Number:
		if k, ok := rawjson.NumberKey(id.Raw); ok {
			return "n" + k, true
		}
		return "r" + id.Raw, true // not a JSON number: only its own spelling matches
	}
	return "", false
}

// Out is what becomes of one message.
type Out struct {
	// Msg is the message as it goes on: the same slice when untouched.
	Msg []byte
	// Drop says nothing goes on.
	Drop bool
	// Back holds messages that answer the sender, one a line, each ending
	// in '\n' (an error reply to a request that was not relayed).
	Back []byte
}

// FromClient returns what becomes of msg (one line, without its line
// ending) on its way to the server: tools/list and tools/call requests are
// tracked, tools/call arguments get the held token. Anything else goes on
// as it is, the same slice.
func (r *Rewriter) FromClient(msg []byte) Out {
	return r.each(msg, false, r.clientMessage)
}

// FromServer returns what becomes of msg on its way to the client: the
// responses to tracked requests are rewritten, anything else goes on as it
// is.
func (r *Rewriter) FromServer(msg []byte) Out {
	r.mu.Lock()
	idle := len(r.pending) == 0
	r.mu.Unlock()
	if idle && !rawjson.DepthExceeds(msg, rawjson.MaxDepth) {
		return Out{Msg: msg} // nothing asked that we rewrite: do not even look
	}
	return r.each(msg, true, r.serverMessage)
}

// MaxMessage is the largest message relayed, in bytes.
func (r *Rewriter) MaxMessage() int {
	if r.cfg.MaxMessage > 0 {
		return r.cfg.MaxMessage
	}
	return DefaultMaxMessage
}

// Oversized returns what becomes of a message over MaxMessage, of which
// only h was kept: see refuse.
func (r *Rewriter) Oversized(fromServer bool, h *rawjson.Head) Out {
	limit := fmt.Sprintf("%d bytes", r.MaxMessage())
	if r.MaxMessage()%(1<<20) == 0 {
		limit = fmt.Sprintf("%d MiB", r.MaxMessage()>>20)
	}
	return r.refuse(fromServer, *h, fmt.Sprintf("%d bytes, over the %s limit (--max-message)", h.Size, limit))
}

// refuse answers a message that is not relayed (too large or too deep to
// read safely), of which h was read, and logs one line. A request's sender
// gets an error reply; a response's receiver gets an error response in its
// place, so nobody waits for an answer that will not come; anything else
// is dropped.
func (r *Rewriter) refuse(fromServer bool, h rawjson.Head, why string) Out {
	from, to := "client", "server"
	if fromServer {
		from, to = to, from
	}
	switch {
	case h.Object && h.ID != "" && h.HasMethod:
		r.logf("refused a %.64q request from the %s: %s; the %s was answered with an error", h.Method, from, why, from)
		reply := ErrorResponse(h.ID, codeInvalidRequest, fmt.Sprintf("interceptor proxy: the request was not relayed to the %s: %s", to, why))
		return Out{Drop: true, Back: append(reply, '\n')}
	case h.Object && h.ID != "":
		if fromServer {
			if k, ok := idKey(gjson.Parse(h.ID)); ok {
				r.mu.Lock()
				delete(r.pending, k)
				r.mu.Unlock()
			}
		}
		r.logf("refused a response from the %s: %s; the %s gets an error in its place", from, why, to)
		return Out{Msg: ErrorResponse(h.ID, codeInternalError, fmt.Sprintf("interceptor proxy: the %s's response was not relayed: %s", from, why))}
	}
	r.logf("dropped a message from the %s: %s", from, why)
	return Out{Drop: true}
}

// JSON-RPC error codes the proxy answers with.
const (
	codeInvalidRequest = -32600
	codeInternalError  = -32603
)

// ErrorResponse is a JSON-RPC error response to the request with id (raw
// JSON).
func ErrorResponse(id string, code int, message string) []byte {
	msg := []byte(`{"jsonrpc":"2.0","id":`)
	msg = append(msg, id...)
	msg = append(msg, `,"error":{"code":`...)
	msg = strconv.AppendInt(msg, int64(code), 10)
	msg = append(msg, `,"message":`...)
	msg = rawjson.AppendString(msg, message)
	return append(msg, "}}"...)
}

// step is what becomes of one message, or one member of a batch.
type step struct {
	out  []byte // the edited message; nil: as it came
	drop bool
	back []byte
}

// each applies fn to a single message, or to each message of a batch. A
// message nested deeper than rawjson.MaxDepth is refused before anything
// parses it.
func (r *Rewriter) each(msg []byte, fromServer bool, fn func([]byte) step) (out Out) {
	if rawjson.DepthExceeds(msg, rawjson.MaxDepth) {
		var h rawjson.Head
		h.Write(msg)
		return r.refuse(fromServer, h, fmt.Sprintf("nested deeper than %d levels", rawjson.MaxDepth))
	}
	defer func() {
		// A bug here must not take the connection down: relay the message
		// as it came.
		if p := recover(); p != nil {
			r.logf("internal error on a message, relayed unchanged: %v", p)
			out = Out{Msg: msg}
		}
	}()
	i := 0
	for i < len(msg) && (msg[i] == ' ' || msg[i] == '\t' || msg[i] == '\r' || msg[i] == '\n') {
		i++
	}
	if i == len(msg) {
		return Out{Msg: msg}
	}
	switch msg[i] {
	case '{':
		st := fn(msg)
		out = Out{Msg: msg, Drop: st.drop, Back: st.back}
		if st.out != nil {
			out.Msg = st.out
		}
		return out
	case '[':
		type member struct {
			edit
			drop bool
		}
		var members []member
		var back []byte
		edited, dropped := false, false
		gjson.ParseBytes(msg).ForEach(func(_, el gjson.Result) bool {
			m := member{edit: edit{off: el.Index, raw: el.Raw}}
			if el.IsObject() {
				st := fn([]byte(el.Raw))
				m.repl, m.drop = st.out, st.drop
				back = append(back, st.back...)
				edited = edited || st.out != nil
				dropped = dropped || st.drop
			}
			members = append(members, m)
			return true
		})
		out = Out{Msg: msg, Back: back}
		if dropped {
			// Rebuild the batch from what is left of it.
			b := []byte{'['}
			for _, m := range members {
				if m.drop {
					continue
				}
				if len(b) > 1 {
					b = append(b, ',')
				}
				if m.repl != nil {
					b = append(b, m.repl...)
				} else {
					b = append(b, m.raw...)
				}
			}
			if len(b) == 1 {
				out.Drop = true
			}
			out.Msg = append(b, ']')
		} else if edited {
			var edits []edit
			for _, m := range members {
				if m.repl != nil {
					edits = append(edits, m.edit)
				}
			}
			if spliced, ok := splice(msg, edits); ok {
				out.Msg = spliced
			}
		}
		return out
	}
	return Out{Msg: msg}
}

func (r *Rewriter) clientMessage(msg []byte) step {
	method := gjson.GetBytes(msg, "method")
	if method.Type != gjson.String || (method.Str != "tools/list" && method.Str != "tools/call") {
		return step{}
	}
	k := kindList
	if method.Str == "tools/call" {
		k = kindCall
	}
	if id, ok := idKey(gjson.GetBytes(msg, "id")); ok {
		r.mu.Lock()
		r.pending[id] = k
		r.mu.Unlock()
	}
	if k == kindCall {
		if out, ok := r.inject(msg); ok {
			return step{out: out}
		}
	}
	return step{}
}

// inject puts the held token into a tools/call request's arguments, unless
// the tool is skipped or the call already carries one.
func (r *Rewriter) inject(msg []byte) ([]byte, bool) {
	params := gjson.GetBytes(msg, "params")
	if !params.IsObject() {
		return nil, false
	}
	name := params.Get("name")
	if name.Type != gjson.String || slices.Contains(r.cfg.SkipTools, name.Str) {
		return nil, false
	}
	if !gjson.ValidBytes(msg) {
		return nil, false // never edit what we cannot fully parse
	}
	args := gjson.GetBytes(msg, "params.arguments")
	switch {
	case args.IsObject():
		if token.Carries(args, r.keep) {
			return nil, false
		}
	case args.Exists() && args.Type != gjson.Null:
		return nil, false // not an object: not ours to fix
	}
	tok := r.Token()
	if tok == "" {
		return nil, false
	}
	raw := "{}"
	if args.IsObject() {
		raw = args.Raw
	}
	injected, err := token.Inject(raw, r.cfg.Arg, tok)
	if err != nil {
		r.logf("tools/call %s: %v", name.Str, err)
		return nil, false
	}
	if args.Exists() {
		if out, ok := splice(msg, []edit{{off: args.Index, raw: args.Raw, repl: injected}}); ok {
			return out, true
		}
	}
	out, err := sjson.SetRawBytes(slices.Clip(msg), "params.arguments", injected)
	if err != nil {
		return nil, false
	}
	return out, true
}

func (r *Rewriter) serverMessage(msg []byte) step {
	id, ok := idKey(gjson.GetBytes(msg, "id"))
	if !ok {
		return step{}
	}
	r.mu.Lock()
	k, ok := r.pending[id]
	r.mu.Unlock()
	if !ok {
		return step{}
	}
	// A server-to-client request may reuse an id of ours: ids are per
	// direction. Only a response (no method) answers our request.
	if gjson.GetBytes(msg, "method").Exists() {
		return step{}
	}
	r.mu.Lock()
	delete(r.pending, id)
	r.mu.Unlock()
	if !gjson.ValidBytes(msg) {
		return step{}
	}
	var out []byte
	switch k {
	case kindList:
		out, ok = r.rewriteList(msg)
	case kindCall:
		out, ok = r.rewriteResult(msg)
	}
	if !ok {
		return step{}
	}
	return step{out: out}
}

// rewriteList removes the token argument from the input schema of every
// tool (so the model is never asked for it), and the token key from the
// required list of every output schema (its structuredContent loses it).
func (r *Rewriter) rewriteList(msg []byte) ([]byte, bool) {
	res := gjson.GetBytes(msg, "result")
	tools := res.Get("tools")
	if !tools.IsArray() {
		return nil, false
	}
	// gjson's Index is the offset in msg, also through Get and ForEach.
	var edits []edit
	tools.ForEach(func(_, tool gjson.Result) bool {
		if !tool.IsObject() {
			return true
		}
		if n := tool.Get("name"); n.Type == gjson.String && slices.Contains(r.cfg.SkipTools, n.Str) {
			return true
		}
		for _, s := range [...]struct{ schema, key string }{{"inputSchema", r.cfg.Arg}, {"outputSchema", r.cfg.MetaKey}} {
			sch := tool.Get(s.schema)
			if !sch.IsObject() {
				continue
			}
			if out, ok := dropProperty(sch.Raw, s.key); ok {
				edits = append(edits, edit{off: sch.Index, raw: sch.Raw, repl: out})
			}
		}
		return true
	})
	return splice(msg, edits)
}

// dropProperty removes key from a JSON schema's properties and required.
func dropProperty(schema, key string) ([]byte, bool) {
	out := []byte(schema)
	changed := false
	path := "properties." + gjson.Escape(key)
	if gjson.GetBytes(out, path).Exists() {
		if d, err := sjson.DeleteBytes(out, path); err == nil {
			out, changed = d, true
		}
	}
	if req := gjson.GetBytes(out, "required"); req.IsArray() {
		kept := []byte{'['}
		dropped := false
		req.ForEach(func(_, v gjson.Result) bool {
			if v.Type == gjson.String && v.Str == key {
				dropped = true
				return true
			}
			if len(kept) > 1 {
				kept = append(kept, ',')
			}
			kept = append(kept, v.Raw...)
			return true
		})
		if dropped {
			if d, err := sjson.SetRawBytes(out, "required", append(kept, ']')); err == nil {
				out, changed = d, true
			}
		}
	}
	return out, changed
}

// rewriteResult takes the new token from a tools/call result (_meta, then
// structuredContent, then the text) and removes it, and the token it
// replaces, from everything the client would show the model.
func (r *Rewriter) rewriteResult(msg []byte) ([]byte, bool) {
	res := gjson.GetBytes(msg, "result")
	var toks []string
	if res.IsObject() {
		var texts []string
		res.Get("content").ForEach(func(_, block gjson.Result) bool {
			if block.Get("type").Str == "text" {
				if t := block.Get("text"); t.Type == gjson.String {
					texts = append(texts, t.Str)
				}
			}
			return true
		})
		found := token.Result{Meta: res.Get("_meta"), Structured: res.Get("structuredContent"), Texts: texts}
		tok, _, err := token.Choose(found, token.Rules{Key: r.cfg.MetaKey})
		switch {
		case err != nil:
			r.logf("a tools/call result: %v; the held token stays", err)
		case tok != "":
			toks = append(toks, tok)
			r.hold(tok)
		}
	}
	r.mu.Lock()
	if r.tok != "" && !slices.Contains(toks, r.tok) {
		toks = append(toks, r.tok)
	}
	r.mu.Unlock()
	if len(toks) == 0 {
		return nil, false
	}
	return r.redact(msg, res, toks)
}

// hold makes tok the connection's token, and with Persist stores it.
func (r *Rewriter) hold(tok string) {
	r.mu.Lock()
	same := r.tok == tok
	r.tok = tok
	r.mu.Unlock()
	if same || !r.cfg.Persist {
		return
	}
	err := r.cfg.Store.Put(state.Record{Token: tok, Server: r.cfg.Server, Session: r.cfg.Session, Client: "proxy"})
	if err != nil {
		r.logf("--persist: %v", err)
	}
}

// redact removes toks from the text blocks (also of embedded text
// resources), structuredContent and _meta of a result, and from an error's
// message; then, as a last guard, replaces any occurrence left anywhere in
// the message.
func (r *Rewriter) redact(msg []byte, res gjson.Result, toks []string) ([]byte, bool) {
	key := r.cfg.MetaKey
	var edits []edit
	// gjson's Index is the offset in msg, also through Get and ForEach.
	text := func(v gjson.Result) {
		if v.Type != gjson.String {
			return
		}
		s, changed := v.Str, false
		for _, tok := range toks {
			var c bool
			s, c = token.RedactText(s, key, token.Held{tok})
			changed = changed || c
		}
		if changed {
			edits = append(edits, edit{off: v.Index, raw: v.Raw, repl: rawjson.AppendString(nil, s)})
		}
	}
	object := func(v gjson.Result) {
		if !v.IsObject() {
			return
		}
		if b, changed := token.RedactJSON(v.Raw, key, toks); changed {
			edits = append(edits, edit{off: v.Index, raw: v.Raw, repl: []byte(b)})
		}
	}
	if res.IsObject() {
		res.Get("content").ForEach(func(_, block gjson.Result) bool {
			switch block.Get("type").Str {
			case "text":
				text(block.Get("text"))
			case "resource":
				text(block.Get("resource.text"))
			}
			return true
		})
		object(res.Get("structuredContent"))
		object(res.Get("_meta"))
	} else if e := gjson.GetBytes(msg, "error"); e.IsObject() {
		text(e.Get("message"))
	}
	out, changed := splice(msg, edits)
	if !changed {
		out = msg
	}
	// Last guard: whatever else carries the token (an error's data, a
	// content type we do not know) gets the placeholder.
	for _, tok := range toks {
		if bytes.Contains(out, []byte(tok)) && !bytes.ContainsAny([]byte(tok), `"\`) {
			guarded := bytes.ReplaceAll(out, []byte(tok), []byte(token.StandIn(key, tok)))
			if gjson.ValidBytes(guarded) {
				out, changed = guarded, true
			}
		}
	}
	return out, changed
}

// edit replaces raw, found at off in a message, by repl.
type edit struct {
	off  int
	raw  string
	repl []byte
}

// splice applies edits to msg (it does not modify msg). It reports false
// when there is nothing to do or when an edit's offset does not hold its
// raw text (the message is then left alone: never a guess).
func splice(msg []byte, edits []edit) ([]byte, bool) {
	if len(edits) == 0 {
		return nil, false
	}
	sort.Slice(edits, func(i, j int) bool { return edits[i].off < edits[j].off })
	size := len(msg)
	prev := 0
	for _, e := range edits {
		if e.off < prev || e.off+len(e.raw) > len(msg) || string(msg[e.off:e.off+len(e.raw)]) != e.raw {
			return nil, false
		}
		prev = e.off + len(e.raw)
		size += len(e.repl) - len(e.raw)
	}
	out := make([]byte, 0, size)
	prev = 0
	for _, e := range edits {
		out = append(out, msg[prev:e.off]...)
		out = append(out, e.repl...)
		prev = e.off + len(e.raw)
	}
	return append(out, msg[prev:]...), true
}
