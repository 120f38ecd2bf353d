package proxy

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"

	"github.com/interceptor-dev/interceptor/internal/carry"
	"github.com/interceptor-dev/interceptor/internal/rawjson"
	"github.com/interceptor-dev/interceptor/internal/state"
	"github.com/interceptor-dev/interceptor/internal/token"
	"github.com/tidwall/gjson"
)

// Config is the handle carrying of one proxied connection. The options
// mean what they mean in hook mode.
type Config struct {
	Server string // the server's name: the state store key, and in messages
	// Options say what is carried (carry.Table): the proxy takes the
	// options whose Takers include carry.Proxy (--arg, --handles, ...);
	// Servers, NotServers, Sessionless and Redact are hook mode's.
	carry.Options

	// Persist also writes each new value to Store under Session (and as the
	// server's current record), and starts from the values held there, so a
	// restarted client resumes.
	Persist bool
	Store   *state.Store
	Session string

	// MaxMessage is the largest message relayed, in bytes (0:
	// DefaultMaxMessage).
	MaxMessage int

	// Log receives the proxy's own diagnostics, one line each (never a
	// value). Nil discards them.
	Log io.Writer

	// Human, if set, adds tools a person answers (human.go).
	Human Human
}

// Validate checks the options a user gave.
func (c Config) Validate() error {
	if err := c.Options.ValidateHandles(); err != nil {
		return err
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
	carried []string // by spec
}

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
	schemas map[string]map[string]token.SchemaArg
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
			h := carry.Resume(r.specs, rec.Live)
			n := 0
			for _, l := range h {
				n += len(l.Values)
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
// tracked, tools/call arguments get the values held. Anything else goes on
// as it is, the same slice.
func (r *Rewriter) FromClient(msg []byte) Out {
	return r.each(msg, false, r.clientStep)
}

// FromServer returns what becomes of msg on its way to the client: the
// responses to tracked requests are rewritten, and every held value, in any
// message (notifications and server requests such as sampling too), is
// replaced by its stand-in. Anything else goes on as it is.
func (r *Rewriter) FromServer(msg []byte) Out {
	r.mu.Lock()
	idle := len(r.pending) == 0 && len(r.secrets) == 0
	r.mu.Unlock()
	if idle && !rawjson.DepthExceeds(msg, rawjson.MaxDepth) && !bytes.Contains(msg, requestStateKey) {
		return Out{Msg: msg} // nothing asked that we rewrite, no value to hide, no state to replace: do not even look
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
	default: // an object, or not JSON-RPC at all (which may still hold a value)
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
