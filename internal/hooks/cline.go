package hooks

import (
	"time"

	"github.com/interceptor-dev/interceptor/internal/carry"
	"github.com/interceptor-dev/interceptor/internal/token"
)

// Cline CLI 3.0.65: an executable per event in ~/.cline/hooks/ or
// <project>/.clinerules/hooks/; 30 s timeout, not configurable.
var ClineClient = Client{
	Name: "cline", Display: "Cline",
	ShellTool: "run_commands",
	User:      Path{HomeDir, ".cline/hooks/PreToolUse"},
	Project:   Path{ProjectDir, ".clinerules/hooks/PreToolUse"},
	Layout:    Scripts, PreTool: "PreToolUse", PostTool: "PostToolUse",
	// @cline/core 3.0.65 (its hook file discovery and
	// resolveHooksConfigSearchPaths): each dir's files, sorted by path.
	ScriptDirs: []Path{{HomeDir, "Documents/Cline/Hooks"}, {HomeDir, ".cline/hooks"},
		{ProjectDir, ".clinerules/hooks"}, {ProjectDir, ".cline/hooks"}},
	ScriptExts:  []string{"", ".sh", ".bash", ".zsh", ".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".py", ".ps1"},
	TimeoutUnit: time.Second, TimeoutDefault: 30 * time.Second,
	NoApprove: true,
	// The one file 3.0.65 reads (@cline/shared resolveMcpSettingsPath;
	// the e2e suite configures it there); CLINE_DIR, CLINE_DATA_DIR and
	// CLINE_MCP_SETTINGS_PATH move it and are not followed. No project
	// list.
	MCPServers: []ServerList{
		{Path: Path{HomeDir, ".cline/data/settings/cline_mcp_settings.json"}, Key: "mcpServers"},
	},
	// {"command","args","env"}, or {"type":"streamableHttp","url",
	// "headers"} (a url without that type is SSE).
	MCPEntry: MCPEntry{Env: "env", Type: "type", Stdio: "stdio", HTTP: []URLKey{{"url", []string{"streamableHttp"}}}, Headers: "headers"},
	Naming:   ToolNaming{Prefix: serverDunder, HashedIfUnclean: true},
	Hooks:    Cline{},
}

// Cline speaks Cline CLI's hooks (observed with 3.0.65). Cline runs every
// executable file named after an event (PreToolUse, PostToolUse, …, any
// case, no extension or a script one) in ~/.cline/hooks/ and
// <workspace>/.clinerules/hooks/, with one JSON object on stdin:
//
//	{clineVersion, hookName: "tool_call"|"tool_result"|…, timestamp, taskId,
//	 sessionContext: {rootSessionId}, workspaceRoots, agent_id, …,
//	 tool_call: {id, name: "S__T", input}                    (PreToolUse)
//	 tool_result: {id, name, input, output, durationMs, …}    (PostToolUse)}
//
// tool_result.output is the MCP result as the server sent it, _meta
// included. taskId names the conversation (the session).
//
// Out (pre): {"overrideInput":{…}}, which replaces the whole input; there is
// no permission decision. Out (post): none; Cline cannot rewrite a result.
// {"cancel":true,"errorMessage":…} stops the task.
type Cline struct{}

func (Cline) Name() string { return "cline" }

func (Cline) detect(p fields) bool {
	return p.get("hookName").Exists() && p.get("taskId").Exists()
}

// clinePhases maps Cline's hookName to phases.
var clinePhases = phases{{"tool_call", PhasePreTool}, {"tool_result", PhasePostTool}, {"session_shutdown", PhaseSessionEnd}}

func (Cline) parse(p fields) (*Event, error) {
	session, err := stringField(p, "taskId")
	if err != nil {
		return nil, err
	}
	if session == "" {
		if session, err = stringField(p, "sessionContext.rootSessionId"); err != nil {
			return nil, err
		}
	}
	name := p.get("hookName").Str
	phase := clinePhases.of(name)
	call := "tool_call"
	if phase == PhasePostTool {
		call = "tool_result"
	}
	ev, err := toolEvent(p, phase, name, session, call+".name", call+".input")
	if err != nil {
		return nil, err
	}
	if phase == PhasePostTool {
		ev.result = func() token.Result { return carry.ReadResult(p.get("tool_result.output")) }
	}
	return ev, nil
}

// Tool: Cline names a tool <server>__<tool>, but one whose name would pass
// 64 characters becomes its first 55 plus "_<8 hex>": that name no longer
// says which tool it is, so it is never matched.
func (Cline) Tool(ev *Event, server string) (string, bool) {
	if n := ev.ToolName; len(n) == clineMaxName && n[clineMaxName-9] == '_' && isHex(n[clineMaxName-8:]) {
		return "", false
	}
	return ev.matchTool(server)
}

// clineMaxName is the longest tool name Cline passes on unhashed.
const clineMaxName = 64

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

func (Cline) InputReply(_ *Event, args []byte) ([]byte, error) {
	return reply(field{"overrideInput", rawJSON(args)})
}

func (Cline) RedactReply(*Event, []token.Named) ([]byte, error) {
	return nil, ErrCannotRewrite
}

// DecisionReply: a deny is {"cancel":true,"errorMessage":…}, which in Cline
// 3.0.65 stops the whole task, not only the call (the hook has no way to
// skip one call); an allow prints nothing, or {"overrideInput":{…}}.
func (Cline) DecisionReply(ev *Event, d Decision) ([]byte, error) {
	if ev.Phase != PhasePreTool {
		return nil, ErrCannotRewrite
	}
	switch {
	case !d.Allow:
		return reply(field{"cancel", rawJSON("true")}, field{"errorMessage", d.denyReason()})
	case len(d.UpdatedInput) > 0:
		return reply(field{"overrideInput", rawJSON(d.UpdatedInput)})
	}
	return nil, nil
}
