package hooks

import (
	"slices"
	"strings"
	"time"
)

// Each client is described once, in a file of its own (claude.go, codex.go,
// ...): a Client, plain data that hooks, install, doctor, children and the
// help texts all read, beside the Adapter that speaks its hook payloads.
// This file holds the shape of that description and the list of clients;
// how a client spells a server's tools is in names.go. Nothing here runs
// at init.
//
// A new client: a file with its Client and, unless it shares another's
// payloads, its Adapter; a line in Clients; its tests.

// Client describes one client: its config, its hook format and, when
// interceptor can run it as a child agent, how.
type Client struct {
	Name    string // as --client takes it
	Display string // as people call it

	// User and Project are the hook config files install edits (for
	// OpenCode, the plugin shim it writes); Local is one more project file
	// the client reads hooks from, which doctor checks.
	User, Project, Local Path
	// ProjectEnv is the environment variable the client sets for its
	// hooks naming the project's directory ("": none), which a request
	// records as its project.
	ProjectEnv string

	Layout Layout
	// The events install writes inject and capture under, and clear
	// ("": none).
	PreTool, PostTool, SessionEnd string
	// PostToolFailure is the event a failed call's post-tool hook runs on
	// instead of PostTool ("": the client has none, or sends failures to
	// PostTool): install writes capture there too, so a start tool that
	// fails retires the value held before.
	PostToolFailure string

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
	// NoApproveWhy is the client's own reason for NoApprove ("": the
	// general one).
	NoApproveWhy string
	// Documented: known from the documentation only, never run.
	Documented bool
	// ApproveMatch is approve's default --match where the client's matcher
	// cannot pick the server's tools ("": it can).
	ApproveMatch string
	// Skeleton is a new config file before install adds to it.
	Skeleton string

	Syntax Syntax

	// MCPServers are where the client lists its MCP servers, and
	// MCPEntry the shape of an entry there.
	MCPServers []ServerList
	MCPEntry   MCPEntry
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
	// NewInputCaveat is where an approval's allow with new arguments
	// (DecisionReply's UpdatedInput) does not reach the call ("": it does
	// on every pre-tool event approve answers).
	NewInputCaveat string

	// Hooks is its hook payloads' format. Kilo CLI's is OpenCode's: its
	// shim sends OpenCode's payloads, as --client opencode.
	Hooks Adapter
	// Headless is how interceptor children runs it as a child agent (nil:
	// it does not).
	Headless *Headless
}

// Headless is how `interceptor children` runs a client as a child agent:
// one process per chat, whose JSON lines on stdout it reads. The process
// machinery and the readers of each Output are internal/children's; these
// are the client's own facts.
type Headless struct {
	// Argv is a chat's command line; argv[0] is looked up on the child's
	// PATH.
	Argv func(ChatArgs) []string
	// PromptOnStdin: the prompt goes to its stdin; else Argv carries it.
	PromptOnStdin bool
	// Output is the format of the lines it prints.
	Output Output
	// ChoosesSession: it takes a session id chosen at create, so the
	// child's session is known before its first chat; else the first
	// chat's output names it.
	ChoosesSession bool
	// PermitTool: it asks an MCP tool for permission
	// (--permission-prompt-tool), which each chat wires through an MCP
	// config file of its own; else its approvals go through the approve
	// hook installed in its config (interceptor install CLIENT --approve).
	PermitTool bool
}

// ChatArgs are what a chat's command line is made of.
type ChatArgs struct {
	Resume  bool   // the chat continues Session
	Session string // the client's session id ("" before it is known)
	Model   string // "": the client's default
	Dir     string // the child's working dir
	Prompt  string
	// With PermitTool: the MCP config file serving the permission prompt,
	// the prompt tool's name, and the tools the child may call unasked.
	MCPConfig, PermitTool string
	Allowed               []string
}

// sessionFlags appends the flags Claude Code and Gemini CLI share: a
// session chosen at create (--session-id) on the first chat, --resume of
// it on the next ones, and --model.
func sessionFlags(argv []string, c ChatArgs) []string {
	if c.Resume {
		argv = append(argv, "--resume", c.Session)
	} else {
		argv = append(argv, "--session-id", c.Session)
	}
	if c.Model != "" {
		argv = append(argv, "--model", c.Model)
	}
	return argv
}

// Output names a format of the JSON lines a client prints headless.
type Output string

// ServerList is a config file's list of MCP servers: the object (JSON or
// JSONC) or table (TOML) at Key, whose keys are the servers' names. In Key,
// "{project}" stands for the project dir.
type ServerList struct {
	Path Path
	Key  string // dotted; a JSON key holding dots is not supported
	TOML bool
}

// MCPEntry is the shape of one server's entry in a client's MCP server
// list, as far as install --proxy rewrites it: a server it starts (a
// command) or one it reaches at a Streamable HTTP address.
type MCPEntry struct {
	// CommandArray: "command" holds the command and its arguments, in one
	// array (OpenCode's); else "command" is a string and "args" an array.
	CommandArray bool
	// Env is the key of the environment the client gives a command.
	Env string
	// Type is the key naming the transport ("": none), and Stdio its
	// value for a command ("": the key is left out).
	Type, Stdio string
	// HTTP are the keys a Streamable HTTP server's address may be under.
	HTTP []URLKey
	// Headers is the key of the HTTP headers the client sends it.
	Headers string
	// Auth are keys of an entry whose authentication the client does
	// itself (a helper that makes headers, an OAuth setup the relay
	// cannot take over): a relay cannot carry it.
	Auth []string
	// OAuth is the key of an OAuth block the relay takes over (its client
	// id, callback port and scopes: Claude Code's "oauth"); "": none.
	OAuth string
}

// URLKey is a key an entry holds a Streamable HTTP address under, when
// the entry's Type is one of Types (nil: whatever it is, or none).
type URLKey struct {
	Key   string
	Types []string
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

// Root is the directory a config path is relative to: the project dir, or
// a dir under the home dir that an environment variable may move.
type Root struct {
	Project bool   // the project dir
	Var     string // the variable naming the dir instead ("": none)
	AbsOnly bool   // Var counts only when it is an absolute path (XDG's rule)
	Home    string // the dir under the home dir when Var does not name one ("": the home dir)
}

// The roots every client may use; a client's own (Claude Code's
// $CLAUDE_CONFIG_DIR) is in its file.
var (
	HomeDir       = Root{}
	ProjectDir    = Root{Project: true}
	XDGConfigHome = Root{Var: "XDG_CONFIG_HOME", AbsOnly: true, Home: ".config"}
)

// Path is a file under a Root, slash-separated; Rel "" is no file.
type Path struct {
	Root Root
	Rel  string
}

// Clients are all clients, in the order Parse asks their Hooks to
// recognize a payload: a client whose payloads extend another's comes
// first (Codex, Droid, Gemini CLI and Copilot CLI before Claude Code;
// Gemini CLI before Copilot CLI, whose snake_case payload its own
// resembles). People see them in name order (ByName).
var Clients = []*Client{&OpenCodeClient, &KiloClient, &CursorClient, &CodexClient, &DroidClient, &GeminiClient, &CopilotClient, &ClineClient, &ClaudeCodeClient}

// ByName is Clients in name order.
func ByName() []*Client {
	out := slices.Clone(Clients)
	slices.SortFunc(out, func(a, b *Client) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// ownHooks reports whether the client's payloads are its own, not
// another client's (Kilo CLI's are OpenCode's).
func (c *Client) ownHooks() bool { return c.Hooks.Name() == c.Name }

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
