package proxy

import (
	"errors"
	"slices"
	"strings"

	"github.com/interceptor-dev/interceptor/internal/carry"
	"github.com/interceptor-dev/interceptor/internal/token"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// This file is what the proxy does with a tools/call request on its way
// to the server: the held values go in (token.Fill), a start tool retires
// the one held before, and what each handle's argument carried is noted for
// the result (results.go).

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
		p.carried = make([]string, len(r.specs))
		for i := range r.specs {
			p.carried[i] = r.specs[i].Carried(args)
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
	// A start tool retires the value held before (carry.Retire): its result
	// mints the next one, and a start that mints none leaves nothing older
	// to inject. held's Update never fails.
	_ = carry.Retire(held{r}, r.specs, name.Str)
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

// schema tells token.Fill what tool's input schema (from the last
// tools/list) says of an argument; nil before any list was seen.
func (r *Rewriter) schema(tool string) token.Schema {
	r.mu.Lock()
	props, listed := r.schemas[tool]
	r.mu.Unlock()
	if !listed {
		return nil
	}
	return func(arg string) token.SchemaArg { return props[arg] }
}

// toolError is a tools/call result that tells the model why its call did
// not run.
func toolError(id, text string) []byte { return toolResult(id, text, true) }
