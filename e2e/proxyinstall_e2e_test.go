//go:build e2e

package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/interceptor-dev/interceptor/e2e/internal/wfserver"
	"github.com/tidwall/gjson"
)

// install --proxy with the real Claude Code: the wf and other servers are
// in Claude Code's own user-scope list (~/.claude.json), as `claude mcp add
// -s user` writes them; `interceptor install claude-code --server wf
// --proxy` rewrites wf's entry, Claude Code (no --mcp-config) starts the
// proxy from it, and the proxy scenario's checks hold: every call accepted,
// no token in any model request, no session_token in the schemas the model
// is offered. After the run, `uninstall --proxy` puts the entry back as it
// was, although Claude Code rewrote the rest of ~/.claude.json meanwhile,
// and leaves no record file.
var claudeCodeInstallProxy = &client{
	name:   "Claude Code " + claudeVersion + " (install --proxy)",
	redact: true,
	configure: func(sc *scenario) {
		servers := map[string]any{}
		for _, role := range []string{wfserver.RoleWF, wfserver.RoleOther} {
			servers[sc.serverName(role)] = map[string]any{"type": "stdio", "command": bins.tokenServer, "args": sc.serverArgs(role)}
		}
		path := filepath.Join(sc.home, ".claude.json")
		sc.write(path, mustJSON(map[string]any{"mcpServers": servers})+"\n")
		orig := entryOf(sc, path, "wf")
		sc.interceptor("install", "claude-code", "--server", "wf", "--proxy", "--bin", bins.interceptor)
		wired := gjson.Parse(entryOf(sc, path, "wf"))
		var args []string
		for _, a := range wired.Get("args").Array() {
			args = append(args, a.Str)
		}
		if wired.Get("command").Str != bins.interceptor || len(args) == 0 || args[0] != "proxy" ||
			!strings.Contains(strings.Join(args, " "), " -- "+bins.tokenServer+" ") {
			sc.t.Fatalf("install --proxy did not wire wf through the proxy: %s", wired.Raw)
		}
		sc.extraCheck = func() {
			sc.interceptor("uninstall", "claude-code", "--server", "wf", "--proxy")
			if got := entryOf(sc, path, "wf"); gjson.Get(got, "@ugly").Raw != gjson.Get(orig, "@ugly").Raw {
				sc.t.Errorf("uninstall --proxy: wf's entry is\n%s\nwant\n%s", got, orig)
			}
			if _, err := os.Stat(path + ".interceptor-proxy"); !os.IsNotExist(err) {
				sc.t.Errorf("uninstall --proxy left its record: %v", err)
			}
		}
	},
	command: func(sc *scenario) ([]string, []string, string) {
		return []string{clientBin("claude"), "-p", "--output-format", "stream-json", "--verbose",
				"--allowedTools", "mcp__" + sc.serverName(wfserver.RoleWF) + "__*", "mcp__other__*"},
			claudeEnv(sc), prompt + "\n"
	},
}

// entryOf is server's entry in the mcpServers of the JSON file at path.
func entryOf(sc *scenario, path, server string) string {
	sc.t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		sc.t.Fatal(err)
	}
	e := gjson.GetBytes(b, "mcpServers."+gjson.Escape(server))
	if !e.IsObject() {
		sc.t.Fatalf("%s has no server %s:\n%s", path, server, b)
	}
	return e.Raw
}

func TestProxyInstallClaudeCode(t *testing.T) {
	parallel(t)
	runScenarioWith(t, &scenario{t: t, c: claudeCodeInstallProxy, sessions: 1, viaProxy: true})
}
