package doctor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

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
	env.Getenv = func(k string) string { return map[string]string{"CODEX_HOME": codexHome}[k] }
	rep := Run(env, filepath.Join(env.Home, "state"), time.Now())
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
