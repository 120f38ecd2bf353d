package proxy

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
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
	Server string // the server's name: the state store key, and in messages
	// Handles are the values carried, from a --handles file; nil: the one
	// handle the fields below describe (token.FlagSpec).
	Handles    []token.Spec
	Arg        string   // the tool argument the token goes into
	MetaKey    string   // the key the server returns the token under
	SkipTools  []string // tools never injected (and whose schema is left alone)
	KeepIf     []string // a call carrying one of these arguments (or Arg) is not injected
	StartTools []string // tools that start a session: one that returns no token retires the old one

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

// Specs are the handles the connection carries.
func (c Config) Specs() []token.Spec {
	if c.Handles != nil {
		return c.Handles
	}
	return []token.Spec{token.FlagSpec(c.Arg, c.MetaKey, c.MinLen, c.Pattern, c.StartTools, c.SkipTools, c.KeepIf)}
}

// Validate checks the options a user gave.
func (c Config) Validate() error {
	if c.Handles != nil {
		if err := token.CheckAll(c.Handles); err != nil {
			return err
		}
	} else if err := token.ValidateKey(c.Arg); err != nil {
		return fmt.Errorf("--arg: %w", err)
	}
	if c.Handles == nil {
		if err := token.ValidateKey(c.MetaKey); err != nil {
			return fmt.Errorf("--meta-key: %w", err)
		}
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

// pending is what a tracked request asked, so its response can be
// rewritten.
type pending struct {
	kind kind
	tool string // a tools/call's tool
	// carried is what the call passed in each handle's argument, as it
	// went to the server (token.Spec.Apply: an echo is not a new value).
	carried map[string]string
}

// argInfo is what a tool's input schema says of one argument.
type argInfo struct{ number bool }

// Rewriter holds the values of one connection (one client session) and
// rewrites the messages that cross it. FromClient and FromServer may be
// called from different goroutines.
type Rewriter struct {
	cfg   Config
	specs []token.Spec

	mu sync.Mutex
	// holding is what the session holds, by handle. It is replaced, never
	// modified, so a copy of it can be used without the lock. secrets are
	// the values the model reads only as stand-ins (token.Holding.Hidden),
	// each with its longest run that every spelling keeps (candidates).
	holding token.Holding
	secrets []secret
	// schemas are the tools' input schema properties, from the last
	// tools/list result (nil before one): which tools take a handle.
	schemas map[string]map[string]argInfo
	pending map[string]pending // request id (see idKey) -> what it asked
	later   func([]byte)       // writes to the client out of turn (SetLater)
	states  requestStates      // the server's requestStates the client got redacted (mrtr.go)
}

// secret is one value the model reads only as a stand-in.
type secret struct {
	name, value, run string
}

// New returns the rewriter of one connection. With Persist, it starts from
// the values held in the store for Server and Session, if any.
func New(cfg Config) (*Rewriter, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	r := &Rewriter{cfg: cfg, specs: cfg.Specs(), holding: token.Holding{}, pending: map[string]pending{}}
	if cfg.Persist {
		rec, err := cfg.Store.Get(cfg.Server, cfg.Session)
		switch {
		case errors.Is(err, state.ErrNotFound):
		case err != nil:
			r.logf("cannot resume the held values: %v", err)
		default:
			h := token.Holding{}
			n := 0
			for _, s := range r.specs {
				if l := rec.Live(s.Name); len(l.Values) > 0 || l.Withdrawn != "" {
					h[s.Name] = l
					n += len(l.Values)
				}
			}
			r.setHolding(h)
			r.logf("resumed %d value(s) for %q", n, cfg.Server)
		}
	}
	return r, nil
}

// setHolding makes h the connection's holding; the caller holds mu or is
// New.
func (r *Rewriter) setHolding(h token.Holding) {
	prev := map[string]string{}
	for _, s := range r.secrets {
		prev[s.value] = s.run
	}
	var secrets []secret
	for _, n := range h.Hidden(r.specs) {
		for _, v := range n.Held {
			run, ok := prev[v]
			if !ok {
				run = longestRun(v)
			}
			secrets = append(secrets, secret{name: n.Name, value: v, run: run})
		}
	}
	r.holding, r.secrets = h, secrets
}

// Token returns the value the first handle injects ("" when none): in flag
// mode, the session token.
func (r *Rewriter) Token() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.holding[r.specs[0].Name].Default
}

// Held returns every value held, of every handle, newest first per handle.
func (r *Rewriter) Held() token.Held {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out token.Held
	for _, s := range r.specs {
		out = append(out, r.holding[s.Name].Values...)
	}
	return out
}

// secretValues are the values the model reads only as stand-ins.
func (r *Rewriter) secretValues() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]string, len(r.secrets))
	for i, s := range r.secrets {
		out[i] = s.value
	}
	return out
}

// Holding returns what the connection holds. The caller must not modify
// it.
func (r *Rewriter) Holding() token.Holding {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.holding
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
	idle := len(r.pending) == 0 && len(r.secrets) == 0
	r.mu.Unlock()
	if idle && !rawjson.DepthExceeds(msg, rawjson.MaxDepth) && !bytes.Contains(msg, requestStateKey) {
		return Out{Msg: msg} // nothing asked that we rewrite, no token to hide, no state to replace: do not even look
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
	p := pending{kind: kindList}
	if method.Str == "tools/call" {
		p = pending{kind: kindCall, tool: gjson.GetBytes(msg, "params.name").Str}
		if st, ok := r.humanCall(msg); ok {
			return st // answered here, never relayed: nothing to track
		}
	}
	id, tracked := idKey(gjson.GetBytes(msg, "id"))
	if p.kind != kindCall {
		if tracked {
			r.mu.Lock()
			r.pending[id] = p
			r.mu.Unlock()
		}
		return step{}
	}
	st := r.call(msg)
	if tracked && !st.drop {
		sent := msg
		if st.out != nil {
			sent = st.out
		}
		args := gjson.GetBytes(sent, "params.arguments")
		p.carried = map[string]string{}
		for i := range r.specs {
			p.carried[r.specs[i].Name] = r.specs[i].Carried(args)
		}
		r.mu.Lock()
		r.pending[id] = p
		r.mu.Unlock()
	}
	return st
}

// call rewrites a tools/call request's arguments (token.Fill): every
// stand-in becomes the value it names (so the model can hand any value of
// this session to any argument, e.g. parent_session_token); a handle
// argument that is a near miss of one held value is repaired; a call that
// carries no value of a handle its tool takes gets the one held for it. A
// stand-in that names no held value is never forwarded, nor is a call that
// needs a value no longer injected (its start tool returned none): the
// call is answered with a tool error the model reads.
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
	f, err := token.Fill(raw, name.Str, r.specs, r.Holding(), r.schema(name.Str))
	refuse := func(why string) step {
		id := gjson.GetBytes(msg, "id")
		if id.Type != gjson.String && id.Type != gjson.Number {
			return step{drop: true}
		}
		return step{drop: true, back: append(completed(msg, toolError(id.Raw, why)), '\n')}
	}
	switch {
	case err != nil:
		var unknown *token.UnknownStandInError
		if errors.As(err, &unknown) {
			r.logf("tools/call %.64q names a value by a stand-in that no held value has; answered with a tool error", name.Str)
			return refuse(err.Error())
		}
		r.logf("tools/call %.64q: %v", name.Str, err)
		return step{}
	case len(f.Withheld) > 0:
		var msgs []string
		for _, w := range f.Withheld {
			msgs = append(msgs, w.Message())
			r.logf("tools/call %.64q needs %s, which is no longer injected (%s); answered with a tool error", name.Str, w.Handle, w.Why)
		}
		return refuse(strings.Join(msgs, "\n"))
	}
	for _, t := range f.Trace {
		if strings.HasPrefix(t, "repaired ") {
			r.logf("tools/call %.64q: %s", name.Str, t)
		}
	}
	r.retireOnStart(name.Str)
	if !f.Changed {
		return step{}
	}
	out := f.Args
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

// retireOnStart retires the value held for each handle tool starts over
// (token.Spec.Starting): the start's result mints the next one, and a start
// that mints none leaves nothing older to inject.
func (r *Rewriter) retireOnStart(tool string) {
	if !slices.ContainsFunc(r.specs, func(s token.Spec) bool { return s.StartedBy(tool) }) {
		return // most calls start nothing: no lock, no copy of the holding
	}
	r.mu.Lock()
	next := token.Holding{}
	maps.Copy(next, r.holding)
	changed := false
	for i := range r.specs {
		if l, ok := r.specs[i].Starting(next[r.specs[i].Name], tool); ok {
			next[r.specs[i].Name], changed = l, true
		}
	}
	if changed {
		r.setHolding(next)
	}
	r.mu.Unlock()
	if changed && r.cfg.Persist {
		r.persist(next)
	}
}

// schema tells token.Fill what tool's input schema (from the last
// tools/list) says of an argument; nil before any list was seen.
func (r *Rewriter) schema(tool string) token.Schema {
	r.mu.Lock()
	props, listed := r.schemas[tool]
	r.mu.Unlock()
	if !listed {
		return nil
	}
	return func(arg string) (has, known, number bool) {
		info, ok := props[arg]
		return ok, true, info.number
	}
}

// toolError is a tools/call result that tells the model why its call did
// not run.
func toolError(id, text string) []byte { return toolResult(id, text, true) }

func (r *Rewriter) serverMessage(msg []byte) step {
	var out []byte
	edited := false
	p := r.answers(msg)
	k := p.kind
	switch k {
	case kindList:
		r.learnSchemas(msg)
		out, edited = r.rewriteList(msg)
		from := msg
		if edited {
			from = out
		}
		if added, ok := r.addHumanTools(from); ok {
			out, edited = added, true
		}
	case kindCall:
		r.capture(msg, p)
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
// tracked request, which is then no longer pending; else the zero pending.
func (r *Rewriter) answers(msg []byte) pending {
	id, ok := idKey(gjson.GetBytes(msg, "id"))
	if !ok {
		return pending{}
	}
	r.mu.Lock()
	p, ok := r.pending[id]
	r.mu.Unlock()
	if !ok {
		return pending{}
	}
	// A server-to-client request may reuse an id of ours: ids are per
	// direction. Only a response (no method) answers our request.
	if gjson.GetBytes(msg, "method").Exists() {
		return pending{}
	}
	r.mu.Lock()
	delete(r.pending, id)
	r.mu.Unlock()
	if !gjson.ValidBytes(msg) {
		return pending{}
	}
	return p
}

// learnSchemas notes, from a tools/list result, which arguments each
// tool's input schema has (and which are numbers): the tools that take a
// handle whose spec names none. A paginated list adds to what is known.
func (r *Rewriter) learnSchemas(msg []byte) {
	tools := gjson.GetBytes(msg, "result.tools")
	if !tools.IsArray() {
		return
	}
	learned := map[string]map[string]argInfo{}
	tools.ForEach(func(_, tool gjson.Result) bool {
		name := tool.Get("name")
		if name.Type != gjson.String {
			return true
		}
		props := map[string]argInfo{}
		tool.Get("inputSchema.properties").ForEach(func(k, v gjson.Result) bool {
			t := v.Get("type")
			props[k.Str] = argInfo{number: t.Str == "number" || t.Str == "integer"}
			return true
		})
		learned[name.Str] = props
		return true
	})
	r.mu.Lock()
	defer r.mu.Unlock()
	if gjson.GetBytes(msg, "result.nextCursor").Exists() || r.schemas == nil {
		if r.schemas == nil {
			r.schemas = map[string]map[string]argInfo{}
		}
		maps.Copy(r.schemas, learned)
		return
	}
	r.schemas = learned
}

// rewriteList rewrites each tool's schemas for the handles it takes. A
// rotating handle's argument is removed from the input schema (the model is
// never asked for it), and the key it comes back under from the output
// schema (its structuredContent holds a stand-in). A stable handle, of
// which several values can be live, keeps its argument, made optional and
// described: interceptor fills it in, and a stand-in or a value shown
// earlier names another live one.
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
		name := tool.Get("name").Str
		in, out := tool.Get("inputSchema"), tool.Get("outputSchema")
		inEdit, outEdit := []byte(in.Raw), []byte(out.Raw)
		inChanged, outChanged := false, false
		for i := range r.specs {
			s := &r.specs[i]
			if !s.Takes(name, func(arg string) (bool, bool) { return in.Get("properties." + gjson.Escape(arg)).Exists(), true }) {
				continue
			}
			if in.IsObject() {
				var ed []byte
				var ok bool
				if s.Lifetime == token.Stable {
					ed, ok = optionalProperty(inEdit, s)
				} else {
					ed, ok = dropProperty(string(inEdit), s.Arg)
				}
				if ok {
					inEdit, inChanged = ed, true
				}
			}
			if out.IsObject() && s.Lifetime == token.Rotates && s.StandIns != token.StandInsNone {
				for _, src := range s.From {
					if src.JSON == "" || strings.Contains(src.JSON, ".") && !strings.Contains(src.JSON, `\.`) {
						continue // only top-level keys: a nested path's schema is the server's
					}
					if ed, ok := dropProperty(string(outEdit), unescapeKey(src.JSON)); ok {
						outEdit, outChanged = ed, true
					}
				}
			}
		}
		if inChanged {
			edits = append(edits, edit{off: in.Index, raw: in.Raw, repl: inEdit})
		}
		if outChanged {
			edits = append(edits, edit{off: out.Index, raw: out.Raw, repl: outEdit})
		}
		return true
	})
	return splice(msg, edits)
}

// unescapeKey is a top-level gjson key as it is.
func unescapeKey(path string) string {
	var b strings.Builder
	for i := 0; i < len(path); i++ {
		if path[i] == '\\' && i+1 < len(path) {
			i++
		}
		b.WriteByte(path[i])
	}
	return b.String()
}

// standInNote ends the description of a stable handle's argument.
const standInNote = "Filled in by interceptor: leave it out to use the current one. To use another live one, pass a value or a stand-in ([NAME … held by interceptor]) shown in an earlier result."

// optionalProperty makes a stable handle's argument optional in an input
// schema and says in its description that interceptor fills it in.
func optionalProperty(schema []byte, s *token.Spec) ([]byte, bool) {
	path := "properties." + gjson.Escape(s.Arg)
	prop := gjson.GetBytes(schema, path)
	if !prop.IsObject() {
		return nil, false
	}
	out := schema
	changed := false
	if desc := prop.Get("description").Str; !strings.Contains(desc, "Filled in by interceptor") {
		note := strings.Replace(standInNote, "NAME", s.Name, 1)
		if desc != "" {
			note = strings.TrimRight(desc, " ") + " " + note
		}
		if d, err := sjson.SetBytes(out, path+".description", note); err == nil {
			out, changed = d, true
		}
	}
	if d, ok := dropRequired(out, s.Arg); ok {
		out, changed = d, true
	}
	return out, changed
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
	if d, ok := dropRequired(out, key); ok {
		out, changed = d, true
	}
	return out, changed
}

// dropRequired removes key from a JSON schema's required list.
func dropRequired(schema []byte, key string) ([]byte, bool) {
	req := gjson.GetBytes(schema, "required")
	if !req.IsArray() {
		return nil, false
	}
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
	if !dropped {
		return nil, false
	}
	d, err := sjson.SetRawBytes(schema, "required", append(kept, ']'))
	return d, err == nil
}

// capture takes the values a tools/call result of tool mints, for each
// handle (token.Spec.Mint, Apply), as hook mode does. A result that
// carries different token-shaped values gives nothing (and one log line):
// never a guess. A start tool that returns no value retires the one held
// before.
func (r *Rewriter) capture(msg []byte, p pending) {
	tool := p.tool
	// No copy of a megabyte result: msg is not modified while res is used.
	res := gjson.Get(unsafe.String(unsafe.SliceData(msg), len(msg)), "result")
	if !res.IsObject() {
		return
	}
	found := token.Result{Meta: res.Get("_meta"), Structured: res.Get("structuredContent")}
	// Text blocks are unescaped only when some source may read them.
	if r.needsTexts(tool, found.Meta) {
		res.Get("content").ForEach(func(_, block gjson.Result) bool {
			if block.Get("type").Str == "text" {
				if t := block.Get("text"); t.Type == gjson.String {
					found.Texts = append(found.Texts, t.Str)
				}
			}
			return true
		})
	}
	r.mu.Lock()
	h := r.holding
	next := token.Holding{}
	maps.Copy(next, h)
	changed := false
	for i := range r.specs {
		s := &r.specs[i]
		m, err := s.MintFor(tool, found, h[s.Name]) // no prose lines once _meta carried it
		after, note := s.Apply(h[s.Name], tool, m, err, p.carried[s.Name])
		if note != "" {
			r.logf("%.64s: %s", tool, note)
		}
		if !sameLive(h[s.Name], after) {
			next[s.Name], changed = after, true
		}
	}
	if changed {
		r.setHolding(next)
	}
	r.mu.Unlock()
	if changed && r.cfg.Persist {
		r.persist(next)
	}
}

// needsTexts reports whether a source may read tool's text blocks: not
// when every source that reads tool finds its value in _meta.
func (r *Rewriter) needsTexts(tool string, meta gjson.Result) bool {
	for i := range r.specs {
		for _, src := range r.specs[i].From {
			if len(src.Tools) > 0 && !slices.Contains(src.Tools, tool) {
				continue
			}
			if src.Text != nil || src.Meta == "" || !meta.Get(gjson.Escape(src.Meta)).Exists() {
				if src.Text != nil || src.JSON != "" || src.Line != "" {
					return true
				}
			}
		}
	}
	return false
}

// persist writes the connection's holding to the store (--persist), so a
// restarted client resumes.
func (r *Rewriter) persist(h token.Holding) {
	err := r.cfg.Store.Update(r.cfg.Server, r.cfg.Session, "proxy", false, func(stored token.Holding) (token.Holding, bool) {
		for _, s := range r.specs {
			if l, ok := h[s.Name]; ok {
				stored[s.Name] = l
			}
		}
		return stored, true
	})
	if err != nil {
		r.logf("--persist: %v", err)
	}
}

func sameLive(a, b token.Live) bool {
	return a.Default == b.Default && a.Withdrawn == b.Withdrawn && a.MetaSeen == b.MetaSeen && slices.Equal(a.Values, b.Values)
}

// redact replaces every value the model reads only as a stand-in, in any
// spelling (JSON-escaped, "\\/" for "/", inside a text block that is itself
// JSON), with its stand-in: the model reads which value it is, never the
// value. validated says msg is known to be valid JSON; invalid JSON is
// redacted as text.
func (r *Rewriter) redact(msg []byte, validated bool) ([]byte, bool) {
	hidden := r.candidates(msg)
	if len(hidden) == 0 {
		return nil, false
	}
	var out string
	var changed bool
	text := unsafe.String(unsafe.SliceData(msg), len(msg)) // no copy: msg is not modified meanwhile
	if validated || gjson.ValidBytes(msg) {
		out, changed = token.RedactNamed(text, hidden)
	} else {
		out, changed = token.RedactNamedString(text, hidden)
	}
	if !changed {
		return nil, false
	}
	// No copy: out is a fresh string nobody else holds, and a relayed
	// message is written out, never written to.
	return unsafe.Slice(unsafe.StringData(out), len(out)), true
}

// candidates returns the secrets msg may hold, in any spelling
// token.RedactNamed replaces: as is, JSON-escaped (also "/" as "\\/"),
// percent-encoded, in JSON text inside a JSON string. All of them keep the
// value's runs of letters, digits and "-._~" as they are, unless msg uses
// \u escapes, which can spell any character: then every secret is a
// candidate. Looking for 64 values' spellings in every string of every
// message costs far more than one pass over the message that notes every
// 8-byte window in a bitmap, then one look-up per value (of the last 8
// bytes of its run; a false hit only costs a redaction pass that finds
// nothing).
func (r *Rewriter) candidates(msg []byte) []token.Named {
	r.mu.Lock()
	secrets := r.secrets
	r.mu.Unlock()
	if len(secrets) == 0 {
		return nil
	}
	all := len(secrets) <= 2 || bytes.Contains(msg, []byte(`\u`))
	var windows [1 << 10]uint64 // 65536 bits
	if !all {
		for i := 0; i+8 <= len(msg); i++ {
			h := windowHash(msg[i:])
			windows[h>>6] |= 1 << (h & 63)
		}
	}
	var out []token.Named
	for _, s := range secrets {
		if run := s.run; !all && len(run) >= 8 {
			if h := windowHash([]byte(run[len(run)-8:])); windows[h>>6]&(1<<(h&63)) == 0 {
				continue
			}
		}
		out = append(out, token.Named{Name: s.name, Held: token.Held{s.value}})
	}
	return out
}

// windowHash hashes the 8 bytes at the start of b to 16 bits.
func windowHash(b []byte) uint64 {
	return binary.LittleEndian.Uint64(b) * 0x9E3779B97F4A7C15 >> 48
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
