//go:build e2e

package e2e

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/interceptor-dev/interceptor/e2e/fakemodel"
	"github.com/interceptor-dev/interceptor/e2e/internal/verify"
	"github.com/interceptor-dev/interceptor/e2e/internal/wfserver"
)

func mustJSON(v any) string {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		panic(err)
	}
	return string(b)
}

// install wires the hooks the way the README tells a user to:
// `interceptor install CLIENT --server wf [--redact]`, here with the
// scenario's HOME (and extra env such as CODEX_HOME) and --bin naming the
// hook under test (the interceptor, or the pass-through of E2E_HOOK).
func (sc *scenario) install(client string, env []string, args ...string) {
	sc.t.Helper()
	if sc.viaProxy {
		return // a proxy scenario has no hooks
	}
	argv := append([]string{"install", client, "--server", sc.serverName(wfserver.RoleWF), "--bin", sc.hook}, args...)
	if sc.c.redact {
		argv = append(argv, "--redact")
	}
	cmd := exec.Command(bins.interceptor, argv...)
	cmd.Env = append(sc.baseEnv(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		sc.t.Fatalf("interceptor %s: %v\n%s", strings.Join(argv, " "), err, out)
	}
	sc.t.Logf("interceptor %s:\n%s", strings.Join(argv, " "), out)
}

var claudeCode = &client{
	name:   "Claude Code " + claudeVersion,
	redact: true,
	configure: func(sc *scenario) {
		servers := map[string]any{}
		for _, role := range []string{"wf", "other"} {
			cmd, args := sc.serverCommand(role)
			servers[sc.serverName(role)] = map[string]any{"type": "stdio", "command": cmd, "args": args}
		}
		sc.write(sc.path("mcp.json"), mustJSON(map[string]any{"mcpServers": servers}))
		sc.install("claude-code", nil) // ~/.claude/settings.json under the scenario's HOME
	},
	command: func(sc *scenario) ([]string, []string, string) {
		return []string{clientBin("claude"), "-p", "--output-format", "stream-json", "--verbose",
				"--mcp-config", sc.path("mcp.json"), "--strict-mcp-config",
				"--allowedTools", "mcp__" + sc.serverName(wfserver.RoleWF) + "__*", "mcp__other__*"},
			claudeEnv(sc), prompt + "\n"
	},
}

// claudeEnv runs Claude Code offline against the scenario's fake model,
// with MCP tools offered directly (not behind a ToolSearch tool).
func claudeEnv(sc *scenario) []string {
	return []string{"ANTHROPIC_BASE_URL=" + sc.baseURL, "ANTHROPIC_API_KEY=e2e-dummy-key",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_TELEMETRY=1", "DISABLE_AUTOUPDATER=1",
		"ENABLE_TOOL_SEARCH=false"}
}

// codexConfigHead is the start of Codex's config.toml: the fake model as
// its provider, no approvals, no plugins, no analytics. Codex sends its
// analytics as it exits; its resolver (musl) waits 5 s for a DNS server
// the loopback-only namespace cannot reach before it gives up, and that
// was most of each Codex run's time (strace: 5 s of 7).
func codexConfigHead(sc *scenario) string {
	var toml strings.Builder
	fmt.Fprintf(&toml, "model = \"e2e-model\"\nmodel_provider = \"e2e\"\napproval_policy = \"never\"\nsandbox_mode = \"read-only\"\n\n")
	fmt.Fprintf(&toml, "[model_providers.e2e]\nname = \"e2e\"\nbase_url = %q\nenv_key = \"E2E_MODEL_KEY\"\nwire_api = \"responses\"\n\n", sc.baseURL+"/v1")
	fmt.Fprintf(&toml, "[features]\nplugins = false\n\n[analytics]\nenabled = false\n\n")
	return toml.String()
}

// codexServer is the config.toml table of one MCP server.
func codexServer(name, cmd string, argv []string) string {
	args, _ := json.Marshal(argv)
	// Without an approval mode, approval_policy=never refuses MCP calls.
	return fmt.Sprintf("[mcp_servers.%q]\ncommand = %q\nargs = %s\ndefault_tools_approval_mode = \"approve\"\n\n", name, cmd, args)
}

// geminiSettings is Gemini CLI's settings.json with servers as mcpServers
// (each trusted, else headless runs do not offer its tools) and hooks.
func geminiSettings(servers map[string]any, hooks map[string]any) string {
	s := map[string]any{
		"security":   map[string]any{"auth": map[string]any{"selectedType": "gemini-api-key"}},
		"mcpServers": servers,
	}
	if hooks != nil {
		s["hooks"] = hooks
	}
	return mustJSON(s)
}

var codex = &client{
	name: "Codex CLI " + codexVersion,
	configure: func(sc *scenario) {
		home := sc.path("codex-home")
		toml := codexConfigHead(sc)
		for _, role := range []string{"wf", "other"} {
			cmd, argv := sc.serverCommand(role)
			toml += codexServer(sc.serverName(role), cmd, argv)
		}
		sc.write(filepath.Join(home, "config.toml"), toml)
		sc.install("codex", []string{"CODEX_HOME=" + home}) // $CODEX_HOME/hooks.json
	},
	command: func(sc *scenario) ([]string, []string, string) {
		return []string{clientBin("codex"), "exec", "--json", "--skip-git-repo-check",
				"--dangerously-bypass-hook-trust", "-C", sc.proj, prompt},
			[]string{"CODEX_HOME=" + sc.path("codex-home"), "E2E_MODEL_KEY=e2e-dummy-key"},
			""
	},
}

var gemini = &client{
	name:          "Gemini CLI " + geminiVersion,
	tokenOptional: true,
	configure: func(sc *scenario) {
		servers := map[string]any{}
		for _, role := range []string{"wf", "other"} {
			cmd, args := sc.serverCommand(role)
			servers[sc.serverName(role)] = map[string]any{"command": cmd, "args": args, "trust": true}
		}
		sc.write(filepath.Join(sc.home, ".gemini", "settings.json"), geminiSettings(servers, nil))
		// Merged into the settings above, which must survive.
		sc.install("gemini", nil)
	},
	command: func(sc *scenario) ([]string, []string, string) {
		return []string{clientBin("gemini"), "-p", prompt, "--output-format", "stream-json", "--skip-trust"}, envList(geminiEnv(sc.baseURL)), ""
	},
}

// geminiEnv is Gemini CLI's environment in the suite: the fake model, and
// no relaunch. Gemini CLI starts a second Node process of itself with a
// larger heap (half the machine's memory) whenever that is more than
// Node's default, loading its bundle twice; GEMINI_CLI_NO_RELAUNCH, the
// variable it sets for its own children, runs the one process (the hooks
// run the same either way).
func geminiEnv(baseURL string) map[string]string {
	return map[string]string{"GEMINI_API_KEY": "e2e-dummy-key", "GOOGLE_GEMINI_BASE_URL": baseURL, "GEMINI_CLI_NO_RELAUNCH": "true"}
}

// envList is env as NAME=value lines, sorted.
func envList(env map[string]string) []string {
	var l []string
	for _, k := range slices.Sorted(maps.Keys(env)) {
		l = append(l, k+"="+env[k])
	}
	return l
}

// envMap is NAME=value lines as a map, a later line over an earlier one.
func envMap(lines []string) map[string]string {
	env := map[string]string{}
	for _, kv := range lines {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	return env
}

var opencode = &client{
	name:   "OpenCode " + opencodeVersion,
	redact: true,
	configure: func(sc *scenario) {
		opencodePluginDirs(sc)
		// The shim recipes/opencode/interceptor.ts, with the binary and
		// options filled in.
		sc.install("opencode", nil, "--scope", "project", "--project", sc.proj)
		mcp := map[string]any{}
		for _, role := range []string{"wf", "other"} {
			cmd, args := sc.serverCommand(role)
			mcp[sc.serverName(role)] = map[string]any{"type": "local", "command": append([]string{cmd}, args...), "enabled": true}
		}
		sc.write(filepath.Join(sc.proj, "opencode.json"), opencodeConfig(sc, mcp))
	},
	command: func(sc *scenario) ([]string, []string, string) {
		return []string{clientBin("opencode"), "run", prompt},
			[]string{"OPENCODE_DISABLE_AUTOUPDATE=1", "OPENCODE_DISABLE_MODELS_FETCH=1", "OPENCODE_DISABLE_SHARE=1",
				"OPENCODE_DISABLE_LSP_DOWNLOAD=1", "OPENCODE_DISABLE_DEFAULT_PLUGINS=1"},
			""
	},
	warmUp: []string{"opencode", "session", "list"},
}

// opencodePluginDirs gives both OpenCode config dirs the plugin package
// pre-installed, else OpenCode runs npm install in them and stalls without
// a registry.
func opencodePluginDirs(sc *scenario) {
	for _, dir := range []string{filepath.Join(sc.proj, ".opencode"), filepath.Join(sc.home, ".config", "opencode")} {
		for _, f := range []string{"package.json", "package-lock.json"} {
			b, err := os.ReadFile(filepath.Join(bins.ocPlugin, f))
			if err != nil {
				sc.t.Fatal(err)
			}
			sc.write(filepath.Join(dir, f), string(b))
		}
		if err := os.Symlink(filepath.Join(bins.ocPlugin, "node_modules"), filepath.Join(dir, "node_modules")); err != nil {
			sc.t.Fatal(err)
		}
	}
}

// opencodeConfig is the opencode.json of a scenario: the fake model as its
// provider and mcp as its MCP servers.
func opencodeConfig(sc *scenario, mcp map[string]any) string {
	return mustJSON(map[string]any{
		"$schema": "https://opencode.ai/config.json",
		"model":   "e2e/e2e-model",
		"provider": map[string]any{"e2e": map[string]any{
			"npm":     "@ai-sdk/openai-compatible",
			"name":    "E2E",
			"options": map[string]any{"baseURL": sc.baseURL + "/v1", "apiKey": "e2e-dummy-key"},
			"models":  map[string]any{"e2e-model": map[string]any{"name": "E2E model", "tool_call": true}},
		}},
		"mcp":        mcp,
		"permission": map[string]any{"edit": "allow", "bash": "allow", "webfetch": "allow"},
	})
}

// Each client runs a single session (with the token in text only and, for
// the clients that redact, also in structuredContent) and two concurrent
// sessions against the same server, state dir and hooks.
func runClientScenarios(t *testing.T, c *client) {
	t.Run("single", func(t *testing.T) { parallel(t); runScenario(t, c, 1, false) })
	if c.redact {
		t.Run("single_structured", func(t *testing.T) { parallel(t); runScenario(t, c, 1, true) })
	}
	t.Run("concurrent", func(t *testing.T) { parallel(t); runScenario(t, c, 2, false) })
	t.Run("awkward_nested", func(t *testing.T) { parallel(t); runAwkwardScenario(t, c, false) })
}

// awkwardServer is the wf server's name in the awkward scenarios: with a
// '-', which Codex spells '_' in tool names.
const awkwardServer = "wf-server"

// runAwkwardScenario runs one session of issue 11's conversation
// (fakemodel.NestedScript) against the awkward wf server (wfserver
// Config.Awkward) named wf-server, through the hooks or the proxy: prose,
// code and a stranger's token mentioning session_token before the real
// line, TOON and JSON bodies, a _meta-only token, a checkpoint tool taking
// checkpoint_handle and the token, and a nested session whose parent the
// server verifies, the model handing back the stand-ins it read. Checks:
// every call accepted (verify.Nested), and where results are redacted no
// token, current or older, in any model request.
func runAwkwardScenario(t *testing.T, c *client, viaProxy bool) {
	sc := &scenario{t: t, c: c, sessions: 1, viaProxy: viaProxy, wfName: awkwardServer, awkward: true,
		script:      fakemodel.NestedScript{WFServer: awkwardServer, OtherServer: wfserver.RoleOther, EchoText: "hello from the e2e model"},
		toolCalls:   fakemodel.NestedToolCalls,
		checkServer: func(recs []wfserver.Record) []string { return verify.Nested(recs, 1) }}
	if !viaProxy {
		sc.hook = hookBin(t)
	}
	runScenarioWith(t, sc)
}

func TestClaudeCode(t *testing.T) {
	parallel(t)
	runClientScenarios(t, claudeCode)
}
func TestCodex(t *testing.T) {
	parallel(t)
	runClientScenarios(t, codex)
}
func TestGemini(t *testing.T) {
	parallel(t)
	runClientScenarios(t, gemini)
}
func TestOpenCode(t *testing.T) {
	parallel(t)
	runClientScenarios(t, opencode)
}
