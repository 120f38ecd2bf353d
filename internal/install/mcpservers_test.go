package install

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/interceptor-dev/interceptor/internal/hooks"
)

// Each client's MCP server list is read where the client keeps it.
func TestConfiguredServers(t *testing.T) {
	env := testEnv(t)
	codexHome := filepath.Join(env.Home, "codex")
	env.Getenv = func(k string) string { return map[string]string{"CODEX_HOME": codexHome}[k] }
	write := func(path, data string) { t.Helper(); mustWrite(t, path, data, 0o644) }
	write(filepath.Join(env.Home, ".claude.json"), `{"mcpServers":{"u1":{}},"projects":{"`+env.Project+`":{"mcpServers":{"p1":{}}},"/elsewhere":{"mcpServers":{"no":{}}}}}`)
	write(filepath.Join(env.Project, ".mcp.json"), `{"mcpServers":{"m1":{"command":"x"}}}`)
	write(filepath.Join(codexHome, "config.toml"), "model = \"m\"\n[mcp_servers.wf]\ncommand = \"x\"\n[mcp_servers.\"wf__admin\"]\ncommand = \"y\"\n")
	write(filepath.Join(env.Project, ".codex", "config.toml"), "[mcp_servers.local]\ncommand = \"z\"\n")
	write(filepath.Join(env.Home, ".gemini", "settings.json"), "{\n  // mine\n  \"mcpServers\": {\"g1\": {}} /* x */\n}\n")
	write(filepath.Join(env.Home, ".config", "opencode", "opencode.json"), "{\n  // mine\n  \"mcp\": {\"o1\": {\"type\": \"local\"},},\n}\n")
	write(filepath.Join(env.Project, "opencode.jsonc"), `{"mcp": {"o2": {}}}`)
	write(filepath.Join(env.Project, ".cursor", "mcp.json"), `{"mcpServers": {"c1": {}}}`)
	for client, want := range map[string][]string{
		"claude-code": {"m1", "p1", "u1"},
		"codex":       {"local", "wf", "wf__admin"},
		"gemini":      {"g1"},
		"opencode":    {"o1", "o2"},
		"cursor":      {"c1"},
	} {
		c, _ := hooks.FindClient(client)
		got, problems := ConfiguredServers(env, c)
		if !slices.Equal(got, want) || len(problems) > 0 {
			t.Errorf("%s: servers %q (problems %q), want %q", client, got, problems, want)
		}
	}
}
