package hooks

import (
	"time"

	"github.com/interceptor-dev/interceptor/internal/carry"
	"github.com/interceptor-dev/interceptor/internal/token"
)

// codexHome is where Codex CLI keeps its user config.
var codexHome = Root{Var: "CODEX_HOME", Home: ".codex"}

// Codex CLI 0.169.0: refuses a hooks.json with comments ("failed to
// parse hooks config"); default timeout 600 s (its hooks docs).
var CodexClient = Client{
	Name: "codex", Display: "Codex",
	ShellTool: "Bash", // its exec_command, as Codex reports it to hooks
	User:      Path{codexHome, "hooks.json"},
	Project:   Path{ProjectDir, ".codex/hooks.json"},
	Layout:    Grouped, PreTool: "PreToolUse", PostTool: "PostToolUse",
	TimeoutUnit: time.Second, TimeoutDefault: 600 * time.Second, Timeout: 10,
	RacesInput:  true,
	TrustStep:   "start codex and run /hooks to review and trust them",
	TrustRecord: Path{codexHome, "config.toml"}, ProjectTrust: true,
	Skeleton: "{}\n",
	Syntax:   Syntax{RefusesDuplicates: true, Rejected: "it refuses the file and runs none of its hooks"},
	MCPServers: []ServerList{
		{Path: Path{codexHome, "config.toml"}, Key: "mcp_servers", TOML: true},
		{Path: Path{ProjectDir, ".codex/config.toml"}, Key: "mcp_servers", TOML: true},
	},
	// Its docs: command, args, env (and env_vars, the names it passes on),
	// or url (Streamable HTTP only) with bearer_token_env_var,
	// http_headers and env_http_headers (install's TOML path reads those).
	MCPEntry: MCPEntry{Env: "env", HTTP: []URLKey{{"url", nil}}, Headers: "http_headers"},
	// Its docs: a server's tool_timeout_sec, 60 s by default.
	MCPToolTimeout: MCPToolTimeout{Key: "tool_timeout_sec", Unit: time.Second, Default: 60 * time.Second},
	Naming:         ToolNaming{Prefix: mcpDunderWord},
	PromptEvent:    "UserPromptSubmit",
	Hooks:          Codex{},
	Headless:       &Headless{Argv: codexChatArgv, PromptOnStdin: true, Output: CodexJSONL},
}

// CodexJSONL is what codex exec --json prints.
const CodexJSONL Output = "codex exec --json"

// codexChatArgv: codex exec, the next chats codex exec resume of the
// thread id its first chat printed.
func codexChatArgv(c ChatArgs) []string {
	argv := []string{"codex", "exec"}
	if c.Resume {
		argv = append(argv, "resume")
	}
	argv = append(argv, "--json", "--skip-git-repo-check")
	if c.Model != "" {
		argv = append(argv, "-m", c.Model)
	}
	if c.Resume {
		return append(argv, c.Session, "-")
	}
	return append(argv, "-C", c.Dir, "-")
}

// Codex speaks Codex CLI's hooks (observed with 0.169.0).
//
// In:  Claude Code's fields plus turn_id and model; tool_name "mcp__S__T";
// PostToolUse tool_response is the whole MCP result {content, isError, _meta,
// structuredContent?}.
//
// Out (pre): {"hookSpecificOutput":{"hookEventName":"PreToolUse",
// "permissionDecision":"allow","updatedInput":{…}}}. Codex applies
// updatedInput only together with "allow", so a rewritten call is also an
// approved call. Unknown keys make Codex reject the whole reply.
// Out (post): none. Codex accepts updatedMCPToolOutput and ignores it.
type Codex struct{}

func (Codex) Name() string { return "codex" }

func (Codex) detect(p fields) bool {
	if p.get("turn_id").Exists() {
		return true
	}
	// Claude Code never sends model on tool events.
	switch p.get("hook_event_name").Str {
	case "PreToolUse", "PostToolUse":
		return p.get("model").Exists() && !p.get("mcp_server").Exists()
	}
	return false
}

// codexPhases maps Codex's hook event names to phases.
var codexPhases = phases{{"PreToolUse", PhasePreTool}, {"PostToolUse", PhasePostTool}, {"SessionEnd", PhaseSessionEnd}}

func (Codex) parse(p fields) (*Event, error) {
	return namedEvent(p, "session_id", codexPhases, func(p fields) token.Result { return carry.ReadResult(p.get("tool_response")) })
}

func (Codex) Tool(ev *Event, server string) (string, bool) {
	return ev.matchTool(server)
}

func (Codex) InputReply(ev *Event, args []byte) ([]byte, error) {
	return reply(
		field{"hookSpecificOutput.hookEventName", ev.Name},
		field{"hookSpecificOutput.permissionDecision", "allow"},
		field{"hookSpecificOutput.updatedInput", rawJSON(args)},
	)
}

func (Codex) RedactReply(*Event, []token.Named) ([]byte, error) {
	return nil, ErrCannotRewrite
}

// DecisionReply: deny is {"hookSpecificOutput":{"hookEventName":"PreToolUse",
// "permissionDecision":"deny","permissionDecisionReason":…}}. Codex rejects
// "allow" without updatedInput, so a plain allow prints nothing (the call
// proceeds under Codex's own approval policy); an allow with new input is
// allow + updatedInput. No other keys: Codex rejects unknown ones.
func (Codex) DecisionReply(ev *Event, d Decision) ([]byte, error) {
	if ev.Phase != PhasePreTool {
		return nil, ErrCannotRewrite
	}
	switch {
	case !d.Allow:
		return reply(
			field{"hookSpecificOutput.hookEventName", ev.Name},
			field{"hookSpecificOutput.permissionDecision", "deny"},
			field{"hookSpecificOutput.permissionDecisionReason", d.denyReason()},
		)
	case len(d.UpdatedInput) > 0:
		return reply(
			field{"hookSpecificOutput.hookEventName", ev.Name},
			field{"hookSpecificOutput.permissionDecision", "allow"},
			field{"hookSpecificOutput.updatedInput", rawJSON(d.UpdatedInput)},
		)
	}
	return nil, nil
}

// promptContext: Codex takes Claude Code's UserPromptSubmit shape
// (and rejects unknown keys).
func (Codex) promptContext(text string) ([]byte, error) {
	return reply(field{"hookSpecificOutput.hookEventName", "UserPromptSubmit"}, field{"hookSpecificOutput.additionalContext", text})
}
