package hooks

import (
	"strings"
	"time"

	"github.com/interceptor-dev/interceptor/internal/carry"
	"github.com/interceptor-dev/interceptor/internal/token"
	"github.com/tidwall/gjson"
)

// Cursor, from its documentation: no matcher, and MCP tools documented
// as MCP:<tool>, so approve asks for every MCP tool by default; timeout
// in seconds, default not documented.
var CursorClient = Client{
	NewInputCaveat: "Cursor takes new input only on its preToolUse hook; on beforeMCPExecution an allow with new input is denied instead",
	Name:           "cursor", Display: "Cursor",
	// Documented: shell commands go through beforeShellExecution, which
	// approve does not answer.
	ShellHook: "beforeShellExecution",
	User:      Path{HomeDir, ".cursor/hooks.json"},
	Project:   Path{ProjectDir, ".cursor/hooks.json"},
	Layout:    Flat, PreTool: "preToolUse", PostTool: "postToolUse",
	TimeoutUnit:    time.Second,
	RewritesResult: true, Documented: true,
	ApproveMatch: "^MCP:",
	Skeleton:     "{\n  \"version\": 1\n}\n",
	Syntax:       Syntax{Unverified: true},
	MCPServers: []ServerList{
		{Path: Path{HomeDir, ".cursor/mcp.json"}, Key: "mcpServers"},
		{Path: Path{ProjectDir, ".cursor/mcp.json"}, Key: "mcpServers"},
	},
	// Its docs: {"command","args","env"} or {"url","headers"}.
	MCPEntry: MCPEntry{Env: "env", Type: "type", HTTP: []URLKey{{"url", nil}}, Headers: "headers"},
	// Documented as MCP:<server>:<tool>, and as mcp__<server>__<tool>.
	Naming: ToolNaming{Prefix: mcpColon, Also: mcpDunder},
	Hooks:  Cursor{},
}

// Cursor speaks Cursor's agent hooks. Documented only, never observed: Cursor
// has no Linux CLI on the registries, so this adapter follows the docs.
//
// In:  {conversation_id, generation_id, hook_event_name: preToolUse|postToolUse|…,
// cursor_version, workspace_roots, tool_name, tool_input, tool_output}; tool_input
// and tool_output may be objects or JSON strings.
//
// Out (preToolUse):  {"permission":"allow","updated_input":{…}}
// Out (postToolUse): {"updated_mcp_tool_output":{…}}
// beforeMCPExecution can only allow or deny, so it cannot carry a token.
//
// Cursor documents MCP tool names as "MCP:<tool>", which does not name the
// server. A token is injected only when the name does: "MCP:<server>:<tool>"
// or "mcp__<server>__<tool>". Otherwise nothing is done.
type Cursor struct{}

func (Cursor) Name() string { return "cursor" }

func (Cursor) detect(p fields) bool {
	return p.get("conversation_id").Exists() || p.get("cursor_version").Exists()
}

// cursorPhases maps Cursor's hook event names to phases.
var cursorPhases = phases{
	{"preToolUse", PhasePreTool}, {"beforeMCPExecution", PhasePreTool},
	{"postToolUse", PhasePostTool}, {"afterMCPExecution", PhasePostTool},
	{"sessionEnd", PhaseSessionEnd},
}

func (Cursor) parse(p fields) (*Event, error) {
	return namedEvent(p, "conversation_id", cursorPhases, func(p fields) token.Result { return carry.ReadResult(cursorOutput(p)) })
}

// cursorOutput is the tool result, parsed when Cursor sent it as a string.
func cursorOutput(p fields) gjson.Result {
	v := p.get("tool_output")
	if !v.Exists() {
		v = p.get("result_json")
	}
	if v.Type == gjson.String {
		if s := strings.TrimSpace(v.Str); (strings.HasPrefix(s, "{") || strings.HasPrefix(s, "[")) && gjson.Valid(s) {
			return gjson.Parse(s)
		}
	}
	return v
}

func (Cursor) Tool(ev *Event, server string) (string, bool) {
	return ev.matchTool(server)
}

func (Cursor) InputReply(ev *Event, args []byte) ([]byte, error) {
	if ev.Name != "preToolUse" {
		return nil, ErrCannotRewrite
	}
	return reply(
		field{"permission", "allow"},
		field{"updated_input", rawJSON(args)},
	)
}

func (Cursor) RedactReply(ev *Event, hidden []token.Named) ([]byte, error) {
	if ev.Name != "postToolUse" {
		return nil, ErrCannotRewrite
	}
	out := cursorOutput(ev.fields)
	if !out.IsObject() {
		return nil, nil
	}
	red, ok := redactResult(out, hidden)
	if !ok {
		return nil, nil
	}
	return reply(field{"updated_mcp_tool_output", rawJSON(red)})
}

// DecisionReply: {"permission":"allow"|"deny","user_message"?:…,
// "agent_message"?:…}, plus updated_input on an allow of preToolUse
// (beforeMCPExecution cannot rewrite input; an allow with new input there
// is refused rather than run with the old input).
func (Cursor) DecisionReply(ev *Event, d Decision) ([]byte, error) {
	if ev.Phase != PhasePreTool {
		return nil, ErrCannotRewrite
	}
	if !d.Allow {
		r := d.denyReason()
		return reply(field{"permission", "deny"}, field{"user_message", r}, field{"agent_message", r})
	}
	fs := []field{{"permission", "allow"}}
	if d.Reason != "" {
		fs = append(fs, field{"user_message", d.Reason})
	}
	if len(d.UpdatedInput) > 0 {
		if ev.Name != "preToolUse" {
			return nil, ErrCannotRewrite
		}
		fs = append(fs, field{"updated_input", rawJSON(d.UpdatedInput)})
	}
	return reply(fs...)
}
