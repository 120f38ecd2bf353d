// Package hooks turns each client's hook payload into one normalized Event and
// renders replies back in that client's own format. Each client lives in one
// file (claude.go, codex.go, gemini.go, opencode.go, cursor.go); nothing
// client-specific leaks past this package.
package hooks

import (
	"errors"
	"fmt"
	"strings"

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
	Result   token.Result // what the hook can see of the tool result (post-tool)

	payload gjson.Result // the whole payload, for rendering
}

// Adapter is one client's hook format.
type Adapter interface {
	// Name is the client's --client name.
	Name() string
	// detect reports whether the payload looks like this client's.
	detect(p gjson.Result) bool
	// parse builds the Event from a payload already known to be valid JSON.
	parse(p gjson.Result) (*Event, error)
	// Tool reports whether the event's tool belongs to server and returns the
	// tool's own name (without the server prefix). It never guesses: when the
	// event does not name the server unambiguously, ok is false.
	Tool(ev *Event, server string) (tool string, ok bool)
	// InputReply renders the reply that makes the client call the tool with
	// args (the complete argument object) instead.
	InputReply(ev *Event, args []byte) ([]byte, error)
	// RedactReply renders the reply that replaces the result the model sees
	// with one where tok is removed. It returns nil when the token is not
	// visible anywhere, and ErrCannotRewrite when the client cannot do it.
	RedactReply(ev *Event, key, tok string) ([]byte, error)
}

// Adapters lists the clients in detection order. Order matters: Codex sends a
// superset of Claude Code's fields, so it is asked first.
var Adapters = []Adapter{OpenCode{}, Cursor{}, Codex{}, Gemini{}, ClaudeCode{}}

// ClientNames are the values --client accepts besides "auto".
func ClientNames() []string {
	names := make([]string, len(Adapters))
	for i, a := range Adapters {
		names[i] = a.Name()
	}
	return names
}

// Lookup returns the adapter named name; "auto" or "" returns nil, nil.
func Lookup(name string) (Adapter, error) {
	if name == "" || name == "auto" {
		return nil, nil
	}
	for _, a := range Adapters {
		if a.Name() == name {
			return a, nil
		}
	}
	return nil, fmt.Errorf("unknown client %q (want auto, %s)", name, strings.Join(ClientNames(), ", "))
}

// Parse validates a payload and normalizes it. With client nil the client is
// detected from the payload's fields.
func Parse(payload []byte, client Adapter) (*Event, error) {
	if len(strings.TrimSpace(string(payload))) == 0 {
		return nil, errors.New("empty hook payload on stdin")
	}
	if len(payload) > MaxPayload {
		return nil, fmt.Errorf("hook payload is larger than %d MiB", MaxPayload>>20)
	}
	if err := checkDepth(payload); err != nil {
		return nil, err
	}
	if !gjson.ValidBytes(payload) {
		return nil, errors.New("hook payload is not valid JSON")
	}
	p := gjson.ParseBytes(payload)
	if !p.IsObject() {
		return nil, errors.New("hook payload is not a JSON object")
	}
	if client == nil {
		for _, a := range Adapters {
			if a.detect(p) {
				client = a
				break
			}
		}
		if client == nil {
			return nil, errors.New("hook payload is from no known client (use --client to name it)")
		}
	}
	ev, err := client.parse(p)
	if err != nil {
		return nil, fmt.Errorf("%s payload: %w", client.Name(), err)
	}
	ev.Client = client
	ev.payload = p
	return ev, nil
}

// checkDepth refuses JSON nested deeper than MaxDepth, before any recursive
// parser sees it.
func checkDepth(data []byte) error {
	depth := 0
	inString := false
	for i := 0; i < len(data); i++ {
		c := data[i]
		if inString {
			switch c {
			case '\\':
				i++
			case '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '{', '[':
			depth++
			if depth > MaxDepth {
				return fmt.Errorf("hook payload is nested deeper than %d levels", MaxDepth)
			}
		case '}', ']':
			depth--
		}
	}
	return nil
}

// stringField reads a field that must be a string when present.
func stringField(p gjson.Result, path string) (string, error) {
	v := p.Get(path)
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
func objectField(p gjson.Result, path string) (gjson.Result, error) {
	v := p.Get(path)
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

// toolEvent fills the fields every tool event shares.
func toolEvent(p gjson.Result, phase Phase, name, session, toolPath, inputPath string) (*Event, error) {
	ev := &Event{Phase: phase, Name: name, Session: session}
	var err error
	if ev.ToolName, err = stringField(p, toolPath); err != nil {
		return nil, err
	}
	if phase == PhasePreTool || phase == PhasePostTool {
		if ev.Input, err = objectField(p, inputPath); err != nil {
			return nil, err
		}
	}
	return ev, nil
}
