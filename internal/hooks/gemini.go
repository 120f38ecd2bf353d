package hooks

import (
	"time"

	"github.com/interceptor-dev/interceptor/internal/carry"
	"github.com/interceptor-dev/interceptor/internal/token"
	"github.com/tidwall/gjson"
)

// Gemini CLI 0.61.0: reads comments in settings.json, refuses a trailing
// comma; timeout in milliseconds, DEFAULT_HOOK_TIMEOUT 60000 in its
// bundle.
var GeminiClient = Client{
	Name: "gemini", Display: "Gemini CLI",
	ShellTool: "run_shell_command",
	User:      Path{HomeDir, ".gemini/settings.json"},
	Project:   Path{ProjectDir, ".gemini/settings.json"},
	Layout:    Grouped, PreTool: "BeforeTool", PostTool: "AfterTool",
	TimeoutUnit: time.Millisecond, TimeoutDefault: 60 * time.Second, Timeout: 10000,
	Skeleton: "{}\n",
	Syntax:   Syntax{Comments: true, Rejected: "it refuses the file"},
	MCPServers: []ServerList{
		{Path: Path{HomeDir, ".gemini/settings.json"}, Key: "mcpServers"},
		{Path: Path{ProjectDir, ".gemini/settings.json"}, Key: "mcpServers"},
	},
	// Its docs: command, args, env; httpUrl for Streamable HTTP, url for
	// SSE unless "type" says "http".
	MCPEntry: MCPEntry{Env: "env", Type: "type", HTTP: []URLKey{{"httpUrl", nil}, {"url", []string{"http"}}},
		Headers: "headers", Auth: []string{"authProviderType", "oauth"}},
	// Its docs: a server's timeout, in ms, 10 minutes by default.
	MCPToolTimeout: MCPToolTimeout{Key: "timeout", Unit: time.Millisecond, Default: 10 * time.Minute},
	Naming:         ToolNaming{Prefix: mcpUnderscore},
	NamesServer:    true, // mcp_context.server_name
	PromptEvent:    "BeforeAgent",
	Hooks:          Gemini{},
	Headless:       &Headless{Argv: geminiChatArgv, Output: GeminiStreamJSON, ChoosesSession: true},
}

// GeminiStreamJSON is what gemini --output-format stream-json prints.
const GeminiStreamJSON Output = "gemini stream-json"

// geminiChatArgv: gemini -p, the first chat with --session-id (an id
// chosen at create), the next ones with --resume of it; --skip-trust
// because the parent chose the working dir.
func geminiChatArgv(c ChatArgs) []string {
	return sessionFlags([]string{"gemini", "--prompt=" + c.Prompt, "--output-format", "stream-json", "--skip-trust"}, c)
}

// Gemini speaks Gemini CLI's hooks (observed with 0.61.0).
//
// In:  {session_id, hook_event_name: BeforeTool|AfterTool|SessionEnd,
// timestamp, tool_name: "mcp_S_T", tool_input, mcp_context: {server_name,
// tool_name}}; AfterTool tool_response is {llmContent: [{text}],
// returnDisplay}, built from the content only (no _meta, no
// structuredContent), each text wrapped in <untrusted_context>.
//
// Out (pre): {"hookSpecificOutput":{"hookEventName":"BeforeTool","tool_input":{…}}}.
// Gemini validates the new input against the tool's schema. Claude-style
// updatedInput is ignored. Out (post): none; Gemini cannot rewrite a result.
type Gemini struct{}

func (Gemini) Name() string { return "gemini" }

func (Gemini) detect(p fields) bool {
	if p.get("mcp_context").Exists() {
		return true
	}
	switch p.get("hook_event_name").Str {
	case "BeforeTool", "AfterTool", "BeforeModel", "AfterModel", "BeforeAgent", "AfterAgent",
		"BeforeToolSelection", "PreCompress":
		return true
	case "SessionStart", "SessionEnd", "Notification":
		// Claude Code has these too, but never sends a timestamp.
		return p.get("timestamp").Exists()
	}
	return false
}

// geminiPhases maps Gemini CLI's hook event names to phases.
var geminiPhases = phases{{"BeforeTool", PhasePreTool}, {"AfterTool", PhasePostTool}, {"SessionEnd", PhaseSessionEnd}}

func (Gemini) parse(p fields) (*Event, error) {
	return namedEvent(p, "session_id", geminiPhases, func(p fields) token.Result { return geminiResult(p.get("tool_response")) })
}

// geminiResult reads {llmContent, returnDisplay}; llmContent holds the text
// blocks the model reads.
func geminiResult(resp gjson.Result) token.Result {
	switch llm := resp.Get("llmContent"); {
	case llm.IsArray():
		return token.Result{Texts: carry.ContentTexts(llm)}
	case llm.Type == gjson.String:
		return token.Result{Texts: []string{llm.Str}}
	}
	return carry.ReadResult(resp)
}

// Tool trusts only mcp_context.server_name: Gemini's tool name mcp_S_T cannot
// be split when server or tool names contain '_'.
func (Gemini) Tool(ev *Event, server string) (string, bool) {
	ctx := ev.fields.get("mcp_context")
	if ctx.Get("server_name").Str != server || server == "" {
		return "", false
	}
	tool := ctx.Get("tool_name").Str
	if tool == "" {
		tool = ev.ToolName
	}
	return tool, tool != ""
}

func (Gemini) InputReply(ev *Event, args []byte) ([]byte, error) {
	return reply(
		field{"hookSpecificOutput.hookEventName", ev.Name},
		field{"hookSpecificOutput.tool_input", rawJSON(args)},
	)
}

func (Gemini) RedactReply(*Event, []token.Named) ([]byte, error) {
	return nil, ErrCannotRewrite
}

// DecisionReply: {"decision":"allow"|"deny","reason":…}, plus
// hookSpecificOutput.tool_input for new input on allow (Gemini CLI 0.61.0
// applies tool_input whenever the decision is not deny/block).
func (Gemini) DecisionReply(ev *Event, d Decision) ([]byte, error) {
	if ev.Phase != PhasePreTool {
		return nil, ErrCannotRewrite
	}
	if !d.Allow {
		return reply(field{"decision", "deny"}, field{"reason", d.denyReason()})
	}
	fs := []field{{"decision", "allow"}}
	if d.Reason != "" {
		fs = append(fs, field{"reason", d.Reason})
	}
	if len(d.UpdatedInput) > 0 {
		fs = append(fs,
			field{"hookSpecificOutput.hookEventName", ev.Name},
			field{"hookSpecificOutput.tool_input", rawJSON(d.UpdatedInput)},
		)
	}
	return reply(fs...)
}

// promptContext: BeforeAgent's hookSpecificOutput.additionalContext
// is added to the turn's prompt.
func (Gemini) promptContext(text string) ([]byte, error) {
	return reply(field{"hookSpecificOutput.hookEventName", "BeforeAgent"}, field{"hookSpecificOutput.additionalContext", text})
}
