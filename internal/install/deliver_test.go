package install

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"
)

// TestInstallDeliver: --deliver writes deliver on the turn-start event and
// after the human server's tools (nothing else), doctor reads it as a human
// tools server, uninstall takes it out; clients without a turn-start hook
// are refused.
func TestInstallDeliver(t *testing.T) {
	env := testEnv(t)
	for client, want := range map[string][3]string{
		"claude-code": {"UserPromptSubmit", "PostToolUse", "^mcp__human__"},
		"codex":       {"UserPromptSubmit", "PostToolUse", "^mcp__human__"},
		"gemini":      {"BeforeAgent", "AfterTool", "^mcp_human_"},
	} {
		o := opts(client, User)
		o.Server, o.Deliver = "human", true
		res, err := Install(env, o)
		if err != nil {
			t.Fatalf("%s: %v", client, err)
		}
		doc := mustRead(t, res.Path)
		hooks := gjson.Get(doc, "hooks")
		if n := len(hooks.Map()); n != 2 {
			t.Fatalf("%s: %d hook events, want 2:\n%s", client, n, doc)
		}
		prompt, post := hooks.Get(want[0]+".0"), hooks.Get(want[1]+".0")
		cmd := testBin + " deliver --client " + client + " --server human"
		if prompt.Get("matcher").Exists() || prompt.Get("hooks.0.command").Str != cmd ||
			post.Get("matcher").Str != want[2] || post.Get("hooks.0.command").Str != cmd {
			t.Fatalf("%s hooks:\n%s", client, doc)
		}
		rep := Doctor(env, filepath.Join(env.Home, "state"), time.Now())
		if !hasFinding(rep, client, OK, `server "human": human tools deliver hooks installed`) {
			t.Fatalf("%s doctor: %+v", client, findingsOf(rep, client))
		}
		if res, err := Uninstall(env, o); err != nil || !res.Changed || exists(res.Path) {
			t.Fatalf("%s uninstall: %+v %v", client, res, err)
		}
	}
	for _, client := range []string{"cursor", "copilot"} { // opencode, kilo: opencode_test.go
		o := opts(client, User)
		o.Server, o.Deliver = "human", true
		if _, err := Install(env, o); err == nil || !strings.Contains(err.Error(), "no turn-start hook") {
			t.Errorf("%s --deliver: %v", client, err)
		}
	}
}

// TestDoctorHumanToolTimeouts: a held human tool must return before the
// client gives up on the MCP call.
func TestDoctorHumanToolTimeouts(t *testing.T) {
	env := testEnv(t)
	codexHome := filepath.Join(env.Home, ".codex")
	write := func(path, content string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(codexHome, "config.toml"), `
[mcp_servers.human]
command = "/usr/local/bin/interceptor"
args = ["mcp", "--role", "child", "--human-tools", "/t.json"]

[mcp_servers.asks_long]
command = "/usr/local/bin/interceptor"
args = ["proxy", "--human-tools", "/t.json", "--human-timeout", "2m", "--", "node", "s.js", "--human-timeout", "1h"]
tool_timeout_sec = 330

[mcp_servers.wf]
command = "node"
args = ["--timeout", "99h"]
`)
	write(filepath.Join(env.Home, ".gemini", "settings.json"), `{"mcpServers": {
  "human": {"command": "/usr/local/bin/interceptor", "args": ["mcp", "--role", "child", "--human-tools", "/t.json", "--timeout", "15m"]},
  "ok": {"command": "/usr/local/bin/interceptor", "args": ["mcp", "--role", "child", "--human-tools", "/t.json"], "timeout": 600000}}}`)
	env.CodexHome = codexHome
	rep := Doctor(env, filepath.Join(env.Home, "state"), time.Now())
	for _, c := range []struct {
		client, level, text string
	}{
		{"codex", Fail, `server "human" holds a human tool call up to 5m0s, but Codex gives up on a tool call after 1m0s (its default)`},
		{"codex", OK, `server "asks_long" holds a human tool call up to 2m0s, within Codex's 5m30s (tool_timeout_sec)`},
		{"gemini", Fail, `server "human" holds a human tool call up to 15m0s, but Gemini CLI gives up on a tool call after 10m0s (its default)`},
		{"gemini", OK, `server "ok" holds a human tool call up to 5m0s, within Gemini CLI's 10m0s (timeout)`},
	} {
		if !hasFinding(rep, c.client, c.level, c.text) {
			t.Errorf("%s: no %v finding %q in %+v", c.client, c.level, c.text, findingsOf(rep, c.client))
		}
	}
	for _, f := range findingsOf(rep, "codex") {
		if strings.Contains(f.Message, `"wf"`) && strings.Contains(f.Message, "human tool") {
			t.Errorf("a server without human tools was checked: %s", f.Message)
		}
	}
}

// TestDeliverSupportedClients: the clients --deliver's refusal names as
// supported are exactly those whose install --deliver succeeds.
func TestDeliverSupportedClients(t *testing.T) {
	env := testEnv(t)
	o := opts("cursor", User)
	o.Server, o.Deliver = "human", true
	_, err := Install(env, o)
	if err == nil {
		t.Fatal("cursor --deliver installed")
	}
	_, list, ok := strings.Cut(err.Error(), "(supported: ")
	list, _, _ = strings.Cut(list, ";")
	supported := strings.Split(list, ", ")
	if !ok || len(supported) < 2 {
		t.Fatalf("refusal %q names no supported clients", err)
	}
	for _, client := range Clients() {
		o := opts(client, User)
		o.Server, o.Deliver = "human", true
		_, err := Install(env, o)
		if named := slices.Contains(supported, client); named != (err == nil) {
			t.Errorf("%s: named as supported %v, install --deliver: %v", client, named, err)
		}
	}
}
