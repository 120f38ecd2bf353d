package children

import (
	"path/filepath"

	"github.com/interceptor-dev/interceptor/internal/humantools"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// claudeCode runs `claude -p --output-format stream-json --verbose`, the
// first chat with --session-id (an id chosen at create), the next ones with
// --resume of it. Its permission prompts go to `interceptor mcp --role
// child --chat <chat>` through --permission-prompt-tool, so every request is
// tagged with its chat. The same server serves the child's human tools
// (--human-tools), their requests tagged with the chat too.
type claudeCode struct{}

func init() { register(claudeCode{}) }

func (claudeCode) Name() string { return "claude-code" }

func (claudeCode) Traits() Traits {
	return Traits{ChoosesSession: true, Options: []string{OptApprove, OptMCPConfig, OptHumanTools}}
}

// approvalServer is the MCP server name of the permission route; the
// prompt tool is mcp__<name>__permit.
const approvalServer = "interceptor"

func (claudeCode) Command(r RunSpec) (Command, error) {
	mcp := `{"mcpServers":{}}`
	if r.Child.MCPConfig != "" {
		raw, err := readMCPConfig(r.Child.MCPConfig)
		if err != nil {
			return Command{}, err
		}
		if s := gjson.Get(raw, "mcpServers"); s.IsObject() {
			mcp, _ = sjson.SetRaw(mcp, "mcpServers", s.Raw)
		}
	}
	route := `{"type":"stdio"}`
	route, _ = sjson.Set(route, "command", r.Bin)
	args := []string{"mcp", "--role", "child", "--state-dir", r.StateDir, "--chat", r.ChatID}
	if r.Child.Approve != "" {
		args = append(args, "--match", r.Child.Approve)
	}
	if r.ApproveTimeout > 0 {
		args = append(args, "--timeout", r.ApproveTimeout.String())
	}
	var human []string // the human tools, allowed: a person answers them anyway
	if r.Child.HumanTools != "" {
		decl, err := humantools.Load(r.Child.HumanTools)
		if err != nil {
			return Command{}, err
		}
		for _, t := range decl {
			human = append(human, "mcp__"+approvalServer+"__"+t.Name)
		}
		args = append(args, "--human-tools", r.Child.HumanTools)
	}
	route, _ = sjson.Set(route, "args", args)
	mcp, _ = sjson.SetRaw(mcp, "mcpServers."+approvalServer, route)

	argv := []string{"claude", "-p", "--output-format", "stream-json", "--verbose"}
	if r.Resume() {
		argv = append(argv, "--resume", r.Child.Session)
	} else {
		argv = append(argv, "--session-id", r.Child.Session)
	}
	if r.Child.Model != "" {
		argv = append(argv, "--model", r.Child.Model)
	}
	argv = append(argv, "--mcp-config", filepath.Join(r.ChatDir, "mcp.json"),
		"--permission-prompt-tool", "mcp__"+approvalServer+"__permit")
	if len(human) > 0 {
		argv = append(append(argv, "--allowedTools"), human...)
	}
	return Command{Argv: argv, Env: withEnv(r.Child), Files: map[string]string{"mcp.json": mcp}, Stdin: r.Prompt}, nil
}

func (claudeCode) NewNormalizer() Normalizer { return &claudeNorm{} }

type claudeNorm struct{ session string }

func (n *claudeNorm) Session() string { return n.session }

// Line reads one stream-json line: system/init is the start, assistant
// text and tool_use blocks, user tool_result blocks, and result the end.
func (n *claudeNorm) Line(line []byte) []string {
	if !gjson.ValidBytes(line) {
		return nil
	}
	j := gjson.ParseBytes(line)
	if s := j.Get("session_id").Str; s != "" {
		n.session = s
	}
	var out []string
	switch j.Get("type").Str {
	case "system":
		if j.Get("subtype").Str == "init" {
			out = append(out, event(line, "start", "session", j.Get("session_id").Str, "model", j.Get("model").Str, "cwd", j.Get("cwd").Str))
		}
	case "assistant":
		j.Get("message.content").ForEach(func(_, b gjson.Result) bool {
			switch b.Get("type").Str {
			case "text":
				out = append(out, event(line, "content", "text", b.Get("text").Str))
			case "tool_use":
				out = append(out, event(line, "tool_use", "id", b.Get("id").Str, "name", b.Get("name").Str, "input", b.Get("input")))
			}
			return true
		})
	case "user":
		j.Get("message.content").ForEach(func(_, b gjson.Result) bool {
			if b.Get("type").Str == "tool_result" {
				out = append(out, event(line, "tool_result", "tool_use_id", b.Get("tool_use_id").Str,
					"content", textOf(b.Get("content")), "is_error", b.Get("is_error").Bool()))
			}
			return true
		})
	case "result":
		st := Complete
		if j.Get("is_error").Bool() || j.Get("subtype").Str != "success" {
			st = Failed
		}
		ev := event(line, "complete", "status", string(st), "result", j.Get("result").Str)
		if st == Failed {
			ev, _ = sjson.Set(ev, "error", firstNonEmpty(j.Get("result").Str, j.Get("subtype").Str))
		}
		out = append(out, ev)
	}
	return out
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}
