package hooks

import (
	"time"

	"github.com/interceptor-dev/interceptor/internal/token"
	"github.com/tidwall/gjson"
)

// GitHub Copilot CLI 1.0.102: its own file in ~/.copilot/hooks/ (every
// *.json there is read) or the repository's .github/hooks/, in Claude
// Code's nested groups under camelCase events; a matcher must match the
// whole tool name. Timeout in seconds, default 30 (its docs).
var CopilotClient = Client{
	Name: "copilot", Display: "Copilot CLI",
	ShellTool: "bash",
	User:      Path{HomeDir, ".copilot/hooks/interceptor.json"},
	Project:   Path{ProjectDir, ".github/hooks/interceptor.json"},
	Layout:    Grouped, PreTool: "preToolUse", PostTool: "postToolUse",
	TimeoutUnit: time.Second, TimeoutDefault: 30 * time.Second,
	RewritesResult: true, MatchWholeName: true, NoApprove: true,
	// Its permissionRequest hook (1.0.102) could carry approvals
	// ({"behavior":"allow"|"deny"}, timeoutSec per hook), but every way it
	// fails is open: a timeout, a crash's empty output and {} fall through
	// to its permission flow, which --allow-all-tools allows; and its stdin
	// is neither documented nor observed (recipes/copilot.md).
	NoApproveWhy: "its permissionRequest hook fails open (a timeout or an empty answer falls through to Copilot's own permission flow, which --allow-all-tools allows) and its payload is not documented or observed; see recipes/copilot.md",
	RedactCaveat: "Copilot CLI writes the injected arguments back into the model's own earlier tool calls, so the model sees the token there even with --redact",
	Skeleton:     "{\n  \"version\": 1\n}\n",
	Syntax:       Syntax{Rejected: "it logs Invalid hook configuration and runs none of the file's hooks"},
	// As `copilot mcp list --json` 1.0.102 showed them: the user's file,
	// and a trusted project's .mcp.json, else its .github/mcp.json.
	// Servers given with --additional-mcp-config are not seen here.
	MCPServers: []ServerList{
		{Path: Path{HomeDir, ".copilot/mcp-config.json"}, Key: "mcpServers"},
		{Path: Path{ProjectDir, ".mcp.json"}, Key: "mcpServers"},
		{Path: Path{ProjectDir, ".github/mcp.json"}, Key: "mcpServers"},
	},
	// Its docs: {"type":"local","command","args","env","tools"} or
	// {"type":"http","url","headers","tools"} ("sse": the older one).
	MCPEntry: MCPEntry{Env: "env", Type: "type", Stdio: "local", HTTP: []URLKey{{"url", []string{"http"}}}, Headers: "headers"},
	Naming:   ToolNaming{Prefix: serverDash},
	Hooks:    Copilot{},
}

// Copilot speaks GitHub Copilot CLI's hooks (observed with 1.0.102), for
// hooks configured under the camelCase events preToolUse / postToolUse.
// The payload does not name its event; only postToolUse has a result:
//
//	preToolUse:  {sessionId, timestamp, cwd, toolName: "S-T", toolArgs}
//	postToolUse: {…, toolResult: {resultType, textResultForLlm}}
//
// toolArgs is an object (a JSON string in older versions). The result is
// text only: the content's text, with structuredContent appended as JSON
// text; _meta never reaches a hook.
//
// Out (pre):  {"modifiedArgs":{…}}, which replaces the arguments; no
// permission decision, so the user's own tool rules still apply.
// Out (post): {"modifiedResult":{"resultType":…,"textResultForLlm":…}}.
//
// Copilot writes rewritten arguments back into the assistant's own tool
// call in the conversation, so the model sees an injected token there even
// when every result is redacted.
//
// Hooks configured under PascalCase events (PreToolUse, PostToolUse) get a
// snake_case payload instead: {hook_event_name, session_id, timestamp (an
// ISO string), cwd, tool_name, tool_input, tool_result: {result_type,
// text_result_for_llm}}. Their pre-tool reply is Claude Code's
// hookSpecificOutput.updatedInput; a result rewrite there is not verified,
// so capture does not offer one.
type Copilot struct{}

func (Copilot) Name() string { return "copilot" }

// detect: the camelCase payload by its own field names; the snake_case one
// is Claude Code's but for a timestamp (Claude Code sends none on tool
// events) or tool_result (Claude Code's is tool_response).
func (Copilot) detect(p fields) bool {
	if p.get("sessionId").Exists() && p.get("toolName").Exists() {
		return true
	}
	return p.get("hook_event_name").Exists() && p.get("tool_name").Exists() &&
		(p.get("timestamp").Type == gjson.String || p.get("tool_result").Exists())
}

// snake reports whether the event came in the snake_case payload.
func (ev *Event) snake() bool { return ev.fields.get("hook_event_name").Exists() }

func (Copilot) parse(p fields) (*Event, error) {
	if p.get("hook_event_name").Exists() {
		return namedEvent(p, "session_id", claudePhases, func(p fields) token.Result {
			if t := p.get("tool_result.text_result_for_llm"); t.Type == gjson.String {
				return token.Result{Texts: []string{t.Str}}
			}
			return token.Result{}
		})
	}
	session, err := stringField(p, "sessionId")
	if err != nil {
		return nil, err
	}
	phase, name := PhaseOther, ""
	switch {
	case p.get("toolResult").Exists():
		phase, name = PhasePostTool, "postToolUse"
	case p.get("toolName").Exists():
		phase, name = PhasePreTool, "preToolUse"
	}
	ev, err := toolEvent(p, phase, name, session, "toolName", "toolArgs")
	if err != nil {
		return nil, err
	}
	if phase == PhasePostTool {
		ev.result = func() token.Result { return copilotResult(p.get("toolResult")) }
	}
	return ev, nil
}

// copilotResult reads {resultType, textResultForLlm}.
func copilotResult(res gjson.Result) token.Result {
	if t := res.Get("textResultForLlm"); t.Type == gjson.String {
		return token.Result{Texts: []string{t.Str}}
	}
	return token.Result{}
}

func (Copilot) Tool(ev *Event, server string) (string, bool) {
	return ev.matchTool(server)
}

func (Copilot) InputReply(ev *Event, args []byte) ([]byte, error) {
	if ev.snake() {
		return ClaudeCode{}.InputReply(ev, args)
	}
	return reply(field{"modifiedArgs", rawJSON(args)})
}

func (Copilot) RedactReply(ev *Event, hidden []token.Named) ([]byte, error) {
	if ev.snake() {
		return nil, ErrCannotRewrite
	}
	res := ev.fields.get("toolResult")
	text := res.Get("textResultForLlm")
	if text.Type != gjson.String {
		return nil, nil
	}
	red, ok := token.RedactNamedText(text.Str, hidden)
	if !ok {
		return nil, nil
	}
	kind := res.Get("resultType").Str
	if kind == "" {
		kind = "success"
	}
	return reply(
		field{"modifiedResult.resultType", kind},
		field{"modifiedResult.textResultForLlm", red},
	)
}

// DecisionReply: {"permissionDecision":"allow"|"deny",
// "permissionDecisionReason":…, "modifiedArgs"?:{…}}. "allow" skips
// Copilot's own approval of the call: the supervisor has approved it.
func (Copilot) DecisionReply(ev *Event, d Decision) ([]byte, error) {
	if ev.Phase != PhasePreTool {
		return nil, ErrCannotRewrite
	}
	if ev.snake() {
		return ClaudeCode{}.DecisionReply(ev, d)
	}
	if !d.Allow {
		return reply(field{"permissionDecision", "deny"}, field{"permissionDecisionReason", d.denyReason()})
	}
	fs := []field{{"permissionDecision", "allow"}}
	if d.Reason != "" {
		fs = append(fs, field{"permissionDecisionReason", d.Reason})
	}
	if len(d.UpdatedInput) > 0 {
		fs = append(fs, field{"modifiedArgs", rawJSON(d.UpdatedInput)})
	}
	return reply(fs...)
}
