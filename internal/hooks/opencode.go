package hooks

import (
	"github.com/interceptor-dev/interceptor/internal/carry"
	"github.com/interceptor-dev/interceptor/internal/rawjson"
	"github.com/interceptor-dev/interceptor/internal/token"
	"github.com/tidwall/gjson"
)

// OpenCode 1.18.33: a plugin shim; its opencode.json takes comments and
// trailing commas.
var OpenCodeClient = Client{
	Name: "opencode", Display: "OpenCode",
	ShellTool:      "bash", // the plugin's input.tool
	User:           Path{XDGConfigHome, "opencode/plugin/interceptor.ts"},
	Project:        Path{ProjectDir, ".opencode/plugin/interceptor.ts"},
	Layout:         Plugin,
	RewritesResult: true,
	Syntax:         Syntax{Comments: true, TrailingCommas: true},
	MCPServers: []ServerList{
		{Path: Path{XDGConfigHome, "opencode/opencode.json"}, Key: "mcp"},
		{Path: Path{XDGConfigHome, "opencode/opencode.jsonc"}, Key: "mcp"},
		{Path: Path{ProjectDir, "opencode.json"}, Key: "mcp"},
		{Path: Path{ProjectDir, "opencode.jsonc"}, Key: "mcp"},
	},
	// Its docs: {"type":"local","command":[...],"environment"} or
	// {"type":"remote","url","headers"}.
	MCPEntry: openCodeMCPEntry,
	Naming:   ToolNaming{Prefix: serverUnderscore},
	// OpenCode has no command hooks: the plugin shim runs deliver from
	// its chat.message hook, which OpenCode 1.18.33 runs on each new
	// user message before saving it (prompt.go's openCodePrompt).
	PromptEvent: "chat.message",
	Hooks:       OpenCode{},
	Headless:    &Headless{Argv: openCodeChatArgv, Output: OpenCodeJSON},
}

// OpenCodeJSON is what opencode run --format json prints.
const OpenCodeJSON Output = "opencode run --format json"

// openCodeChatArgv: opencode run, the next chats with --session, the
// sessionID its first chat printed.
func openCodeChatArgv(c ChatArgs) []string {
	argv := []string{"opencode", "run", "--format", "json"}
	if c.Resume {
		argv = append(argv, "--session", c.Session)
	}
	if c.Model != "" {
		argv = append(argv, "--model", c.Model)
	}
	return append(argv, "--", c.Prompt)
}

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
		ev.result = func() token.Result { return carry.ReadResult(p.get("output")) }
	}
	return ev, nil
}

// Tool matches OpenCode's <server>_<tool> names. The name alone cannot tell
// server "wf" with tool "admin_x" from server "wf_admin" with tool "x"; the
// README says so.
func (OpenCode) Tool(ev *Event, server string) (string, bool) {
	return ev.matchTool(server)
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

// promptContext: the parts the shim adds to the new user message
// (it fills in their id, sessionID and messageID). OpenCode saves them with
// the message, so the model reads them this turn and, as history, in later
// turns; a synthetic text part is sent to the model but is not the user's
// own text.
func (OpenCode) promptContext(text string) ([]byte, error) {
	part := rawjson.AppendString([]byte(`[{"type":"text","text":`), text)
	return reply(field{"parts", rawJSON(append(part, `,"synthetic":true}]`...))})
}

// openCodePromptEvent parses what the shim sends from OpenCode's
// chat.message hook: {"hook": "chat.message", "input": {sessionID, agent,
// model, messageID, variant}}. The hook's output (the new user message and
// its parts, attachments included) stays in the shim: deliver needs only
// the session.
func openCodePromptEvent(p fields) (*Event, error) {
	session, err := stringField(p, "input.sessionID")
	if err != nil {
		return nil, err
	}
	return &Event{Phase: PhaseOther, Name: "chat.message", Session: session}, nil
}

// openCodeMCPEntry is an entry of OpenCode's "mcp" (and Kilo CLI's).
var openCodeMCPEntry = MCPEntry{CommandArray: true, Env: "environment", Type: "type", Stdio: "local",
	HTTP: []URLKey{{"url", []string{"remote"}}}, Headers: "headers", Auth: []string{"oauth"}}
