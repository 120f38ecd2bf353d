package hooks

import (
	"strings"
	"time"
)

// This file is the one description of each client's configuration that
// install, doctor and the hooks share: where its hook config lives per
// scope, the events install writes, the hook timeout's unit and default,
// what the client can rewrite, and what its JSON parser accepts. How a
// client spells a server's tools is in names.go. Plain data: nothing here
// runs at init.

// Client describes one client's configuration.
type Client struct {
	Name    string // as --client takes it
	Display string // as people call it

	// User and Project are the hook config files install edits (for
	// OpenCode, the plugin shim it writes); Local is one more project file
	// the client reads hooks from, which doctor checks.
	User, Project, Local Path

	Layout Layout
	// The events install writes inject and capture under, and clear
	// ("": none).
	PreTool, PostTool, SessionEnd string

	TimeoutUnit    time.Duration // of a hook's "timeout" field
	TimeoutDefault time.Duration // when a hook sets none; 0: not documented
	Timeout        int           // what install writes, in TimeoutUnit; 0: none

	// RewritesResult: the client lets a post-tool hook replace what the
	// model reads of a result, so capture --redact works.
	RewritesResult bool
	// RacesInput: when two pre-tool hooks rewrite one call's input, the
	// last to finish wins.
	RacesInput bool
	// TrustStep is what the user must do before the client runs new or
	// changed hooks ("": it runs them at once); TrustRecord is the file
	// where the client records that trust, and ProjectTrust says it loads
	// a project's hooks only once the project is trusted.
	TrustStep    string
	TrustRecord  Path
	ProjectTrust bool
	// RedactCaveat is what --redact cannot hide in this client ("": none
	// known).
	RedactCaveat string
	// MatchWholeName: the client matches a matcher against the whole tool
	// name, not a part of it.
	MatchWholeName bool
	// NoApprove: install writes no approve hook, because the client's hook
	// timeout or decision format is not verified, and an approve hook the
	// client kills early runs the tool unapproved.
	NoApprove bool
	// Documented: known from the documentation only, never run.
	Documented bool
	// ApproveMatch is approve's default --match where the client's matcher
	// cannot pick the server's tools ("": it can).
	ApproveMatch string
	// Skeleton is a new config file before install adds to it.
	Skeleton string

	Syntax Syntax

	// MCPServers are where the client lists its MCP servers.
	MCPServers []ServerList
	// MCPToolTimeout is where the client keeps a server's MCP tool-call
	// timeout (Key "": nowhere doctor can read it).
	MCPToolTimeout MCPToolTimeout
	// Naming is how the client spells a server's tools in the tool names
	// its hooks receive (the spellings are in names.go).
	Naming ToolNaming
	// NamesServer: the hook payload names the tool's server, so servers
	// whose tool names look alike cannot be confused.
	NamesServer bool
	// PromptEvent is the client's turn-start event, whose reply adds
	// context the model reads with the prompt ("": none): interceptor
	// deliver answers it, install --deliver hooks it (prompt.go).
	PromptEvent string
	// ShellTool is the tool name the client's shell tool reaches pre-tool
	// hooks with ("": not known), as the e2e test TestShellToolNames saw
	// each real client send it. A child agent's shell can run
	// `interceptor approvals allow` itself unless approve gates it too.
	ShellTool string
	// ScriptDirs (Scripts layout) are every dir the client runs hook
	// files from, and ScriptExts the extensions it runs them with ("":
	// none); a file runs on an event when its name without the extension
	// is the event's in any case.
	ScriptDirs []Path
	ScriptExts []string
	// ShellHook is the event the client runs shell commands through
	// instead, one approve does not answer ("": none), so approvals cannot
	// gate its shell.
	ShellHook string
}

// ServerList is a config file's list of MCP servers: the object (JSON or
// JSONC) or table (TOML) at Key, whose keys are the servers' names. In Key,
// "{project}" stands for the project dir.
type ServerList struct {
	Path Path
	Key  string // dotted; a JSON key holding dots is not supported
	TOML bool
}

// MCPToolTimeout is where a client keeps an MCP server's tool-call
// timeout: Key of the server's entry in its MCPServers list, in Unit, and
// Default when the entry has none (the client's documented default).
type MCPToolTimeout struct {
	Key           string
	Unit, Default time.Duration
}

// Layout is how a client's config holds hooks.
type Layout int

const (
	// Grouped: hooks.<Event>[{matcher, hooks:[{type:"command", command, timeout}]}].
	Grouped Layout = iota
	// Flat: hooks.<event>[{command, timeout}], no matcher.
	Flat
	// Plugin: a plugin file runs the hooks (OpenCode, Kilo).
	Plugin
	// Scripts: one executable per event, named after it, in a hooks dir
	// (Cline); User and Project are the PreTool script, the PostTool one
	// is beside it.
	Scripts
)

// Syntax is what a client's JSON config parser accepts beyond plain JSON.
type Syntax struct {
	Comments, TrailingCommas bool
	// RefusesDuplicates: a key repeated in one object of the hooks makes the
	// client refuse the file (Codex: serde's derived structs). Every other
	// client keeps the last one (JSON.parse), so an earlier member of the
	// same name is never read.
	RefusesDuplicates bool
	// Unverified: not checked with the real client.
	Unverified bool
	// Rejected is what the client does with a file it does not accept.
	Rejected string
}

// Root is the directory a config path is relative to.
type Root int

const (
	HomeDir         Root = iota
	ProjectDir           // the project dir
	ClaudeConfigDir      // $CLAUDE_CONFIG_DIR, else ~/.claude
	CodexHome            // $CODEX_HOME, else ~/.codex
	XDGConfigHome        // $XDG_CONFIG_HOME, else ~/.config
)

// Path is a file under a Root, slash-separated; Rel "" is no file.
type Path struct {
	Root Root
	Rel  string
}

var (
	// Claude Code 2.1.328; it silently ignores a settings.json with comments
	// (2.1.330: its hooks did not run).
	ClaudeCodeClient = Client{
		Name: "claude-code", Display: "Claude Code",
		ShellTool: "Bash",
		User:      Path{ClaudeConfigDir, "settings.json"},
		Project:   Path{ProjectDir, ".claude/settings.json"},
		Local:     Path{ProjectDir, ".claude/settings.local.json"},
		Layout:    Grouped, PreTool: "PreToolUse", PostTool: "PostToolUse", SessionEnd: "SessionEnd",
		TimeoutUnit: time.Second, TimeoutDefault: 60 * time.Second, Timeout: 10,
		RewritesResult: true, RacesInput: true,
		Skeleton: "{}\n",
		Syntax:   Syntax{Rejected: "it silently ignores the whole file"},
		MCPServers: []ServerList{
			{Path: Path{HomeDir, ".claude.json"}, Key: "mcpServers"},
			{Path: Path{HomeDir, ".claude.json"}, Key: "projects.{project}.mcpServers"},
			{Path: Path{ProjectDir, ".mcp.json"}, Key: "mcpServers"},
		},
		// No MCPToolTimeout: its MCP_TOOL_TIMEOUT is an environment
		// variable, which doctor cannot see.
		Naming:      ToolNaming{Prefix: mcpDunder, PluginForm: true},
		NamesServer: true, // mcp_server.name
		PromptEvent: "UserPromptSubmit",
	}
	// Codex CLI 0.169.0: refuses a hooks.json with comments ("failed to
	// parse hooks config"); default timeout 600 s (its hooks docs).
	CodexClient = Client{
		Name: "codex", Display: "Codex",
		ShellTool: "Bash", // its exec_command, as Codex reports it to hooks
		User:      Path{CodexHome, "hooks.json"},
		Project:   Path{ProjectDir, ".codex/hooks.json"},
		Layout:    Grouped, PreTool: "PreToolUse", PostTool: "PostToolUse",
		TimeoutUnit: time.Second, TimeoutDefault: 600 * time.Second, Timeout: 10,
		RacesInput:  true,
		TrustStep:   "start codex and run /hooks to review and trust them",
		TrustRecord: Path{CodexHome, "config.toml"}, ProjectTrust: true,
		Skeleton: "{}\n",
		Syntax:   Syntax{RefusesDuplicates: true, Rejected: "it refuses the file and runs none of its hooks"},
		MCPServers: []ServerList{
			{Path: Path{CodexHome, "config.toml"}, Key: "mcp_servers", TOML: true},
			{Path: Path{ProjectDir, ".codex/config.toml"}, Key: "mcp_servers", TOML: true},
		},
		// Its docs: a server's tool_timeout_sec, 60 s by default.
		MCPToolTimeout: MCPToolTimeout{Key: "tool_timeout_sec", Unit: time.Second, Default: 60 * time.Second},
		Naming:         ToolNaming{Prefix: mcpDunderWord},
		PromptEvent:    "UserPromptSubmit",
	}
	// Gemini CLI 0.61.0: reads comments in settings.json, refuses a trailing
	// comma; timeout in milliseconds, DEFAULT_HOOK_TIMEOUT 60000 in its
	// bundle.
	GeminiClient = Client{
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
		// Its docs: a server's timeout, in ms, 10 minutes by default.
		MCPToolTimeout: MCPToolTimeout{Key: "timeout", Unit: time.Millisecond, Default: 10 * time.Minute},
		Naming:         ToolNaming{Prefix: mcpUnderscore},
		NamesServer:    true, // mcp_context.server_name
		PromptEvent:    "BeforeAgent",
	}
	// OpenCode 1.18.33: a plugin shim; its opencode.json takes comments and
	// trailing commas.
	OpenCodeClient = Client{
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
		Naming: ToolNaming{Prefix: serverUnderscore},
		// OpenCode has no command hooks: the plugin shim runs deliver from
		// its chat.message hook, which OpenCode 1.18.33 runs on each new
		// user message before saving it (prompt.go's openCodePrompt).
		PromptEvent: "chat.message",
	}
	// Cursor, from its documentation: no matcher, and MCP tools documented
	// as MCP:<tool>, so approve asks for every MCP tool by default; timeout
	// in seconds, default not documented.
	CursorClient = Client{
		Name: "cursor", Display: "Cursor",
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
		// Documented as MCP:<server>:<tool>, and as mcp__<server>__<tool>.
		Naming: ToolNaming{Prefix: mcpColon, Also: mcpDunder},
	}
)

var (
	// GitHub Copilot CLI 1.0.102: its own file in ~/.copilot/hooks/ (every
	// *.json there is read) or the repository's .github/hooks/, in Claude
	// Code's nested groups under camelCase events; a matcher must match the
	// whole tool name. Timeout in seconds, default 30 (its docs).
	CopilotClient = Client{
		Name: "copilot", Display: "Copilot CLI",
		ShellTool: "bash",
		User:      Path{HomeDir, ".copilot/hooks/interceptor.json"},
		Project:   Path{ProjectDir, ".github/hooks/interceptor.json"},
		Layout:    Grouped, PreTool: "preToolUse", PostTool: "postToolUse",
		TimeoutUnit: time.Second, TimeoutDefault: 30 * time.Second,
		RewritesResult: true, MatchWholeName: true, NoApprove: true,
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
		Naming: ToolNaming{Prefix: serverDash},
	}
	// Cline CLI 3.0.65: an executable per event in ~/.cline/hooks/ or
	// <project>/.clinerules/hooks/; 30 s timeout, not configurable.
	ClineClient = Client{
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
		Naming: ToolNaming{Prefix: serverDunder, HashedIfUnclean: true},
	}
	// Factory Droid 0.225.2: Claude Code's format in ~/.factory/settings.json.
	DroidClient = Client{
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
		Naming: ToolNaming{Prefix: serverTripleUnderscore},
	}
	// Kilo CLI 7.7.7: OpenCode's plugin API under Kilo's own dirs.
	KiloClient = Client{
		Name: "kilo", Display: "Kilo CLI",
		ShellTool:      "bash", // the plugin's input.tool
		User:           Path{XDGConfigHome, "kilo/plugin/interceptor.ts"},
		Project:        Path{ProjectDir, ".kilo/plugin/interceptor.ts"},
		Layout:         Plugin,
		RewritesResult: true,
		Syntax:         Syntax{Comments: true, TrailingCommas: true},
		// Every file `kilo debug config` 7.7.7 merged "mcp" from, each given
		// a server of its own (not OpenCode's ~/.config/opencode).
		MCPServers: []ServerList{
			{Path: Path{XDGConfigHome, "kilo/config.json"}, Key: "mcp"},
			{Path: Path{XDGConfigHome, "kilo/kilo.json"}, Key: "mcp"},
			{Path: Path{XDGConfigHome, "kilo/kilo.jsonc"}, Key: "mcp"},
			{Path: Path{XDGConfigHome, "kilo/opencode.json"}, Key: "mcp"},
			{Path: Path{XDGConfigHome, "kilo/opencode.jsonc"}, Key: "mcp"},
			{Path: Path{HomeDir, ".kilo/kilo.json"}, Key: "mcp"},
			{Path: Path{HomeDir, ".kilo/kilo.jsonc"}, Key: "mcp"},
			{Path: Path{HomeDir, ".kilo/opencode.json"}, Key: "mcp"},
			{Path: Path{HomeDir, ".kilo/opencode.jsonc"}, Key: "mcp"},
			{Path: Path{HomeDir, ".kilocode/kilo.json"}, Key: "mcp"},
			{Path: Path{HomeDir, ".kilocode/kilo.jsonc"}, Key: "mcp"},
			{Path: Path{HomeDir, ".kilocode/opencode.json"}, Key: "mcp"},
			{Path: Path{HomeDir, ".kilocode/opencode.jsonc"}, Key: "mcp"},
			{Path: Path{ProjectDir, "kilo.json"}, Key: "mcp"},
			{Path: Path{ProjectDir, "kilo.jsonc"}, Key: "mcp"},
			{Path: Path{ProjectDir, "opencode.json"}, Key: "mcp"},
			{Path: Path{ProjectDir, "opencode.jsonc"}, Key: "mcp"},
			{Path: Path{ProjectDir, ".kilo/kilo.json"}, Key: "mcp"},
			{Path: Path{ProjectDir, ".kilo/kilo.jsonc"}, Key: "mcp"},
			{Path: Path{ProjectDir, ".kilo/opencode.json"}, Key: "mcp"},
			{Path: Path{ProjectDir, ".kilo/opencode.jsonc"}, Key: "mcp"},
			{Path: Path{ProjectDir, ".kilocode/kilo.json"}, Key: "mcp"},
			{Path: Path{ProjectDir, ".kilocode/kilo.jsonc"}, Key: "mcp"},
			{Path: Path{ProjectDir, ".kilocode/opencode.json"}, Key: "mcp"},
			{Path: Path{ProjectDir, ".kilocode/opencode.jsonc"}, Key: "mcp"},
		},
		Naming: ToolNaming{Prefix: serverUnderscore},
		// The same shim and hook as OpenCode's (its payloads arrive as
		// --client opencode).
		PromptEvent: "chat.message",
	}
)

// Clients are all clients, in name order.
var Clients = []*Client{&ClaudeCodeClient, &ClineClient, &CodexClient, &CopilotClient, &CursorClient, &DroidClient, &GeminiClient, &KiloClient, &OpenCodeClient}

// FindClient is the client named name.
func FindClient(name string) (*Client, bool) {
	for _, c := range Clients {
		if c.Name == name {
			return c, true
		}
	}
	return nil, false
}

// Collisions are the other configured servers whose tools the client names
// so that they could be read as server's, or server's as theirs (under
// Codex, wf's prefix mcp__wf__ starts wf__admin's mcp__wf__admin__): the
// hooks must refuse those names (--not-server). None where the payload
// names the server. Every spelling the hooks accept counts (ToolPrefixes):
// Cursor's MCP:wf: and MCP:wf__admin: do not collide, but its other form
// mcp__wf__ starts mcp__wf__admin__.
func (c *Client) Collisions(server string, configured []string) []string {
	if c.NamesServer {
		return nil
	}
	mine := c.ToolPrefixes(server)
	if len(mine) == 0 {
		return nil
	}
	var out []string
	for _, other := range configured {
		if _, _, ok := overlap(mine, c.ToolPrefixes(other)); ok && other != server {
			out = append(out, other)
		}
	}
	return out
}

// CollidingSpellings are the spellings of server's and other's tools under
// the client that a tool name could start with both, e.g. Cursor's
// mcp__wf__ and mcp__wf__admin__; ok is false when there are none.
func (c *Client) CollidingSpellings(server, other string) (mine, theirs string, ok bool) {
	return overlap(c.ToolPrefixes(server), c.ToolPrefixes(other))
}

// overlap finds a prefix of a and one of b that a name could start with
// both.
func overlap(a, b []string) (p, q string, ok bool) {
	for _, p := range a {
		for _, q := range b {
			if strings.HasPrefix(p, q) || strings.HasPrefix(q, p) {
				return p, q, true
			}
		}
	}
	return "", "", false
}

// ScriptEvent is the event a hook file named name runs on, of the
// client's PreTool and PostTool events ("": neither), as Cline 3.0.65
// reads names: the extension, lowercased, must be one of ScriptExts; what
// is left once it is cut off (only when written in lowercase: Node's
// basename), trimmed, is the event's name in any case.
func (c *Client) ScriptEvent(name string) string {
	ext := ""
	if i := strings.LastIndexByte(name, '.'); i > 0 {
		ext = strings.ToLower(name[i:])
	}
	known := false
	for _, e := range c.ScriptExts {
		known = known || e == ext
	}
	if !known || c.Layout != Scripts {
		return ""
	}
	base := name
	if ext != "" && base != ext {
		base = strings.TrimSuffix(base, ext)
	}
	base = strings.TrimSpace(base)
	for _, ev := range []string{c.PreTool, c.PostTool} {
		if strings.EqualFold(base, ev) {
			return ev
		}
	}
	return ""
}
