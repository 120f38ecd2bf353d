//go:build e2e

package e2e

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/interceptor-dev/interceptor/e2e/fakemodel"
	"github.com/interceptor-dev/interceptor/e2e/internal/verify"
	"github.com/interceptor-dev/interceptor/e2e/internal/wfserver"
)

// The clients of issue 16 (GitHub Copilot CLI, Cline, Droid), each run for
// real against the fake model and the token server, through `interceptor
// install` and through the proxy. Their tool names differ from the first
// clients' (wf-next_step, wf__next_step, wf___next_step), and Droid offers
// MCP tools only after a ToolSearch call, so the fake model follows
// sepScript.

// sepScript is the workflow script (start_session, next_step one, echo,
// next_step two) for tool names whose server and tool are joined by any run
// of '-' and '_'; with toolSearch, the first call loads the tools through
// the client's ToolSearch tool.
type sepScript struct {
	wf         string
	toolSearch string // the query of the ToolSearch call ("": none)
}

func (s sepScript) find(tools []fakemodel.Tool, server, name string) (fakemodel.Tool, bool) {
	re := regexp.MustCompile(`(^|_)` + fakemodel.ServerPattern(server) + `[-_]+` + regexp.QuoteMeta(name) + `$`)
	for _, t := range tools {
		if re.MatchString(t.Name) {
			return t, true
		}
	}
	return fakemodel.Tool{}, false
}

func (s sepScript) Plan(c fakemodel.Conversation, tools []fakemodel.Tool) (fakemodel.Action, bool) {
	n := len(c.Results)
	if s.toolSearch != "" {
		if n == 0 {
			for _, t := range tools {
				if t.Name == "ToolSearch" {
					// Not a scripted turn yet: the wf tools are not offered.
					return fakemodel.Action{Tool: t, Args: map[string]any{"query": s.toolSearch}}, false
				}
			}
			return fakemodel.Action{Text: fakemodel.SideText}, false
		}
		n--
	}
	start, ok1 := s.find(tools, s.wf, "start_session")
	next, ok2 := s.find(tools, s.wf, "next_step")
	echo, ok3 := s.find(tools, "other", "echo")
	if !ok1 || !ok2 || !ok3 {
		return fakemodel.Action{Text: fakemodel.SideText}, false
	}
	steps := []fakemodel.Action{{Tool: start, Args: map[string]any{}},
		{Tool: next, Args: map[string]any{"step": fakemodel.Steps[0]}},
		{Tool: echo, Args: map[string]any{"text": "hello from the e2e model"}},
		{Tool: next, Args: map[string]any{"step": fakemodel.Steps[1]}}}
	if n < len(steps) {
		return steps[n], true
	}
	return fakemodel.Action{Text: fakemodel.FinalText}, true
}

// scriptCalls is the number of tool calls of sepScript.
func (s sepScript) calls() int {
	if s.toolSearch != "" {
		return 5
	}
	return 4
}

// client2 is a client of this file: its client plus the script it needs.
type client2 struct {
	*client
	script sepScript
	// proxy: the client takes MCP servers, so it runs through the proxy too.
	proxy bool
}

func (c client2) run(t *testing.T, viaProxy bool, extra func(sc *scenario)) {
	c.runSessions(t, 1, viaProxy, extra)
}

// runSessions runs sessions sessions of the client at once.
func (c client2) runSessions(t *testing.T, sessions int, viaProxy bool, extra func(sc *scenario)) {
	sc := &scenario{t: t, c: c.client, sessions: sessions, hook: hookBin(t), viaProxy: viaProxy, script: c.script, toolCalls: c.script.calls()}
	if extra != nil {
		extra(sc)
	}
	defer killLeftovers(t, sc)
	runScenarioWith(t, sc)
}

// killLeftovers ends what a client left running with the scenario's HOME
// (Cline's hub daemon detaches from the process group runClient kills):
// only processes of this scenario, found by their environment.
func killLeftovers(t *testing.T, sc *scenario) {
	if sc.home == "" {
		return
	}
	want := []byte("HOME=" + sc.home + "\x00")
	procs, _ := os.ReadDir("/proc")
	for _, p := range procs {
		pid, err := strconv.Atoi(p.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", p.Name(), "environ"))
		if err == nil && bytes.Contains(env, want) {
			t.Logf("killing pid %d, left running by the client", pid)
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// mcpServers is the usual {"mcpServers": {name: {command, args, …}}} of the
// scenario's two servers, each entry extended by extra.
func mcpServers(sc *scenario, extra map[string]any) map[string]any {
	servers := map[string]any{}
	for _, role := range []string{"wf", "other"} {
		cmd, args := sc.serverCommand(role)
		s := map[string]any{"command": cmd, "args": args}
		for k, v := range extra {
			s[k] = v
		}
		servers[sc.serverName(role)] = s
	}
	return map[string]any{"mcpServers": servers}
}

// toolResultLeaks counts the tokens in what the model reads of tool results
// (Chat Completions "tool" messages) and elsewhere in its requests.
func toolResultLeaks(sc *scenario) (inResults, elsewhere int) {
	recs, _ := wfserver.ReadLog(sc.serverLog)
	tokens := verify.Tokens(recs)
	for _, r := range sc.model.Requests() {
		var q struct {
			Messages []struct {
				Role    string          `json:"role"`
				Content json.RawMessage `json:"content"`
			} `json:"messages"`
		}
		if json.Unmarshal(r.Body, &q) != nil {
			continue
		}
		for _, m := range q.Messages {
			leaks := verify.FindLeaks(m.Content, tokens)
			if m.Role == "tool" {
				inResults += len(leaks)
			}
		}
		elsewhere += len(verify.FindLeaks(r.Body, tokens))
	}
	return inResults, elsewhere - inResults
}

var copilotCLI = client2{
	client: &client{
		name: "Copilot CLI " + copilotVersion,
		configure: func(sc *scenario) {
			servers := mcpServers(sc, map[string]any{"type": "local", "tools": []string{"*"}})
			sc.write(sc.path("copilot-mcp.json"), mustJSON(servers))
			// --redact: Copilot rewrites results, but also writes the
			// injected arguments back into the model's own tool calls, so
			// the scenario checks the results only (resultRedaction).
			sc.install("copilot", nil, "--redact")
		},
		command: func(sc *scenario) ([]string, []string, string) {
			return []string{client2Bin(sc.t, "copilot"), "-p", prompt, "--allow-all-tools", "--disable-builtin-mcps",
					"--additional-mcp-config", "@" + sc.path("copilot-mcp.json"), "--log-dir", sc.path("copilot-logs")},
				[]string{"COPILOT_PROVIDER_BASE_URL=" + sc.baseURL + "/v1", "COPILOT_PROVIDER_API_KEY=e2e-dummy-key",
					"COPILOT_MODEL=e2e-model", "COPILOT_OFFLINE=true",
					"COPILOT_CACHE_HOME=" + filepath.Join(clients2Dir(sc.t), "copilot-cache")},
				""
		},
	},
	script: sepScript{wf: "wf"},
	proxy:  true,
}

// resultRedaction: with --redact no tool result the model reads holds a
// token; the injected arguments the client writes back into its own tool
// calls (Copilot CLI, Kilo CLI) are counted and logged, not failed: no
// hook can hide them.
func resultRedaction(sc *scenario) {
	sc.extraCheck = func() {
		inResults, elsewhere := toolResultLeaks(sc)
		if inResults > 0 {
			sc.t.Errorf("%d token(s) in tool results the model read, despite --redact", inResults)
		}
		sc.t.Logf("NOTE: %s showed the model a token %d time(s) outside tool results (the injected arguments it keeps in its own tool calls); redaction cannot reach those", sc.c.name, elsewhere)
	}
}

// copilotPascal is Copilot with hooks written by hand under PascalCase
// events, which get snake_case payloads and Claude-style replies.
func copilotPascal() client2 {
	c := *copilotCLI.client
	c.configure = func(sc *scenario) {
		sc.write(sc.path("copilot-mcp.json"), mustJSON(mcpServers(sc, map[string]any{"type": "local", "tools": []string{"*"}})))
		hook := func(sub string) []any {
			return []any{map[string]any{"matcher": "wf-.*", "hooks": []any{map[string]any{"type": "command",
				"command": shellQuote(sc.hook) + " " + sub + " --client copilot --server wf"}}}}
		}
		sc.write(filepath.Join(sc.home, ".copilot", "hooks", "pascal.json"), mustJSON(map[string]any{"version": 1,
			"hooks": map[string]any{"PreToolUse": hook("inject"), "PostToolUse": hook("capture")}}))
	}
	return client2{client: &c, script: copilotCLI.script}
}

// shellQuote quotes a path for sh.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func TestCopilotCLI(t *testing.T) {
	parallel(t)
	t.Run("pascal_events", func(t *testing.T) { parallel(t); copilotPascal().run(t, false, nil) })
	t.Run("hooks", func(t *testing.T) { parallel(t); copilotCLI.run(t, false, resultRedaction) })
	t.Run("concurrent", func(t *testing.T) { parallel(t); copilotCLI.runSessions(t, 2, false, resultRedaction) })
	t.Run("proxy", func(t *testing.T) { parallel(t); copilotCLI.run(t, true, nil) })
}

var clineCLI = client2{
	client: &client{
		name: "Cline " + clineVersion,
		configure: func(sc *scenario) {
			sc.write(filepath.Join(sc.home, ".cline", "data", "settings", "cline_mcp_settings.json"),
				mustJSON(mcpServers(sc, map[string]any{"disabled": false})))
			// The fake model as an OpenAI-compatible provider.
			cmd := exec.Command(client2Bin(sc.t, "cline"), "auth", "-p", "openai", "-k", "e2e-dummy-key", "-b", sc.baseURL+"/v1", "-m", "e2e-model")
			cmd.Env, cmd.Dir = sc.baseEnv(), sc.proj
			if out, err := runWithTimeout(cmd, 2*time.Minute); err != nil {
				sc.t.Fatalf("cline auth: %v\n%s", err, tail(string(out), 20))
			}
			killLeftovers(sc.t, sc)  // the hub daemon cline auth may start
			sc.install("cline", nil) // ~/.cline/hooks/PreToolUse and PostToolUse
		},
		command: func(sc *scenario) ([]string, []string, string) {
			return []string{client2Bin(sc.t, "cline"), "--json", "-c", sc.proj, prompt}, nil, ""
		},
	},
	script: sepScript{wf: "wf"},
	proxy:  true,
}

var droidCLI = client2{
	client: &client{
		name: "Droid " + droidVersion,
		configure: func(sc *scenario) {
			sc.write(filepath.Join(sc.home, ".factory", "mcp.json"), mustJSON(mcpServers(sc, map[string]any{"type": "stdio"})))
			sc.write(filepath.Join(sc.home, ".factory", "settings.json"), mustJSON(map[string]any{
				"customModels": []any{map[string]any{"model": "e2e-model", "displayName": "e2e-model", "provider": "generic-chat-completion-api",
					"baseUrl": sc.baseURL + "/v1", "apiKey": "e2e-dummy-key", "maxOutputTokens": 4096}},
			}))
			sc.install("droid", nil) // merged into the settings above
		},
		command: func(sc *scenario) ([]string, []string, string) {
			return []string{client2Bin(sc.t, "droid"), "exec", "--skip-permissions-unsafe", "-m", "custom:e2e-model", prompt}, nil, ""
		},
	},
	script: sepScript{wf: "wf", toolSearch: "select:wf___start_session,wf___next_step,other___echo"},
	proxy:  true,
}

func TestCline(t *testing.T) {
	parallel(t)
	t.Run("hooks", func(t *testing.T) { parallel(t); clineCLI.run(t, false, nil) })
	t.Run("concurrent", func(t *testing.T) { parallel(t); clineCLI.runSessions(t, 2, false, nil) })
	t.Run("proxy", func(t *testing.T) { parallel(t); clineCLI.run(t, true, nil) })
}

func TestDroid(t *testing.T) {
	parallel(t)
	t.Run("hooks", func(t *testing.T) { parallel(t); droidCLI.run(t, false, nil) })
	t.Run("proxy", func(t *testing.T) { parallel(t); droidCLI.run(t, true, nil) })
}

// agentSDKApp runs the example app examples/claude-agent-sdk/<app> with the
// scenario's MCP config (MCP_CONFIG) and, for app.mjs's programmatic hooks,
// the hook under test (INTERCEPTOR_BIN); with install, `interceptor install
// claude-code` wires it, into ~/.claude/settings.json under the scenario's
// HOME, as for Claude Code.
func agentSDKApp(app string, install bool) client2 {
	return client2{
		client: &client{
			name:   "Claude Agent SDK " + agentSDKVersion + " (" + app + ")",
			redact: true,
			configure: func(sc *scenario) {
				sc.write(sc.path("mcp.json"), mustJSON(mcpServers(sc, map[string]any{"type": "stdio"})))
				src, err := os.ReadFile(filepath.Join(bins.repo, "examples", "claude-agent-sdk", app))
				if err != nil {
					sc.t.Fatal(err)
				}
				sc.write(filepath.Join(sc.proj, app), string(src))
				if err := os.Symlink(filepath.Join(clients2Dir(sc.t), "clients", "node_modules"), filepath.Join(sc.proj, "node_modules")); err != nil {
					sc.t.Fatal(err)
				}
				if install {
					sc.install("claude-code", nil) // with --redact, as redact is set
				}
			},
			command: func(sc *scenario) ([]string, []string, string) {
				return []string{"node", filepath.Join(sc.proj, app), prompt},
					append(claudeEnv(sc), "INTERCEPTOR_BIN="+sc.hook, "INTERCEPTOR_SERVER=wf", "MCP_CONFIG="+sc.path("mcp.json")),
					""
			},
		},
		script: sepScript{wf: "wf"},
		proxy:  true,
	}
}

var (
	// agentSDK is app.mjs: settingSources: [], interceptor run from
	// programmatic hooks.
	agentSDK = agentSDKApp("app.mjs", false)
	// agentSDKSettings is settings-app.mjs: no hooks in its code and
	// settingSources left at the SDK's default, which loads the settings
	// files and so the hooks `interceptor install claude-code` wrote; or,
	// through the proxy, no hooks at all.
	agentSDKSettings = agentSDKApp("settings-app.mjs", true)
)

// clearedAtEnd: once the app is done, `interceptor clear` has forgotten the
// session's token (the settings file's SessionEnd hook; app.mjs clears
// after its query, as the SDK calls no programmatic SessionEnd hook).
func clearedAtEnd(sc *scenario) {
	sc.extraCheck = func() {
		files, _ := verify.StateFiles(sc.stateDir)
		for _, f := range files {
			rel := strings.Fields(f)[0]
			// The store's lock files (.lock-current and one per shard,
			// .lock-XX) stay: they are empty and hold no value.
			if strings.HasPrefix(filepath.Base(rel), ".lock") {
				if info, err := os.Stat(filepath.Join(sc.stateDir, rel)); err == nil && info.Size() == 0 {
					continue
				}
			}
			sc.t.Errorf("state: %s remains after the session ended: interceptor clear did not run", f)
		}
	}
}

func TestClaudeAgentSDK(t *testing.T) {
	parallel(t)
	t.Run("programmatic_hooks", func(t *testing.T) { parallel(t); agentSDK.run(t, false, clearedAtEnd) })
	t.Run("settings_hooks", func(t *testing.T) { parallel(t); agentSDKSettings.run(t, false, clearedAtEnd) })
	t.Run("proxy", func(t *testing.T) { parallel(t); agentSDKSettings.run(t, true, nil) })
}

// kiloEnv runs Kilo CLI offline: no updates, model list, sharing, LSP
// downloads or default plugins. The second line is what a user who opts
// out writes: no PostHog telemetry (whose shutdown waited about 1.3 s at
// every exit without a network), no presence reports, no daemon lookup,
// no file watcher. Measured with 7.7.7, two runs each way: 19.9 s of CPU
// a run without them, 17.5 s with; the hooks run the same.
var kiloEnv = []string{"KILO_DISABLE_AUTOUPDATE=1", "KILO_DISABLE_MODELS_FETCH=1", "KILO_DISABLE_SHARE=1",
	"KILO_DISABLE_LSP_DOWNLOAD=1", "KILO_DISABLE_DEFAULT_PLUGINS=1", "KILO_DISABLE_SESSION_INGEST=1", "KILO_DISABLE_CODEBASE_INDEXING=1",
	"KILO_TELEMETRY_LEVEL=off", "KILO_DISABLE_PRESENCE=1", "KILO_NO_DAEMON=1", "KILO_EXPERIMENTAL_DISABLE_FILEWATCHER=1"}

var kiloCLI = client2{
	client: &client{
		name: "Kilo CLI " + kiloVersion,
		configure: func(sc *scenario) {
			kiloPluginDirs(sc)
			// --redact: Kilo, like Copilot, keeps the injected arguments
			// in the assistant's own tool calls (seen with 7.7.7), so the
			// scenario checks the results only (resultRedaction).
			sc.install("kilo", nil, "--scope", "project", "--project", sc.proj, "--redact") // .kilo/plugin/interceptor.ts
			mcp := map[string]any{}
			for _, role := range []string{"wf", "other"} {
				cmd, args := sc.serverCommand(role)
				mcp[sc.serverName(role)] = map[string]any{"type": "local", "command": append([]string{cmd}, args...), "enabled": true}
			}
			sc.write(filepath.Join(sc.proj, "kilo.json"), opencodeConfig(sc, mcp))
		},
		command: func(sc *scenario) ([]string, []string, string) {
			return []string{client2Bin(sc.t, "kilo"), "run", prompt}, kiloEnv, ""
		},
	},
	script: sepScript{wf: "wf"},
	proxy:  true,
}

func TestKilo(t *testing.T) {
	parallel(t)
	t.Run("hooks", func(t *testing.T) { parallel(t); kiloCLI.run(t, false, resultRedaction) })
	t.Run("proxy", func(t *testing.T) { parallel(t); kiloCLI.run(t, true, nil) })
}

// kiloPluginDirs: Kilo, like OpenCode, npm-installs its plugin package
// (@kilocode/plugin, its own version) into each config dir at start and
// stalls without a registry, unless node_modules and a package-lock.json
// listing it are there. The registry has no @kilocode/plugin 7.7.7, so the
// suite puts an empty package of that name and version there: the shim
// imports nothing from it.
func kiloPluginDirs(sc *scenario) {
	for _, dir := range []string{filepath.Join(sc.proj, ".kilo"), filepath.Join(sc.home, ".config", "kilo")} {
		sc.write(filepath.Join(dir, "package.json"), `{"dependencies": {"@kilocode/plugin": "`+kiloVersion+`"}}`+"\n")
		sc.write(filepath.Join(dir, "node_modules", "@kilocode", "plugin", "package.json"), `{"name": "@kilocode/plugin", "version": "`+kiloVersion+`"}`+"\n")
		sc.write(filepath.Join(dir, "package-lock.json"), mustJSON(map[string]any{
			"name": "kilo", "lockfileVersion": 3, "requires": true,
			"packages": map[string]any{
				"":                              map[string]any{"dependencies": map[string]any{"@kilocode/plugin": kiloVersion}},
				"node_modules/@kilocode/plugin": map[string]any{"version": kiloVersion},
			},
		}))
	}
}
