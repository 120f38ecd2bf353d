package proxy

import (
	"slices"

	"github.com/interceptor-dev/interceptor/internal/rawjson"
	"github.com/tidwall/gjson"
)

// Human is a set of tools the proxy serves itself, beside the server's
// (interceptor proxy --human-tools): a person answers them, and their calls
// never reach the server.
type Human interface {
	// Tools are the tool objects (name, description, inputSchema), raw
	// JSON, added to every tools/list result.
	Tools() ([]string, error)
	// Has reports whether name is one of them.
	Has(name string) bool
	// Call answers one call (args: the arguments object, raw JSON). It may
	// block until a person answers (a held tool).
	Call(name, args string) (text string, isError bool)
}

// humanCall takes a tools/call of a human tool out of the stream: it is
// answered on its own goroutine (a held call waits for a person) through
// the connection's way back to the client, and never relayed.
func (r *Rewriter) humanCall(msg []byte) (step, bool) {
	h := r.cfg.Human
	if h == nil {
		return step{}, false
	}
	name := gjson.GetBytes(msg, "params.name")
	if name.Type != gjson.String || !h.Has(name.Str) {
		return step{}, false
	}
	id := gjson.GetBytes(msg, "id")
	if id.Type != gjson.String && id.Type != gjson.Number {
		return step{drop: true}, true // a notification cannot be answered
	}
	args := gjson.GetBytes(msg, "params.arguments")
	raw := "{}"
	if args.IsObject() {
		raw = rawjson.OneLine(args.Raw)
	}
	reply := func() []byte {
		text, isErr := h.Call(name.Str, raw)
		return append(completed(msg, toolResult(id.Raw, text, isErr)), '\n')
	}
	if r.later == nil {
		// No way to answer later (a relay without one): answer now.
		return step{drop: true, back: reply()}, true
	}
	later := r.later
	go func() { later(reply()) }()
	return step{drop: true}, true
}

// SetLater gives the rewriter its connection's way back to the client, for
// answers that come later than the message they answer (human tools).
func (r *Rewriter) SetLater(write func([]byte)) { r.later = write }

// addHumanTools appends the human tools to a tools/list result (msg, or
// the original when out is nil), unless the server already has one of
// that name (the server's wins; a person's tool must not shadow it).
func (r *Rewriter) addHumanTools(msg []byte) ([]byte, bool) {
	if r.cfg.Human == nil {
		return nil, false
	}
	tools := gjson.GetBytes(msg, "result.tools")
	if !tools.IsArray() {
		return nil, false
	}
	var names []string
	tools.ForEach(func(_, t gjson.Result) bool {
		names = append(names, t.Get("name").Str)
		return true
	})
	human, err := r.cfg.Human.Tools()
	if err != nil {
		r.logf("human tools not listed: %v", err)
		return nil, false
	}
	list := []byte(tools.Raw[:len(tools.Raw)-1])
	empty := len(tools.Array()) == 0
	added := false
	for _, t := range human {
		if slices.Contains(names, gjson.Get(t, "name").Str) {
			r.logf("human tool %q: the server has a tool of that name; its own is offered", gjson.Get(t, "name").Str)
			continue
		}
		if !empty {
			list = append(list, ',')
		}
		list = append(list, t...)
		empty, added = false, true
	}
	if !added {
		return nil, false
	}
	list = append(list, ']')
	return splice(msg, []edit{{off: tools.Index, raw: tools.Raw, repl: list}})
}

// toolResult is a tools/call result of one text block.
func toolResult(id, text string, isError bool) []byte {
	msg := []byte(`{"jsonrpc":"2.0","id":`)
	msg = append(msg, id...)
	msg = append(msg, `,"result":{"content":[{"type":"text","text":`...)
	msg = rawjson.AppendString(msg, text)
	msg = append(msg, "}]"...)
	if isError {
		msg = append(msg, `,"isError":true`...)
	}
	return append(msg, "}}"...)
}
