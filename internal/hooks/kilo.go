package hooks

// Kilo CLI 7.7.7: OpenCode's plugin API under Kilo's own dirs.
var KiloClient = Client{
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
	MCPEntry: openCodeMCPEntry,
	Naming:   ToolNaming{Prefix: serverUnderscore},
	// The same shim and hook as OpenCode's (its payloads arrive as
	// --client opencode).
	PromptEvent: "chat.message",
	Hooks:       OpenCode{},
}
