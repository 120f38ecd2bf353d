package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/interceptor-dev/interceptor/internal/approvals"
	"github.com/interceptor-dev/interceptor/internal/children"
	"github.com/interceptor-dev/interceptor/internal/rawjson"
	"github.com/tidwall/gjson"
)

// maxWait bounds a long poll.
const maxWait = 600

// WithChildren adds the child-session tools (create, chat_async, poll,
// cancel, list) to a supervisor's tools, and lets respond take the
// reference design's names too: approval_id and approve, answering
// {"type":"ok","approval_id":…} next to id and status.
func WithChildren(tools []Tool, cs *children.Store, q *approvals.Store) []Tool {
	out := make([]Tool, 0, len(tools)+5)
	for _, t := range tools {
		if t.Name == "respond" {
			t = referenceRespond(t)
		}
		out = append(out, t)
	}
	return append(out, childrenTools(cs, q)...)
}

// referenceRespond wraps respond: approval_id and approve are read as id
// and allow, and the result also says type ok and approval_id.
func referenceRespond(t Tool) Tool {
	inner := t.Call
	t.Description += " Also accepts approval_id and approve (the names of the child-session tools)."
	// respond's own arguments, and the two names; id is no longer required.
	t.InputSchema = `{"type":"object","properties":{` + respondProperties + `,"approval_id":{"type":"string"},"approve":{"type":"boolean"}}}`
	t.Call = func(ctx context.Context, args gjson.Result) (Result, error) {
		args, err := withAliases(args, map[string]string{"approval_id": "id", "approve": "allow"})
		if err != nil {
			return Result{}, err
		}
		res, err := inner(ctx, args)
		if err != nil || res.IsError {
			return res, err
		}
		var r responseResult
		if err := json.Unmarshal([]byte(res.Text), &r); err != nil {
			return Result{}, fmt.Errorf("respond's result: %w", err)
		}
		r.Type, r.ApprovalID = "ok", r.ID
		return resultOf(r)
	}
	return t
}

// withAliases is args (an object; anything else reads as {}) with each
// alias's value under its name too, where the name is not given itself.
func withAliases(args gjson.Result, aliases map[string]string) (gjson.Result, error) {
	m := map[string]json.RawMessage{}
	if args.IsObject() {
		if err := json.Unmarshal([]byte(args.Raw), &m); err != nil {
			return gjson.Result{}, fmt.Errorf("arguments: %w", err)
		}
	}
	for alias, name := range aliases {
		if v, ok := m[alias]; ok {
			if _, given := m[name]; !given {
				m[name] = v
			}
		}
	}
	b, err := rawjson.Marshal(m)
	if err != nil {
		return gjson.Result{}, fmt.Errorf("arguments: %w", err)
	}
	return gjson.ParseBytes(b), nil
}

// createSchema is create's input schema; the client enum lists the
// clients that can run as children.
func createSchema() string {
	enum := []byte{'['}
	for i, name := range children.ClientNames() {
		if i > 0 {
			enum = append(enum, ',')
		}
		enum = rawjson.AppendString(enum, name)
	}
	return `{"type":"object","properties":{"name":{"type":"string"},"client":{"type":"string","enum":` + string(enum) + `]},"working_dir":{"type":"string"},"model":{"type":"string"},"loopback_enabled":{"type":"boolean"},"mcp_config":{"type":["object","string"]},"approve":{"type":"string"},"human_tools":{"type":"string"},"approvals":{"type":"boolean"},"env":{"type":"object","additionalProperties":{"type":"string"}}},"required":["name"]}`
}

// childResult is a child tool's result as the reference design shapes
// it: its type (created, started, ok, error) and what the tool says.
type childResult struct {
	Type      string          `json:"type"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Client    string          `json:"client,omitempty"`
	SessionID string          `json:"session_id,omitempty"`
	Status    children.Status `json:"status,omitempty"`
	Message   string          `json:"message,omitempty"`
}

// childError is a failed tool call as the reference design shapes it.
func childError(err error) (Result, error) {
	res, rerr := resultOf(childResult{Type: "error", Message: err.Error()})
	res.IsError = true
	return res, rerr
}

func childrenTools(cs *children.Store, q *approvals.Store) []Tool {
	return []Tool{createTool(cs), chatTool(cs), pollTool(cs, q), cancelTool(cs), listTool(cs, q)}
}

// strArg reads the first of names given, which must be a string ("": none
// given).
func strArg(args gjson.Result, names ...string) (string, error) {
	for _, n := range names {
		v := args.Get(n)
		if !v.Exists() || v.Type == gjson.Null {
			continue
		}
		if v.Type != gjson.String {
			return "", fmt.Errorf("%s must be a string", n)
		}
		return v.Str, nil
	}
	return "", nil
}

// numArg reads a number >= 0 (0: not given).
func numArg(args gjson.Result, name string) (int, error) {
	v := args.Get(name)
	if !v.Exists() || v.Type == gjson.Null {
		return 0, nil
	}
	if v.Type != gjson.Number || v.Float() < 0 {
		return 0, fmt.Errorf("%s must be a number >= 0", name)
	}
	return int(v.Int()), nil
}

// createDescription is create's description; which clients take which
// options comes from the clients' descriptions.
func createDescription() string {
	var routed, hooked []string
	for _, c := range children.Clients() {
		if c.Traits().HookApprovals {
			hooked = append(hooked, c.Display())
		} else {
			routed = append(routed, c.Display())
		}
	}
	return "Create a child agent (no chat yet): name (unique), client (" + strings.Join(children.ClientNames(), ", ") + "; " +
		"default " + children.DefaultClient() + "), working_dir, model, env (extra environment). " + strings.Join(routed, ", ") + " only: mcp_config (an object with " +
		"mcpServers, or a file path), approve (regex of the tool names that wait for you; the others run), human_tools " +
		"(a human tools file: its calls come to you as questions to answer). " + strings.Join(hooked, ", ") + " ask through the approve " +
		"hook installed in their config; create fails without one unless approvals is false (the child then runs its " +
		"tools unsupervised). Returns {type:created,id}."
}

func createTool(cs *children.Store) Tool {
	return Tool{
		Name:        "create",
		Description: createDescription(),
		InputSchema: createSchema(),
		Call: func(ctx context.Context, args gjson.Result) (Result, error) {
			c, err := childFromArgs(args)
			if err != nil {
				return childError(err)
			}
			if c, err = cs.Create(c); err != nil {
				return childError(err)
			}
			return resultOf(childResult{Type: "created", ID: c.ID, Name: c.Name, Client: c.Client})
		},
	}
}

// childFromArgs reads create's arguments.
func childFromArgs(args gjson.Result) (children.Child, error) {
	c := children.Child{Env: map[string]string{}}
	var err error
	for _, f := range []struct {
		dst  *string
		name string
	}{{&c.Name, "name"}, {&c.Client, "client"}, {&c.WorkingDir, "working_dir"}, {&c.Model, "model"}, {&c.Approve, "approve"}, {&c.HumanTools, "human_tools"}} {
		if *f.dst, err = strArg(args, f.name); err != nil {
			return c, err
		}
	}
	if c.Client == "" {
		c.Client = children.DefaultClient()
	}
	switch a := args.Get("approvals"); a.Type {
	case gjson.False:
		c.Unsupervised = true
	case gjson.True, gjson.Null:
	default:
		return c, errors.New("approvals must be true or false")
	}
	switch m := args.Get("mcp_config"); {
	case m.IsObject():
		c.MCPConfig = m.Raw
	case m.Type == gjson.String:
		c.MCPConfig = m.Str
	case m.Exists() && m.Type != gjson.Null:
		return c, errors.New("mcp_config must be an object or a file path")
	}
	env := args.Get("env")
	if env.Exists() && env.Type != gjson.Null && !env.IsObject() {
		return c, errors.New("env must be an object of strings")
	}
	var bad error
	env.ForEach(func(k, v gjson.Result) bool {
		if v.Type != gjson.String || k.Str == "" || strings.ContainsAny(k.Str, "=\x00") {
			bad = fmt.Errorf("env.%s must be a string (and its name a variable name)", k.Str)
			return false
		}
		c.Env[k.Str] = v.Str
		return true
	})
	return c, bad
}

func chatTool(cs *children.Store) Tool {
	return Tool{
		Name: "chat_async",
		Description: "Start a chat with a child (by name or id) and return at once with its session_id; follow it with " +
			"poll. Each chat resumes the child's own session, so it keeps the context of the earlier chats.",
		InputSchema: `{"type":"object","properties":{"name":{"type":"string"},"id":{"type":"string"},"prompt":{"type":"string"}},"required":["prompt"]}`,
		Call: func(ctx context.Context, args gjson.Result) (Result, error) {
			who, err := strArg(args, "name", "id")
			if err != nil {
				return childError(err)
			}
			prompt, err := strArg(args, "prompt")
			if err != nil {
				return childError(err)
			}
			if who == "" {
				return childError(errors.New("name (or id) is required"))
			}
			chat, err := cs.StartChat(who, prompt)
			if err != nil {
				return childError(err)
			}
			return resultOf(childResult{Type: "started", SessionID: chat.ID})
		},
	}
}

func pollTool(cs *children.Store, q *approvals.Store) Tool {
	return Tool{
		Name: "poll",
		Description: "Events of a chat from from_seq on (default 0; any number of readers can replay), at most limit, " +
			"with its status (running, awaiting_permission, complete, failed) and its pending approvals (answer them " +
			"with respond). wait_seconds (max 600) waits until there is something new.",
		InputSchema: `{"type":"object","properties":{"session_id":{"type":"string"},"from_seq":{"type":"integer","minimum":0},"limit":{"type":"integer","minimum":0},"wait_seconds":{"type":"number","minimum":0,"maximum":600}},"required":["session_id"]}`,
		Call: func(ctx context.Context, args gjson.Result) (Result, error) {
			id, err := strArg(args, "session_id")
			if err != nil {
				return childError(err)
			}
			r := children.PollRequest{ChatID: id}
			if r.FromSeq, err = numArg(args, "from_seq"); err != nil {
				return childError(err)
			}
			if r.Limit, err = numArg(args, "limit"); err != nil {
				return childError(err)
			}
			if w := args.Get("wait_seconds"); w.Exists() && w.Type != gjson.Null {
				if w.Type != gjson.Number || w.Float() < 0 {
					return childError(errors.New("wait_seconds must be a number >= 0"))
				}
				r.Wait = time.Duration(min(w.Float(), maxWait) * float64(time.Second))
			}
			res, err := cs.Poll(ctx, q, r)
			if err != nil {
				return childError(err)
			}
			out, err := rawjson.Marshal(res)
			if err != nil {
				return childError(err)
			}
			return Result{Text: string(out)}, nil
		},
	}
}

func cancelTool(cs *children.Store) Tool {
	return Tool{
		Name:        "cancel",
		Description: "Cancel a running chat (session_id): its client and every process it started end; the chat is failed.",
		InputSchema: `{"type":"object","properties":{"session_id":{"type":"string"}},"required":["session_id"]}`,
		Call: func(ctx context.Context, args gjson.Result) (Result, error) {
			id, err := strArg(args, "session_id")
			if err != nil {
				return childError(err)
			}
			st, err := cs.Cancel(id)
			if err != nil {
				return childError(err)
			}
			return resultOf(childResult{Type: "ok", SessionID: id, Status: st})
		},
	}
}

func listTool(cs *children.Store, q *approvals.Store) Tool {
	return Tool{
		Name:        "list",
		Description: "The children, oldest first, each with its latest chat's session_id and status.",
		InputSchema: `{"type":"object","properties":{}}`,
		Call: func(ctx context.Context, args gjson.Result) (Result, error) {
			all, err := cs.List()
			if err != nil {
				return childError(err)
			}
			var b strings.Builder
			b.WriteString(`{"type":"ok","children":[`)
			for i, c := range all {
				if i > 0 {
					b.WriteByte(',')
				}
				b.WriteString(cs.Summary(q, c))
			}
			b.WriteString("]}")
			return Result{Text: b.String()}, nil
		},
	}
}
