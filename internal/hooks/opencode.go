package hooks

import (
	"github.com/interceptor-dev/interceptor/internal/token"

	"github.com/tidwall/gjson"
)

// OpenCode speaks to the plugin shim recipes/opencode/interceptor.ts
// (observed with OpenCode 1.18.33). OpenCode has no command hooks; the shim
// pipes each tool.execute.before/after call to the binary as one JSON object
// {input, output}, exactly the plugin's two arguments:
//
//	before: {input: {tool: "S_T", sessionID, callID}, output: {args}}
//	after:  {input: {tool, sessionID, callID, args}, output: {_meta, content, isError, structuredContent?}}
//
// The reply is the set of output fields to replace: {"args": {…}} before,
// {"content": […], "structuredContent": {…}, "_meta": {…}} after. The shim
// applies each by mutating output in place, because OpenCode keeps its own
// reference: a reassigned output.args never reaches the server. For
// deliver, the shim also sends chat.message (a turn's start; prompt.go).
type OpenCode struct{}

func (OpenCode) Name() string { return "opencode" }

func (OpenCode) detect(p fields) bool {
	if p.get("hook").Str == "chat.message" {
		return p.get("input").IsObject() // prompt.go
	}
	return p.get("input").IsObject() && p.get("output").IsObject() && p.get("input.tool").Exists()
}

func (OpenCode) parse(p fields) (*Event, error) {
	if p.get("hook").Str == "chat.message" {
		return openCodePromptEvent(p)
	}
	session, err := stringField(p, "input.sessionID")
	if err != nil {
		return nil, err
	}
	if _, err := objectField(p, "output"); err != nil {
		return nil, err
	}
	// Only tool.execute.before has output.args.
	phase, name, inputPath := PhasePostTool, "tool.execute.after", "input.args"
	if p.get("output.args").Exists() {
		phase, name, inputPath = PhasePreTool, "tool.execute.before", "output.args"
	}
	ev, err := toolEvent(p, phase, name, session, "input.tool", inputPath)
	if err != nil {
		return nil, err
	}
	if phase == PhasePostTool {
		ev.result = func() token.Result { return mcpResult(p.get("output")) }
	}
	return ev, nil
}

// Tool matches OpenCode's <server>_<tool> names. The name alone cannot tell
// server "wf" with tool "admin_x" from server "wf_admin" with tool "x"; the
// README says so.
func (OpenCode) Tool(ev *Event, server string) (string, bool) {
	return OpenCodeClient.matchTool(ev.ToolName, server)
}

func (OpenCode) InputReply(_ *Event, args []byte) ([]byte, error) {
	return reply(field{"args", rawJSON(args)})
}

func (OpenCode) RedactReply(ev *Event, hidden []token.Named) ([]byte, error) {
	out := ev.fields.get("output")
	red, ok := redactResult(out, hidden)
	if !ok {
		return nil, nil
	}
	r := gjson.Parse(red)
	var fields []field
	for _, part := range []string{"content", "structuredContent", "_meta"} {
		if v := r.Get(part); v.Exists() && v.Raw != out.Get(part).Raw {
			fields = append(fields, field{part, rawJSON(v.Raw)})
		}
	}
	return reply(fields...)
}

// DecisionReply: {"deny":"reason"} makes the shim throw an Error with that
// reason (OpenCode reports it to the model as the tool's failure); an allow
// prints nothing, or {"args":{…}} with new input.
func (OpenCode) DecisionReply(ev *Event, d Decision) ([]byte, error) {
	if ev.Phase != PhasePreTool {
		return nil, ErrCannotRewrite
	}
	switch {
	case !d.Allow:
		return reply(field{"deny", d.denyReason()})
	case len(d.UpdatedInput) > 0:
		return reply(field{"args", rawJSON(d.UpdatedInput)})
	}
	return nil, nil
}
