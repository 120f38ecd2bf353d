package hooks

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"
	"unsafe"

	"github.com/interceptor-dev/interceptor/internal/rawjson"
	"github.com/interceptor-dev/interceptor/internal/token"
	"github.com/tidwall/gjson"
)

// MaxPayload is the largest hook payload accepted. Real payloads are a few
// KiB; a tool result of several MiB is possible, a bigger one is refused
// rather than slowing the agent.
const MaxPayload = 8 << 20

// MaxDepth bounds JSON nesting. gjson recurses per level, and no client
// payload comes near this.
const MaxDepth = 512

// Phase is where in a tool call's life the event comes from.
type Phase int

const (
	PhaseOther Phase = iota
	PhasePreTool
	PhasePostTool
	PhaseSessionEnd
)

func (p Phase) String() string {
	switch p {
	case PhasePreTool:
		return "pre-tool"
	case PhasePostTool:
		return "post-tool"
	case PhaseSessionEnd:
		return "session-end"
	}
	return "other"
}

// ErrOtherClient means the payload came to this client's hook from another
// client that runs it too: Cursor runs the hooks of Claude Code's settings
// files beside its own, so with interceptor installed for both, the Claude
// Code hook stands aside and Cursor's own hook handles the call. The hook
// then does nothing and says nothing.
var ErrOtherClient = errors.New("the payload is another client's, whose own hook handles it")

// getenv is os.Getenv; tests replace it.
var getenv = os.Getenv

// ErrCannotRewrite means the client offers no way to make that change.
var ErrCannotRewrite = errors.New("client cannot rewrite this")

// Event is one hook invocation, normalized.
type Event struct {
	Client   Adapter
	Phase    Phase
	Name     string       // the event name as the client sent it, e.g. "PreToolUse"
	Session  string       // the client's session id; "" when it sent none
	ToolName string       // the tool name as the client sent it
	Input    gjson.Result // the tool arguments (a JSON object), when the event has them

	desc   *Client             // the client that sent it (Parse's)
	fields fields              // the payload's top-level fields, for rendering
	result func() token.Result // reads the tool result; see Result
	cached *token.Result
}

// matchTool matches the event's tool name against server's spelling under
// the client that sent it (names.go), for adapters whose payloads name the
// server only in the tool name.
func (ev *Event) matchTool(server string) (string, bool) {
	if ev.desc == nil {
		return "", false
	}
	return ev.desc.matchTool(ev.ToolName, server)
}

// Result is what the hook can see of the tool result (post-tool events). It
// is read on first use only: a large result costs nothing when the tool
// turns out to belong to another server.
func (ev *Event) Result() token.Result {
	if ev.cached == nil {
		var r token.Result
		if ev.result != nil {
			r = ev.result()
		}
		ev.cached = &r
	}
	return *ev.cached
}

// fields holds a payload's top-level fields as raw JSON, read in one pass
// (see rawjson): looking up an absent key with gjson scans the whole
// payload, and detection asks for several absent keys. Values are decoded
// only when asked for.
type fields map[string]string

func readFields(payload string) fields {
	f := make(fields, 16)
	rawjson.Fields(payload, func(k, v string) bool {
		if _, dup := f[k]; !dup { // the first of duplicate keys, as gjson.Get
			f[k] = v
		}
		return true
	})
	return f
}

// get reads a path whose first element is a top-level key.
func (f fields) get(path string) gjson.Result {
	head, rest, nested := strings.Cut(path, ".")
	raw, ok := f[head]
	switch {
	case !ok:
		return gjson.Result{}
	case nested:
		return gjson.Get(raw, rest)
	}
	return gjson.Parse(raw)
}

// Adapter is one client's hook format: reading its payloads, rendering its
// replies. The client's facts it needs (how it spells tool names) come
// with the Event, from the Client that sent it.
type Adapter interface {
	// Name is the client's --client name.
	Name() string
	// detect reports whether the payload looks like this client's.
	detect(f fields) bool
	// parse builds the Event from a payload already known to be valid JSON.
	parse(f fields) (*Event, error)
	// Tool reports whether the event's tool belongs to server and returns the
	// tool's own name (without the server prefix). It never guesses: when the
	// event does not name the server unambiguously, ok is false.
	Tool(ev *Event, server string) (tool string, ok bool)
	// InputReply renders the reply that makes the client call the tool with
	// args (the complete argument object) instead.
	InputReply(ev *Event, args []byte) ([]byte, error)
	// RedactReply renders the reply that replaces the result the model sees
	// with one where every value of hidden is replaced by its stand-in. It
	// returns nil when no token is visible anywhere, and ErrCannotRewrite
	// when the client cannot do it.
	RedactReply(ev *Event, hidden []token.Named) ([]byte, error)
	// DecisionReply renders a supervisor's decision on a pre-tool event. It
	// returns nil when the client's answer to that decision is to print
	// nothing (the call proceeds under the client's own rules), and
	// ErrCannotRewrite when the event cannot carry a decision at all.
	DecisionReply(ev *Event, d Decision) ([]byte, error)
}

// ClientNames are the values --client accepts besides "auto": the clients
// whose payloads are their own, in name order.
func ClientNames() []string {
	var names []string
	for _, c := range ByName() {
		if c.ownHooks() {
			names = append(names, c.Name)
		}
	}
	return names
}

// Lookup returns the adapter named name; "auto" or "" returns nil, nil.
func Lookup(name string) (Adapter, error) {
	if name == "" || name == "auto" {
		return nil, nil
	}
	if c, ok := FindClient(name); ok && c.ownHooks() {
		return c.Hooks, nil
	}
	return nil, fmt.Errorf("unknown client %q (want auto, %s)", name, strings.Join(ClientNames(), ", "))
}

// Parse validates a payload and normalizes it. With client nil the client is
// detected from the payload's fields. The Event refers into payload, which
// must not be modified while the Event is in use.
func Parse(payload []byte, client Adapter) (*Event, error) {
	payload = TrimBOM(payload)
	if len(bytes.TrimSpace(payload)) == 0 {
		return nil, errors.New("empty hook payload on stdin")
	}
	if len(payload) > MaxPayload {
		return nil, fmt.Errorf("hook payload is larger than %d MiB", MaxPayload>>20)
	}
	if rawjson.DepthExceeds(payload, MaxDepth) {
		return nil, fmt.Errorf("hook payload is nested deeper than %d levels", MaxDepth)
	}
	// No copy: a hook payload can be megabytes, and every field read after
	// this is a substring of it. Parse's contract: payload is not modified
	// while the Event is in use.
	s := unsafe.String(unsafe.SliceData(payload), len(payload))
	if !gjson.Valid(s) {
		return nil, errors.New("hook payload is not valid JSON")
	}
	if !gjson.Parse(s).IsObject() {
		return nil, errors.New("hook payload is not a JSON object")
	}
	f := readFields(s)
	var desc *Client
	if client == nil {
		for _, c := range Clients {
			if c.ownHooks() && c.Hooks.detect(f) {
				desc, client = c, c.Hooks
				break
			}
		}
		if client == nil {
			return nil, errors.New("hook payload is from no known client (use --client to name it)")
		}
	} else {
		desc, _ = FindClient(client.Name())
	}
	ev, err := client.parse(f)
	if err != nil {
		return nil, fmt.Errorf("%s payload: %w", client.Name(), err)
	}
	ev.Client, ev.desc, ev.fields = client, desc, f
	return ev, nil
}

// TrimBOM drops every byte-order mark that starts b. Cursor's agent on
// Windows writes one, or two, before each hook payload (orca#21421 saw
// EF BB BF EF BB BF); JSON itself has none, so a parser refuses the
// payload. Only leading marks go: whitespace stays as it was, and a mark
// later in the text is the text's own.
func TrimBOM(b []byte) []byte { return rawjson.TrimBOM(b) }

// stringField reads a field that must be a string when present.
func stringField(f fields, path string) (string, error) {
	v := f.get(path)
	switch v.Type {
	case gjson.String:
		return v.Str, nil
	case gjson.Null:
		return "", nil
	}
	if !v.Exists() {
		return "", nil
	}
	return "", fmt.Errorf("field %s is %s, not a string", path, typeName(v))
}

// objectField reads a field that must be a JSON object when present; a string
// holding a JSON object is accepted too (Cursor sends tool_input that way).
func objectField(f fields, path string) (gjson.Result, error) {
	v := f.get(path)
	switch {
	case !v.Exists(), v.Type == gjson.Null:
		return gjson.Result{}, nil
	case v.IsObject():
		return v, nil
	case v.Type == gjson.String:
		if s := strings.TrimSpace(v.Str); strings.HasPrefix(s, "{") && gjson.Valid(s) {
			return gjson.Parse(s), nil
		}
	}
	return gjson.Result{}, fmt.Errorf("field %s is %s, not an object", path, typeName(v))
}

func typeName(v gjson.Result) string {
	switch {
	case v.IsObject():
		return "an object"
	case v.IsArray():
		return "an array"
	}
	switch v.Type {
	case gjson.String:
		return "a string"
	case gjson.Number:
		return "a number"
	case gjson.True, gjson.False:
		return "a boolean"
	case gjson.Null:
		return "null"
	}
	return "missing"
}

// phases are a client's hook event names and their phases: a list, not a
// map, so it is static data and no hook builds it at start-up.
type phases []struct {
	name  string
	phase Phase
}

// of is the phase of the event named name (0: not one of them).
func (ps phases) of(name string) Phase {
	for _, p := range ps {
		if p.name == name {
			return p.phase
		}
	}
	return 0
}

// namedEvent parses the shape Claude Code, Codex, Gemini CLI and Cursor
// share: a session id at sessionPath, hook_event_name (mapped to a phase by
// phases; other names are PhaseOther), tool_name and tool_input. result
// reads a post-tool event's result, on first use.
func namedEvent(p fields, sessionPath string, names phases, result func(fields) token.Result) (*Event, error) {
	session, err := stringField(p, sessionPath)
	if err != nil {
		return nil, err
	}
	name := p.get("hook_event_name").Str
	phase := names.of(name)
	ev, err := toolEvent(p, phase, name, session, "tool_name", "tool_input")
	if err != nil {
		return nil, err
	}
	if phase == PhasePostTool {
		ev.result = func() token.Result { return result(p) }
	}
	return ev, nil
}

// toolEvent fills the fields every tool event shares.
func toolEvent(f fields, phase Phase, name, session, toolPath, inputPath string) (*Event, error) {
	ev := &Event{Phase: phase, Name: name, Session: session}
	var err error
	if ev.ToolName, err = stringField(f, toolPath); err != nil {
		return nil, err
	}
	if phase == PhasePreTool || phase == PhasePostTool {
		if ev.Input, err = objectField(f, inputPath); err != nil {
			return nil, err
		}
	}
	return ev, nil
}

// Cwd is the session's working directory as the payload says it ("cwd":
// Claude Code, Codex, Copilot CLI, Droid, Gemini CLI; Cline's first
// workspace root), "" when it says none. Views show it so a person tells
// sessions apart; it is the client's word, not checked.
func (ev *Event) Cwd() string {
	if v := ev.fields.get("cwd"); v.Type == gjson.String {
		return v.Str
	}
	if v := ev.fields.get("workspaceRoots.0"); v.Type == gjson.String {
		return v.Str
	}
	return ""
}
