package children

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// Client runs one kind of child agent headless and reads its output.
type Client interface {
	// Name is the client's name in create's client argument.
	Name() string
	// Command is the client's command line for one chat: argv (argv[0] is
	// the executable, looked up on the child's PATH), extra environment,
	// files to write into the chat dir first (name -> content), and stdin.
	Command(r RunSpec) (Command, error)
	// NewNormalizer reads the client's stdout for one chat.
	NewNormalizer() Normalizer
	// Traits say what create and the runner can count on.
	Traits() Traits
}

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

// Normalizer turns a client's output lines into normalized events: JSON
// objects whose type is start, content, tool_use, tool_result or complete,
// each keeping the client's line under "raw".
type Normalizer interface {
	Line(line []byte) []string
	// Session is the client's own session id, once it said it ("" before).
	Session() string
}

var clients = map[string]Client{}

func register(c Client) { clients[c.Name()] = c }

// DefaultClient is the client of a child created without one: Claude Code,
// as in the reference design, whose approval route (--permission-prompt-tool)
// needs no hook installed beforehand.
func DefaultClient() string { return claudeCode{}.Name() }

// LookupClient finds a client by name.
func LookupClient(name string) (Client, error) {
	if c, ok := clients[name]; ok {
		return c, nil
	}
	return nil, fmt.Errorf("client %q: want one of %s", name, strings.Join(ClientNames(), ", "))
}

// ClientNames lists the clients, sorted.
func ClientNames() []string {
	var out []string
	for n := range clients {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// event builds a normalized event of type typ with the given fields
// (name, value pairs; a value of type gjson.Result is set raw) and the
// client's line as raw.
func event(raw []byte, typ string, kv ...any) string {
	out := `{}`
	out, _ = sjson.Set(out, "type", typ)
	for i := 0; i+1 < len(kv); i += 2 {
		k := kv[i].(string)
		switch v := kv[i+1].(type) {
		case gjson.Result:
			if v.Exists() {
				out, _ = sjson.SetRaw(out, k, v.Raw)
			}
		default:
			out, _ = sjson.Set(out, k, v)
		}
	}
	if len(raw) > 0 && gjson.ValidBytes(raw) {
		out, _ = sjson.SetRaw(out, "raw", string(raw))
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
