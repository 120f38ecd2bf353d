package hooks

import (
	"strings"
	"time"

	"github.com/interceptor-dev/interceptor/internal/carry"
	"github.com/interceptor-dev/interceptor/internal/token"
)

// Factory Droid 0.225.2: Claude Code's format in ~/.factory/settings.json.
var DroidClient = Client{
	Name: "droid", Display: "Droid",
	ShellTool: "Execute",
	User:      Path{HomeDir, ".factory/settings.json"},
	Project:   Path{ProjectDir, ".factory/settings.json"},
	Layout:    Grouped, PreTool: "PreToolUse", PostTool: "PostToolUse",
	TimeoutUnit: time.Second, Timeout: 10,
	NoApprove: true,
	Skeleton:  "{}\n",
	Syntax:    Syntax{Comments: true, Rejected: "it ignores the whole file"},
	// The two files 0.225.2's bundle reads (~/.factory/mcp.json, where
	// the e2e suite configures it, and <project>/.factory/mcp.json).
	MCPServers: []ServerList{
		{Path: Path{HomeDir, ".factory/mcp.json"}, Key: "mcpServers"},
		{Path: Path{ProjectDir, ".factory/mcp.json"}, Key: "mcpServers"},
	},
	// {"type":"stdio","command","args","env"} or {"type":"http","url",
	// "headers"}.
	MCPEntry: MCPEntry{Env: "env", Type: "type", Stdio: "stdio", HTTP: []URLKey{{"url", []string{"http"}}}, Headers: "headers"},
	Naming:   ToolNaming{Prefix: serverTripleUnderscore},
	Hooks:    Droid{},
}

// Droid speaks Factory Droid's hooks (observed with 0.225.1 and 0.225.2), which follow
// Claude Code's format.
//
// In:  {session_id, transcript_path (under ~/.factory/), cwd,
// permission_mode, hook_event_name: PreToolUse|PostToolUse|SessionEnd|…,
// tool_name: "S___T" (three underscores), tool_input}; PostToolUse adds
// tool_response, the result as one string (the text the model reads; no
// _meta). Droid sends neither tool_use_id nor mcp_server.
//
// Out (pre): {"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":{…}}},
// merged into the call's input (shallow), with no permission decision.
// Out (post): none; Droid cannot rewrite a result.
type Droid struct{}

func (Droid) Name() string { return "droid" }

// detect: Droid's payloads are Claude Code's minus a few fields, so only
// where Droid keeps its transcripts tells them apart.
func (Droid) detect(p fields) bool {
	t := p.get("transcript_path").Str
	return p.get("session_id").Exists() && p.get("hook_event_name").Exists() &&
		(strings.Contains(t, "/.factory/") || strings.Contains(t, `\.factory\`))
}

func (Droid) parse(p fields) (*Event, error) {
	return namedEvent(p, "session_id", claudePhases, func(p fields) token.Result { return carry.ReadResult(p.get("tool_response")) })
}

func (Droid) Tool(ev *Event, server string) (string, bool) {
	return ev.matchTool(server)
}

func (Droid) InputReply(ev *Event, args []byte) ([]byte, error) {
	return ClaudeCode{}.InputReply(ev, args)
}

func (Droid) RedactReply(*Event, []token.Named) ([]byte, error) {
	return nil, ErrCannotRewrite
}

// DecisionReply is Claude Code's (hookSpecificOutput.permissionDecision),
// which Droid documents as its own.
func (Droid) DecisionReply(ev *Event, d Decision) ([]byte, error) {
	return ClaudeCode{}.DecisionReply(ev, d)
}
