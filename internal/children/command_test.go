package children

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/interceptor-dev/interceptor/internal/hooks"
)

// TestCommandLines pins each client's command line for a first chat and a
// resumed one, as the real clients were run with them (the e2e suite's
// TestChildren*): argv, the prompt's way in, and the files the chat gets.
func TestCommandLines(t *testing.T) {
	human, err := filepath.Abs("testdata/human-tools.json")
	if err != nil {
		t.Fatal(err)
	}
	base := Child{WorkingDir: "/w", Session: "S", Env: map[string]string{"B": "2", "A": "1"}}
	first, resumed := base, base
	first.Chats, resumed.Chats = 1, 2
	resumed.Model = "M"
	claude := resumed
	claude.MCPConfig = `{"mcpServers":{"wf":{"command":"wf"}},"other":1}`
	claude.Approve = "^mcp__wf__"
	claude.HumanTools = human
	spec := func(c Child) RunSpec {
		return RunSpec{Child: c, ChatID: "c-1", ChatDir: "/chat", Prompt: "do it", Bin: "/bin/interceptor", StateDir: "/st"}
	}
	withTimeout := spec(claude)
	withTimeout.ApproveTimeout = 90 * time.Second
	const route = "--mcp-config /chat/mcp.json --permission-prompt-tool mcp__interceptor__permit"
	for _, c := range []struct {
		client string
		spec   RunSpec
		argv   string
		stdin  string
		mcp    string // mcp.json, when the chat gets one
	}{
		{"claude-code", spec(first), "claude -p --output-format stream-json --verbose --session-id S " + route, "do it",
			`{"mcpServers":{"interceptor":{"type":"stdio","command":"/bin/interceptor","args":["mcp","--role","child","--state-dir","/st","--chat","c-1"]}}}`},
		{"claude-code", withTimeout, "claude -p --output-format stream-json --verbose --resume S --model M " + route + " --allowedTools mcp__interceptor__request_access", "do it",
			`{"mcpServers":{"wf":{"command":"wf"},"interceptor":{"type":"stdio","command":"/bin/interceptor","args":["mcp","--role","child","--state-dir","/st","--chat","c-1","--match","^mcp__wf__","--timeout","1m30s","--human-tools","` + human + `"]}}}`},
		{"codex", spec(first), "codex exec --json --skip-git-repo-check -C /w -", "do it", ""},
		{"codex", spec(resumed), "codex exec resume --json --skip-git-repo-check -m M S -", "do it", ""},
		{"gemini", spec(first), "gemini --prompt=do it --output-format stream-json --skip-trust --session-id S", "", ""},
		{"gemini", spec(resumed), "gemini --prompt=do it --output-format stream-json --skip-trust --resume S --model M", "", ""},
		{"opencode", spec(first), "opencode run --format json -- do it", "", ""},
		{"opencode", spec(resumed), "opencode run --format json --session S --model M -- do it", "", ""},
	} {
		client, err := LookupClient(c.client)
		if err != nil {
			t.Fatal(err)
		}
		cmd, err := client.Command(c.spec)
		if err != nil {
			t.Fatalf("%s: %v", c.client, err)
		}
		if got := strings.Join(cmd.Argv, " "); got != c.argv {
			t.Errorf("%s argv:\n got %s\nwant %s", c.client, got, c.argv)
		}
		if cmd.Stdin != c.stdin {
			t.Errorf("%s stdin %q, want %q", c.client, cmd.Stdin, c.stdin)
		}
		if !slices.Equal(cmd.Env, []string{"A=1", "B=2"}) {
			t.Errorf("%s env %q, want the child's, sorted", c.client, cmd.Env)
		}
		if got := cmd.Files["mcp.json"]; got != c.mcp || len(cmd.Files) > 1 {
			t.Errorf("%s files %q, want mcp.json %s", c.client, cmd.Files, c.mcp)
		}
	}
}

// TestClientsFromTheDescriptions: children runs exactly the clients whose
// description says how to run them headless in an output format it reads,
// and a client added there with such a format is runnable with no change
// here.
func TestClientsFromTheDescriptions(t *testing.T) {
	if got := strings.Join(ClientNames(), ","); got != "claude-code,codex,gemini,opencode" {
		t.Errorf("clients %s", got)
	}
	tenth := hooks.GeminiClient
	tenth.Name = "tenth"
	unread := hooks.GeminiClient
	unread.Name, unread.Headless = "unread", &hooks.Headless{Argv: hooks.GeminiClient.Headless.Argv, Output: "no reader"}
	saved := hooks.Clients
	hooks.Clients = append(append([]*hooks.Client{}, saved...), &tenth, &unread)
	t.Cleanup(func() { hooks.Clients = saved })
	c, err := LookupClient("tenth")
	if err != nil || c.NewNormalizer() == nil || !c.Traits().HookApprovals {
		t.Errorf("tenth: %v, %v", c, err)
	}
	if _, err := LookupClient("unread"); err == nil || !strings.Contains(err.Error(), "want one of claude-code, codex, gemini, opencode, tenth") {
		t.Errorf("a client whose output nothing reads: %v", err)
	}
}
