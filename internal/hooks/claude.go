package hooks

import (
	"strings"
	"time"

	"github.com/interceptor-dev/interceptor/internal/carry"
	"github.com/interceptor-dev/interceptor/internal/token"
	"github.com/tidwall/gjson"
)

// claudeConfigDir is where Claude Code keeps its user config.
var claudeConfigDir = Root{Var: "CLAUDE_CONFIG_DIR", Home: ".claude"}

// Claude Code 2.1.328; it silently ignores a settings.json with comments
// (2.1.330: its hooks did not run).
var ClaudeCodeClient = Client{
	Name: "claude-code", Display: "Claude Code",
	ShellTool: "Bash",
	User:      Path{claudeConfigDir, "settings.json"},
	Project:   Path{ProjectDir, ".claude/settings.json"},
	Local:     Path{ProjectDir, ".claude/settings.local.json"},
	// Claude Code sets it for its hooks.
	ProjectEnv: "CLAUDE_PROJECT_DIR",
	Layout:     Grouped, PreTool: "PreToolUse", PostTool: "PostToolUse", SessionEnd: "SessionEnd",
	PostToolFailure: "PostToolUseFailure",
	TimeoutUnit:     time.Second, TimeoutDefault: 60 * time.Second, Timeout: 10,
	RewritesResult: true, RacesInput: true,
	Skeleton: "{}\n",
	Syntax:   Syntax{Rejected: "it silently ignores the whole file"},
	MCPServers: []ServerList{
		{Path: Path{HomeDir, ".claude.json"}, Key: "mcpServers"},
		{Path: Path{HomeDir, ".claude.json"}, Key: "projects.{project}.mcpServers"},
		{Path: Path{ProjectDir, ".mcp.json"}, Key: "mcpServers"},
	},
	// Its docs: {"type":"stdio","command","args","env"} or
	// {"type":"http","url","headers"} ("sse": the older transport).
	MCPEntry: MCPEntry{Env: "env", Type: "type", Stdio: "stdio", HTTP: []URLKey{{"url", []string{"http"}}},
		Headers: "headers", Auth: []string{"headersHelper"}, OAuth: "oauth"},
	// No MCPToolTimeout: its MCP_TOOL_TIMEOUT is an environment
	// variable, which doctor cannot see.
	Naming:      ToolNaming{Prefix: mcpDunder, PluginForm: true},
	NamesServer: true, // mcp_server.name
	PromptEvent: "UserPromptSubmit",
	Hooks:       ClaudeCode{},
	Headless: &Headless{
		Argv: claudeChatArgv, PromptOnStdin: true, Output: ClaudeStreamJSON,
		ChoosesSession: true, PermitTool: true,
	},
}

// ClaudeStreamJSON is what claude -p --output-format stream-json --verbose
// prints.
const ClaudeStreamJSON Output = "claude-code stream-json"

// claudeChatArgv: claude -p, the first chat with --session-id (an id chosen
// at create), the next ones with --resume of it; its permission prompts go
// to the chat's own MCP server.
func claudeChatArgv(c ChatArgs) []string {
	argv := sessionFlags([]string{"claude", "-p", "--output-format", "stream-json", "--verbose"}, c)
	argv = append(argv, "--mcp-config", c.MCPConfig, "--permission-prompt-tool", c.PermitTool)
	if len(c.Allowed) > 0 {
		argv = append(append(argv, "--allowedTools"), c.Allowed...)
	}
	return argv
}

// ClaudeCode speaks Claude Code's hooks (observed with 2.1.328).
//
// In:  {session_id, hook_event_name: PreToolUse|PostToolUse|SessionEnd,
//
//	tool_name: "mcp__S__T", tool_input, tool_response, mcp_server: {name}}
//
// tool_response is only the content array, or JSON.stringify(structuredContent)
// when the server sent one; _meta never reaches a hook.
//
// Out (pre):  {"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":{…}}}
// with no permissionDecision, so the user's own permission rules still apply.
// Out (post): {"hookSpecificOutput":{"hookEventName":"PostToolUse","updatedMCPToolOutput":[…]}}
type ClaudeCode struct{}

func (ClaudeCode) Name() string { return "claude-code" }

func (ClaudeCode) detect(p fields) bool {
	switch p.get("hook_event_name").Str {
	case "PreToolUse", "PostToolUse", "PostToolUseFailure", "SessionEnd", "SessionStart", "Stop", "SubagentStop",
		"UserPromptSubmit", "Notification", "PreCompact", "PermissionRequest":
		return p.get("session_id").Exists()
	}
	return false
}

// claudePhases maps Claude Code's hook event names to phases.
// PostToolUseFailure (2.1.330: {tool_name, tool_input, tool_use_id, error,
// is_interrupt?, duration_ms?, mcp_server?}, no tool_response) is a
// post-tool event whose result holds nothing: the error text echoes the
// call's arguments (a stale handle among them), so no value is ever taken
// from it, and a start tool that failed retires the value held before.
var claudePhases = phases{{"PreToolUse", PhasePreTool}, {"PostToolUse", PhasePostTool},
	{"PostToolUseFailure", PhasePostTool}, {"SessionEnd", PhaseSessionEnd}}

func (ClaudeCode) parse(p fields) (*Event, error) {
	if p.get("cursor_version").Exists() || getenv("CURSOR_VERSION") != "" && getenv("CLAUDECODE") == "" {
		return nil, ErrOtherClient
	}
	return namedEvent(p, "session_id", claudePhases, func(p fields) token.Result {
		if p.get("hook_event_name").Str == "PostToolUseFailure" {
			return token.Result{}
		}
		return carry.ReadResult(p.get("tool_response"))
	})
}

// Tool trusts mcp_server.name when Claude Code sends it: it is the server's
// configured name, exact, while the tool name only carries a sanitized one.
// When the two disagree (the name spelled another way than names.go
// knows), mcp_server decides the server and the tool is what follows the
// server's part of the name.
func (ClaudeCode) Tool(ev *Event, server string) (string, bool) {
	name := ev.fields.get("mcp_server.name")
	if name.Type != gjson.String {
		return ev.matchTool(server)
	}
	if name.Str != server {
		return "", false
	}
	if tool, ok := ev.matchTool(server); ok {
		return tool, true
	}
	rest, ok := strings.CutPrefix(ev.ToolName, "mcp__")
	if !ok {
		return "", false
	}
	if _, tool, ok := strings.Cut(rest, "__"); ok && tool != "" {
		return tool, true
	}
	return "", false
}

func (ClaudeCode) InputReply(ev *Event, args []byte) ([]byte, error) {
	return reply(
		field{"hookSpecificOutput.hookEventName", ev.Name},
		field{"hookSpecificOutput.updatedInput", rawJSON(args)},
	)
}

func (ClaudeCode) RedactReply(ev *Event, hidden []token.Named) ([]byte, error) {
	resp := ev.fields.get("tool_response")
	var content string
	switch {
	case resp.IsArray():
		red, ok := redactResult(resp, hidden)
		if !ok {
			return nil, nil
		}
		content = red
	case resp.Type == gjson.String:
		red, ok := token.RedactNamedText(resp.Str, hidden)
		if !ok {
			return nil, nil
		}
		// The structured result reached the hook as one string; it goes back
		// as one text block.
		block, err := textBlock(red)
		if err != nil {
			return nil, err
		}
		content = "[" + block + "]"
	default:
		return nil, nil
	}
	return reply(
		field{"hookSpecificOutput.hookEventName", ev.Name},
		field{"hookSpecificOutput.updatedMCPToolOutput", rawJSON(content)},
	)
}

// DecisionReply: {"hookSpecificOutput":{"hookEventName":"PreToolUse",
// "permissionDecision":"allow"|"deny","permissionDecisionReason":…,
// "updatedInput"?:{…}}}. "allow" bypasses the user's permission rules (and
// --permission-prompt-tool): the supervisor has approved the call.
func (ClaudeCode) DecisionReply(ev *Event, d Decision) ([]byte, error) {
	if ev.Phase != PhasePreTool {
		return nil, ErrCannotRewrite
	}
	if !d.Allow {
		return reply(
			field{"hookSpecificOutput.hookEventName", ev.Name},
			field{"hookSpecificOutput.permissionDecision", "deny"},
			field{"hookSpecificOutput.permissionDecisionReason", d.denyReason()},
		)
	}
	fs := []field{
		{"hookSpecificOutput.hookEventName", ev.Name},
		{"hookSpecificOutput.permissionDecision", "allow"},
	}
	if d.Reason != "" {
		fs = append(fs, field{"hookSpecificOutput.permissionDecisionReason", d.Reason})
	}
	if len(d.UpdatedInput) > 0 {
		fs = append(fs, field{"hookSpecificOutput.updatedInput", rawJSON(d.UpdatedInput)})
	}
	return reply(fs...)
}

// promptContext: UserPromptSubmit's hookSpecificOutput.additionalContext
// is added to the prompt the model reads.
func (ClaudeCode) promptContext(text string) ([]byte, error) {
	return reply(field{"hookSpecificOutput.hookEventName", "UserPromptSubmit"}, field{"hookSpecificOutput.additionalContext", text})
}
