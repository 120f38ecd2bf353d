package proxy

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"sync"
	"unsafe"

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
	KeepIf    []string // a call carrying one of these arguments (or Arg) is not injected

	// MinLen and Pattern say what counts as a token in a result, as in
	// hook mode (token.Rules).
	MinLen  int
	Pattern *regexp.Regexp

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

	// Human, if set, adds tools a person answers (human.go).
	Human Human
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
	cfg   Config
	keep  []string // KeepIf plus Arg
	rules token.Rules

	mu sync.Mutex
	// held are the tokens of this session, newest first. The slice is
	// replaced, never modified, so a copy of it can be used without the
	// lock. runs[i] is held[i]'s longest run that every spelling keeps.
	held    token.Held
	runs    []string
	pending map[string]kind // request id (see idKey) -> what it asked
	later   func([]byte)    // writes to the client out of turn (SetLater)
	states  requestStates   // the server's requestStates the client got redacted (mrtr.go)
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
	r := &Rewriter{
		cfg: cfg, keep: keep,
		rules:   token.Rules{Key: cfg.MetaKey, MinLen: cfg.MinLen, Pattern: cfg.Pattern},
		pending: map[string]kind{},
	}
	if cfg.Persist {
		rec, err := cfg.Store.Get(cfg.Server, cfg.Session)
		switch {
		case errors.Is(err, state.ErrNotFound):
		case err != nil:
			r.logf("cannot resume the held token: %v", err)
		default:
			for _, t := range rec.Held() {
				if token.Validate(t) == nil && len(r.held) < token.MaxHeld {
					r.held = append(r.held, t)
				}
			}
			r.runs = spellingRuns(r.held, nil, nil)
			if len(r.held) == 0 {
				r.logf("the held token for %q is not valid; starting without one", cfg.Server)
			} else {
				r.logf("resumed %d token(s) for %q, the latest %s", len(r.held), cfg.Server, token.StandIn(cfg.MetaKey, r.held[0]))
			}
		}
	}
	return r, nil
}

// Token returns the latest token held ("" when none).
func (r *Rewriter) Token() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.held) == 0 {
		return ""
	}
	return r.held[0]
}

// Held returns the tokens held, newest first. The caller must not modify
// it.
func (r *Rewriter) Held() token.Held {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.held
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
	return r.each(msg, false, r.clientStep)
}

// FromServer returns what becomes of msg on its way to the client: the
// responses to tracked requests are rewritten, and every held token, in any
// message (notifications and server requests such as sampling too), is
// replaced by its stand-in. Anything else goes on as it is.
func (r *Rewriter) FromServer(msg []byte) Out {
	r.mu.Lock()
	idle := len(r.pending) == 0 && len(r.held) == 0
	r.mu.Unlock()
	if idle && !rawjson.DepthExceeds(msg, rawjson.MaxDepth) {
		return Out{Msg: msg} // nothing asked that we rewrite, no token to hide: do not even look
	}
	return r.each(msg, true, r.serverStep)
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
	default: // an object, or not JSON-RPC at all (which may still hold a token)
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
			st := fn([]byte(el.Raw))
			m.repl, m.drop = st.out, st.drop
			back = append(back, st.back...)
			edited = edited || st.out != nil
			dropped = dropped || st.drop
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
}

func (r *Rewriter) clientMessage(msg []byte) step {
	method := gjson.GetBytes(msg, "method")
	if method.Type != gjson.String || (method.Str != "tools/list" && method.Str != "tools/call") {
		return step{}
	}
	k := kindList
	if method.Str == "tools/call" {
		k = kindCall
		if st, ok := r.humanCall(msg); ok {
			return st // answered here, never relayed: nothing to track
		}
	}
	if id, ok := idKey(gjson.GetBytes(msg, "id")); ok {
		r.mu.Lock()
		r.pending[id] = k
		r.mu.Unlock()
	}
	if k == kindCall {
		return r.call(msg)
	}
	return step{}
}

// call rewrites a tools/call request's arguments: every stand-in becomes
// the token it names (so the model can hand any token of this session to
// any argument, e.g. parent_session_token), and a call that carries no
// token gets the latest one, unless its tool is skipped. A stand-in that
// names no held token is never forwarded: the call is answered with a tool
// error the model reads.
func (r *Rewriter) call(msg []byte) step {
	params := gjson.GetBytes(msg, "params")
	if !params.IsObject() {
		return step{}
	}
	name := params.Get("name")
	if name.Type != gjson.String {
		return step{}
	}
	if !gjson.ValidBytes(msg) {
		return step{} // never edit what we cannot fully parse
	}
	args := gjson.GetBytes(msg, "params.arguments")
	if args.Exists() && args.Type != gjson.Null && !args.IsObject() {
		return step{} // not an object: not ours to fix
	}
	raw := "{}"
	if args.IsObject() {
		raw = args.Raw
	}
	held := r.Held()
	out, changed, err := token.ResolveStandIns(raw, held)
	if err != nil {
		r.logf("tools/call %.64q names a token by a stand-in that no held token has; answered with a tool error", name.Str)
		id := gjson.GetBytes(msg, "id")
		if id.Type != gjson.String && id.Type != gjson.Number {
			return step{drop: true}
		}
		return step{drop: true, back: append(completed(msg, toolError(id.Raw, err.Error())), '\n')}
	}
	if len(held) > 0 && !slices.Contains(r.cfg.SkipTools, name.Str) && !token.Carries(gjson.Parse(out), r.keep) {
		injected, err := token.Inject(out, r.cfg.Arg, held[0])
		if err != nil {
			r.logf("tools/call %.64q: %v", name.Str, err)
		} else {
			out, changed = string(injected), true
		}
	}
	if !changed {
		return step{}
	}
	if args.Exists() {
		if edited, ok := splice(msg, []edit{{off: args.Index, raw: args.Raw, repl: []byte(out)}}); ok {
			return step{out: edited}
		}
	}
	edited, err := sjson.SetRawBytes(slices.Clip(msg), "params.arguments", []byte(out))
	if err != nil {
		return step{}
	}
	return step{out: edited}
}

// toolError is a tools/call result that tells the model why its call did
// not run.
func toolError(id, text string) []byte { return toolResult(id, text, true) }

func (r *Rewriter) serverMessage(msg []byte) step {
	var out []byte
	edited := false
	k := r.answers(msg)
	switch k {
	case kindList:
		out, edited = r.rewriteList(msg)
		from := msg
		if edited {
			from = out
		}
		if added, ok := r.addHumanTools(from); ok {
			out, edited = added, true
		}
	case kindCall:
		r.capture(msg)
	}
	if !edited {
		out = msg
	}
	// An answer to a tracked request was validated; its rewrite keeps it
	// valid.
	if redacted, ok := r.redact(out, k != 0); ok {
		out, edited = redacted, true
	}
	if !edited {
		return step{}
	}
	return step{out: out}
}

// answers returns what msg answers when it is the (valid) response to a
// tracked request, which is then no longer pending; else 0.
func (r *Rewriter) answers(msg []byte) kind {
	id, ok := idKey(gjson.GetBytes(msg, "id"))
	if !ok {
		return 0
	}
	r.mu.Lock()
	k, ok := r.pending[id]
	r.mu.Unlock()
	if !ok {
		return 0
	}
	// A server-to-client request may reuse an id of ours: ids are per
	// direction. Only a response (no method) answers our request.
	if gjson.GetBytes(msg, "method").Exists() {
		return 0
	}
	r.mu.Lock()
	delete(r.pending, id)
	r.mu.Unlock()
	if !gjson.ValidBytes(msg) {
		return 0
	}
	return k
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

// capture takes the new token from a tools/call result: token.Choose's
// rules, as in hook mode. A result that carries different token-shaped
// values gives nothing (and one log line): never a guess.
func (r *Rewriter) capture(msg []byte) {
	res := gjson.GetBytes(msg, "result")
	if !res.IsObject() {
		return
	}
	found := token.Result{Meta: res.Get("_meta"), Structured: res.Get("structuredContent")}
	// With _meta.<key> present, Choose looks no further: do not unescape
	// the text blocks for nothing.
	if !found.Meta.Get(gjson.Escape(r.cfg.MetaKey)).Exists() {
		res.Get("content").ForEach(func(_, block gjson.Result) bool {
			if block.Get("type").Str == "text" {
				if t := block.Get("text"); t.Type == gjson.String {
					found.Texts = append(found.Texts, t.Str)
				}
			}
			return true
		})
	}
	tok, _, err := token.Choose(found, r.rules)
	switch {
	case err != nil:
		r.logf("a tools/call result: %v; the held token stays", err)
	case tok != "":
		r.hold(tok)
	}
}

// hold makes tok the connection's latest token, keeping the ones before it
// (token.MaxHeld in all), and with Persist stores it.
func (r *Rewriter) hold(tok string) {
	r.mu.Lock()
	same := len(r.held) > 0 && r.held[0] == tok
	if !same {
		held := r.held.Push(tok)
		r.runs = spellingRuns(held, r.held, r.runs)
		r.held = held
	}
	r.mu.Unlock()
	if same || !r.cfg.Persist {
		return
	}
	err := r.cfg.Store.Put(state.Record{Token: tok, Server: r.cfg.Server, Session: r.cfg.Session, Client: "proxy"})
	if err != nil {
		r.logf("--persist: %v", err)
	}
}

// redact replaces every held token in msg, in any spelling (JSON-escaped,
// "\/" for "/", inside a text block that is itself JSON), with its stand-in:
// the model reads which token it is, never the token. validated says msg
// is known to be valid JSON; invalid JSON is redacted as text.
func (r *Rewriter) redact(msg []byte, validated bool) ([]byte, bool) {
	held := r.candidates(msg)
	if len(held) == 0 {
		return nil, false
	}
	var out string
	var changed bool
	text := unsafe.String(unsafe.SliceData(msg), len(msg)) // no copy: msg is not modified meanwhile
	if validated || gjson.ValidBytes(msg) {
		out, changed = token.RedactResult(text, r.cfg.MetaKey, held)
	} else {
		out, changed = token.RedactString(text, r.cfg.MetaKey, held)
	}
	if !changed {
		return nil, false
	}
	return []byte(out), true
}

// candidates returns the held tokens that msg may hold, in any spelling
// token.RedactResult replaces: as is, JSON-escaped (also "/" as "\/"),
// percent-encoded, in JSON text inside a JSON string. All of them keep the
// token's runs of letters, digits and "-._~" as they are, unless msg uses
// \u escapes, which can spell any character: then every token is a
// candidate. Looking for 64 tokens' spellings in every string of every
// message costs far more than one pass over the message that notes every
// 8-byte window in a bitmap, then one look-up per token (of the last 8
// bytes of its run; a false hit only costs a redaction pass that finds
// nothing).
func (r *Rewriter) candidates(msg []byte) token.Held {
	r.mu.Lock()
	held, runs := r.held, r.runs
	r.mu.Unlock()
	if len(held) <= 2 || bytes.Contains(msg, []byte(`\u`)) {
		return held
	}
	var windows [1 << 10]uint64 // 65536 bits
	for i := 0; i+8 <= len(msg); i++ {
		h := windowHash(msg[i:])
		windows[h>>6] |= 1 << (h & 63)
	}
	var out token.Held
	for i, tok := range held {
		if run := runs[i]; len(run) >= 8 {
			if h := windowHash([]byte(run[len(run)-8:])); windows[h>>6]&(1<<(h&63)) == 0 {
				continue
			}
		}
		out = append(out, tok)
	}
	return out
}

// windowHash hashes the 8 bytes at the start of b to 16 bits.
func windowHash(b []byte) uint64 {
	return binary.LittleEndian.Uint64(b) * 0x9E3779B97F4A7C15 >> 48
}

// spellingRuns returns each token's longest run of bytes that no spelling
// changes (see candidates). held is usually prev.Push(held[0]): the runs of
// the tokens it kept from prev are reused (a wrong guess only costs
// computing a run afresh).
func spellingRuns(held, prev token.Held, prevRuns []string) []string {
	runs := make([]string, len(held))
	j := 0
	for i, tok := range held {
		if i > 0 {
			for j < len(prev) && (prev[j] == held[0] || prev[j] == "") {
				j++
			}
			if j < len(prev) && prev[j] == tok {
				runs[i] = prevRuns[j]
				j++
				continue
			}
		}
		runs[i] = longestRun(tok)
	}
	return runs
}

// longestRun returns the end (at most 16 bytes) of the longest run of
// unreserved bytes of tok: any part of the run is as sound a test, and
// tokens that share a header (JWTs, HMACs of one server) differ at the end.
func longestRun(tok string) string {
	run, start := "", 0
	for j := 0; j <= len(tok); j++ {
		if j < len(tok) && isUnreserved(tok[j]) {
			continue
		}
		if j-start > len(run) {
			run = tok[start:j]
		}
		start = j + 1
	}
	return run[max(0, len(run)-16):]
}

// isUnreserved reports whether c is kept as it is by JSON escaping and by
// percent-encoding (RFC 3986's unreserved set).
func isUnreserved(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~'
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
