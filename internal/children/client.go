package children

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/interceptor-dev/interceptor/internal/hooks"
	"github.com/tidwall/gjson"
)

// Client runs one kind of child agent headless: the client's facts
// (hooks.Client.Headless: its command line, its output format, its
// approval route) with the machinery here.
type Client struct{ c *hooks.Client }

// Name is the client's name in create's client argument.
func (c Client) Name() string { return c.c.Name }

// Display is the client's name as people call it.
func (c Client) Display() string { return c.c.Display }

// Traits are what a client offers beyond its command line.
type Traits struct {
	// ChoosesSession: the client takes a session id chosen at create
	// (--session-id), so the child's session is known before its first chat.
	ChoosesSession bool
	// HookApprovals: its tool calls reach the approval queue only through
	// the approve hook installed in its own config (interceptor install
	// CLIENT --approve); the runner wires no route per chat.
	HookApprovals bool
	// Options are the per-child options it honours, of OptApprove,
	// OptMCPConfig and OptHumanTools; create refuses the others rather
	// than store what the client would ignore.
	Options []string
}

// Traits: a client whose permission prompts go to the chat's own MCP
// server (permitroute.go) honours every option, which that route carries:
// approve is its --match, mcp_config joins the route's MCP config, and the
// same server serves the human tools. A hook client honours none: its
// installed hooks and its own config decide.
func (c Client) Traits() Traits {
	h := c.c.Headless
	t := Traits{ChoosesSession: h.ChoosesSession, HookApprovals: !h.PermitTool}
	if h.PermitTool {
		t.Options = []string{OptApprove, OptMCPConfig, OptHumanTools}
	}
	return t
}

// The per-child options a client may honour (create's argument names).
const (
	OptApprove    = "approve"
	OptMCPConfig  = "mcp_config"
	OptHumanTools = "human_tools"
)

// Command is how a runner starts the client for one chat.
type Command struct {
	Argv  []string
	Env   []string
	Files map[string]string // written into the chat dir (0600) before the start
	Stdin string
}

// RunSpec is what a client needs to build a chat's command line.
type RunSpec struct {
	Child    Child
	ChatID   string
	ChatDir  string
	Prompt   string
	Bin      string // the interceptor binary (the approval route runs it)
	StateDir string
	// ApproveTimeout is how long a call waits for the parent's decision.
	ApproveTimeout time.Duration
}

// Resume reports whether the chat continues the child's session.
func (r RunSpec) Resume() bool { return r.Child.Session != "" && r.Child.Chats > 1 }

// Command is the client's command line for one chat: argv (argv[0] is
// the executable, looked up on the child's PATH), extra environment, files
// to write into the chat dir first (name -> content), and stdin.
func (c Client) Command(r RunSpec) (Command, error) {
	h := c.c.Headless
	args := hooks.ChatArgs{Resume: r.Resume(), Session: r.Child.Session, Model: r.Child.Model, Dir: r.Child.WorkingDir, Prompt: r.Prompt}
	cmd := Command{Env: withEnv(r.Child)}
	if h.PermitTool {
		route, err := permitRoute(c.c, r)
		if err != nil {
			return Command{}, err
		}
		args.MCPConfig, args.PermitTool, args.Allowed = filepath.Join(r.ChatDir, route.file), route.tool, route.allowed
		cmd.Files = map[string]string{route.file: route.config}
	}
	if h.PromptOnStdin {
		cmd.Stdin = r.Prompt
	}
	cmd.Argv = h.Argv(args)
	return cmd, nil
}

// Normalizer turns a client's output lines into normalized events: JSON
// objects whose type is start, content, tool_use, tool_result or complete,
// each keeping the client's line under "raw".
type Normalizer interface {
	Line(line []byte) []Normalized
	// Session is the client's own session id, once it said it ("" before).
	Session() string
}

// readers are the Normalizers of the clients' output formats, one file
// each (claude.go, codex.go, gemini.go, opencode.go).
var readers = []reader{
	{hooks.ClaudeStreamJSON, func() Normalizer { return &claudeNorm{} }},
	{hooks.CodexJSONL, func() Normalizer { return &codexNorm{} }},
	{hooks.GeminiStreamJSON, func() Normalizer { return &geminiNorm{} }},
	{hooks.OpenCodeJSON, func() Normalizer { return &opencodeNorm{} }},
}

type reader struct {
	format hooks.Output
	new    func() Normalizer
}

// readerOf is the reader of format; ok is false when there is none.
func readerOf(format hooks.Output) (r reader, ok bool) {
	for _, r := range readers {
		if r.format == format {
			return r, true
		}
	}
	return reader{}, false
}

// NewNormalizer reads the client's stdout for one chat.
func (c Client) NewNormalizer() Normalizer {
	r, _ := readerOf(c.c.Headless.Output) // Clients lists only clients with one
	return r.new()
}

// DefaultClient is the client of a child created without one: the one
// whose approval route, its permission-prompt tool, needs no hook
// installed beforehand, as in the reference design.
func DefaultClient() string { return hooks.PermitClient.Name }

// LookupClient finds a client by name.
func LookupClient(name string) (Client, error) {
	for _, c := range Clients() {
		if c.Name() == name {
			return c, nil
		}
	}
	return Client{}, fmt.Errorf("client %q: want one of %s", name, strings.Join(ClientNames(), ", "))
}

// ClientNames lists the clients, sorted.
func ClientNames() []string {
	var out []string
	for _, c := range Clients() {
		out = append(out, c.Name())
	}
	return out
}

// Clients are the clients interceptor can run headless and read, by name.
func Clients() []Client {
	var out []Client
	for _, c := range hooks.ByName() {
		if c.Headless == nil {
			continue
		}
		if _, ok := readerOf(c.Headless.Output); ok {
			out = append(out, Client{c})
		}
	}
	return out
}

// textOf joins the text of a string or of an array of content blocks.
func textOf(v gjson.Result) string {
	if v.Type == gjson.String {
		return v.Str
	}
	var parts []string
	v.ForEach(func(_, b gjson.Result) bool {
		if t := b.Get("text"); t.Type == gjson.String {
			parts = append(parts, t.Str)
		} else if b.Type == gjson.String {
			parts = append(parts, b.Str)
		}
		return true
	})
	return strings.Join(parts, "\n")
}

// withEnv merges a child's env into a command's extra env.
func withEnv(c Child, extra ...string) []string {
	keys := make([]string, 0, len(c.Env))
	for k := range c.Env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := []string{}
	for _, k := range keys {
		out = append(out, k+"="+c.Env[k])
	}
	return append(out, extra...)
}
