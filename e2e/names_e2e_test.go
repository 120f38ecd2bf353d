//go:build e2e

package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/interceptor-dev/interceptor/e2e/fakemodel"
	"github.com/interceptor-dev/interceptor/e2e/internal/wfserver"
)

// TestToolNames observes how each real client spells an MCP server's tools,
// for server names holding '-', '.', uppercase, digits, a space and "__":
// the tool_name its pre-tool hook receives (with Claude Code's
// mcp_server.name and Gemini CLI's mcp_context), and the name the model is
// offered. Each client runs one session against probe servers (the token
// server's probe role, which logs its configured name and each call) with a
// pre-tool hook that only logs (e2e/testdata/loghook.sh; for OpenCode and
// Kilo CLI a plugin writing the same log), and a fake model that calls every
// offered probe tool once, passing the name it was offered (Droid offers
// them after a ToolSearch call that loads them by name). The clients:
// Claude Code, Codex CLI, Gemini CLI, OpenCode, GitHub Copilot CLI, Cline,
// Droid and Kilo CLI.
//
// The observations are compared with internal/hooks/testdata/names/
// observed.json, which the unit tests of the name matching read: a client
// update that spells names differently fails here. E2E_UPDATE_NAMES=1
// rewrites the file's rows of the clients run instead.

// probeServer is an MCP server as a client is configured with it.
type probeServer struct {
	name  string
	tools []string
}

// probeSets are the server lists each client runs with, one session each.
// In "names", wf's admin__probe and wf__admin's probe collide in the
// mcp__<server>__<tool> scheme; in "sanitized", wf-server and wf_server
// collide once '-' is replaced by '_'.
var probeSets = []struct {
	name    string
	servers []probeServer
}{
	{"names", []probeServer{
		{"wf", []string{"probe", "admin__probe", "Probe-Dash.Dot9"}},
		{"wf-server", []string{"probe"}},
		{"wf.v2", []string{"probe"}},
		{"WfServer2", []string{"probe"}},
		{"wf server", []string{"probe"}},
		{"wf__admin", []string{"probe"}},
	}},
	{"sanitized", []probeServer{
		{"wf-server", []string{"probe"}},
		{"wf_server", []string{"probe"}},
	}},
}

// probeMarker is in every probe tool's name; the fake model calls the
// offered tools holding it.
const probeMarker = "probe"

// nameObservation is one row of observed.json: how client spelled tool of
// the server configured as server.
type nameObservation struct {
	Client        string `json:"client"` // as interceptor's --client names it
	ClientVersion string `json:"client_version"`
	Server        string `json:"server"` // as configured in the client
	Tool          string `json:"tool"`   // as the server lists it
	// HookToolName is the pre-tool hook's tool_name (OpenCode: the
	// plugin's input.tool); empty if the tool was never called.
	HookToolName string `json:"hook_tool_name"`
	// HookServerName is the server's name in the hook payload where the
	// client sends one: Claude Code's mcp_server.name, Gemini CLI's
	// mcp_context.server_name.
	HookServerName string `json:"hook_server_name,omitempty"`
	// HookMCPToolName is Gemini CLI's mcp_context.tool_name.
	HookMCPToolName string `json:"hook_mcp_tool_name,omitempty"`
	// ModelToolName is the tool's name in the model request
	// (namespace/name for Codex's namespace tools).
	ModelToolName string `json:"model_tool_name"`
	Notes         string `json:"notes,omitempty"`
	// Configured are all the servers of the session (the probe set).
	Configured []string `json:"configured"`
}

// namesClient configures one client for the probe servers.
type namesClient struct {
	id, version string
	c           *client
	env         []string // added to c's environment
	// configure writes the client's MCP server list and a logging
	// pre-tool hook; it returns the argv to run when it is not c's.
	configure func(sc *scenario, servers map[string][]string) []string
}

var namesClients = []namesClient{
	// IS_SANDBOX lets Claude Code bypass permissions as root (the namespace's uid).
	{"claude-code", claudeVersion, claudeCode, []string{"IS_SANDBOX=1"}, func(sc *scenario, servers map[string][]string) []string {
		mcp := map[string]any{}
		for name, argv := range servers {
			mcp[name] = map[string]any{"type": "stdio", "command": argv[0], "args": argv[1:]}
		}
		sc.write(sc.path("mcp.json"), mustJSON(map[string]any{"mcpServers": mcp}))
		sc.write(sc.path("settings.json"), mustJSON(map[string]any{"hooks": map[string]any{
			"PreToolUse": []any{logHookGroup(sc, 10)}}}))
		argv, _, _ := claudeCode.command(sc)
		argv = slices.DeleteFunc(argv, func(a string) bool { return strings.HasPrefix(a, "mcp__") || a == "--allowedTools" })
		// Every tool allowed: the probe tools' names are what is observed.
		return append(argv, "--settings", sc.path("settings.json"), "--permission-mode", "bypassPermissions")
	}},
	{"codex", codexVersion, codex, nil, func(sc *scenario, servers map[string][]string) []string {
		home := sc.path("codex-home")
		toml := codexConfigHead(sc)
		for _, name := range slices.Sorted(maps.Keys(servers)) {
			toml += codexServer(name, servers[name][0], servers[name][1:])
		}
		sc.write(filepath.Join(home, "config.toml"), toml)
		sc.write(filepath.Join(home, "hooks.json"), mustJSON(map[string]any{"hooks": map[string]any{
			"PreToolUse": []any{logHookGroup(sc, 10)}}}))
		return nil
	}},
	{"gemini", geminiVersion, gemini, nil, func(sc *scenario, servers map[string][]string) []string {
		mcp := map[string]any{}
		for name, argv := range servers {
			mcp[name] = map[string]any{"command": argv[0], "args": argv[1:], "trust": true}
		}
		sc.write(filepath.Join(sc.home, ".gemini", "settings.json"), geminiSettings(mcp, map[string]any{
			"BeforeTool": []any{logHookGroup(sc, 10000)}}))
		return nil
	}},
	{"opencode", opencodeVersion, opencode, nil, func(sc *scenario, servers map[string][]string) []string {
		opencodePluginDirs(sc)
		mcp := map[string]any{}
		for name, argv := range servers {
			mcp[name] = map[string]any{"type": "local", "command": argv, "enabled": true}
		}
		sc.write(filepath.Join(sc.proj, "opencode.json"), opencodeConfig(sc, mcp))
		// The plugin writes what a pre-tool hook of the other clients gets.
		sc.write(filepath.Join(sc.proj, ".opencode", "plugin", "lognames.js"), logNamesPlugin)
		return nil
	}},
}

// namesClients2 are the clients of issue 16, configured the same way: a
// logging pre-tool hook and the probe servers where each client reads them.
var namesClients2 = []namesClient{
	{"copilot", copilotVersion, copilotCLI.client, nil, func(sc *scenario, servers map[string][]string) []string {
		mcp := map[string]any{}
		for name, argv := range servers {
			mcp[name] = map[string]any{"type": "local", "command": argv[0], "args": argv[1:], "tools": []string{"*"}}
		}
		sc.write(sc.path("copilot-mcp.json"), mustJSON(map[string]any{"mcpServers": mcp}))
		sc.write(filepath.Join(sc.home, ".copilot", "hooks", "log.json"), mustJSON(map[string]any{"version": 1,
			"hooks": map[string]any{"preToolUse": []any{logHookGroup(sc, 10)}}}))
		return nil
	}},
	{"cline", clineVersion, clineCLI.client, nil, func(sc *scenario, servers map[string][]string) []string {
		mcp := map[string]any{}
		for name, argv := range servers {
			mcp[name] = map[string]any{"command": argv[0], "args": argv[1:], "disabled": false}
		}
		sc.write(filepath.Join(sc.home, ".cline", "data", "settings", "cline_mcp_settings.json"), mustJSON(map[string]any{"mcpServers": mcp}))
		clineAuth(sc)
		hook := filepath.Join(sc.home, ".cline", "hooks", "PreToolUse")
		sc.write(hook, "#!/bin/sh\nexec "+shellQuote(filepath.Join(bins.repo, "e2e", "testdata", "loghook.sh"))+"\n")
		if err := os.Chmod(hook, 0o755); err != nil {
			sc.t.Fatal(err)
		}
		return nil
	}},
	{"droid", droidVersion, droidCLI.client, nil, func(sc *scenario, servers map[string][]string) []string {
		mcp := map[string]any{}
		for name, argv := range servers {
			mcp[name] = map[string]any{"type": "stdio", "command": argv[0], "args": argv[1:]}
		}
		sc.write(filepath.Join(sc.home, ".factory", "mcp.json"), mustJSON(map[string]any{"mcpServers": mcp}))
		sc.write(filepath.Join(sc.home, ".factory", "settings.json"), mustJSON(map[string]any{
			"customModels": []any{map[string]any{"model": "e2e-model", "displayName": "e2e-model", "provider": "generic-chat-completion-api",
				"baseUrl": sc.baseURL + "/v1", "apiKey": "e2e-dummy-key", "maxOutputTokens": 4096}},
			"hooks": map[string]any{"PreToolUse": []any{logHookGroup(sc, 10)}},
		}))
		return nil
	}},
	{"kilo", kiloVersion, kiloCLI.client, nil, func(sc *scenario, servers map[string][]string) []string {
		kiloPluginDirs(sc)
		mcp := map[string]any{}
		for name, argv := range servers {
			mcp[name] = map[string]any{"type": "local", "command": argv, "enabled": true}
		}
		sc.write(filepath.Join(sc.proj, "kilo.json"), opencodeConfig(sc, mcp))
		sc.write(filepath.Join(sc.proj, ".kilo", "plugin", "lognames.js"), logNamesPlugin)
		return nil
	}},
}

// logNamesPlugin is an OpenCode (and Kilo) plugin that writes what a
// pre-tool hook of the other clients gets.
const logNamesPlugin = `import { appendFileSync } from "node:fs";
export const LogNames = async () => ({
  "tool.execute.before": async (input, output) => {
    const p = { hook_event_name: "tool.execute.before", tool_name: input.tool, tool_input: output.args };
    appendFileSync(process.env.LOGHOOK_FILE, "### plugin\n" + JSON.stringify(p) + "\n");
  },
});
`

// clineAuth points Cline at the fake model as an OpenAI-compatible
// provider, and ends the hub daemon that may leave running.
func clineAuth(sc *scenario) {
	cmd := exec.Command(client2Bin(sc.t, "cline"), "auth", "-p", "openai", "-k", "e2e-dummy-key", "-b", sc.baseURL+"/v1", "-m", "e2e-model")
	cmd.Env, cmd.Dir = sc.baseEnv(), sc.proj
	if out, err := runWithTimeout(cmd, 2*time.Minute); err != nil {
		sc.t.Fatalf("cline auth: %v\n%s", err, tail(string(out), 20))
	}
	killLeftovers(sc.t, sc)
}

// searchingProbe is ProbeScript for a client that offers MCP tools only
// after a ToolSearch call (Droid): the first turn loads every deferred tool
// whose name holds the marker, by the exact names the client lists under
// "Deferred tools:" in its request.
type searchingProbe struct{ fakemodel.ProbeScript }

func (p searchingProbe) Plan(c fakemodel.Conversation, tools []fakemodel.Tool) (fakemodel.Action, bool) {
	if len(c.Results) == 0 {
		for _, t := range tools {
			if t.Name == "ToolSearch" {
				return fakemodel.Action{Tool: t, Args: map[string]any{"query": "select:" + strings.Join(deferredTools(c.Body, p.Marker), ",")}}, false
			}
		}
		return fakemodel.Action{Text: fakemodel.SideText}, false
	}
	c.Results = c.Results[1:]
	return p.ProbeScript.Plan(c, tools)
}

// deferredTools are the names holding marker in the "Deferred tools:" list
// of a request body (one name a line, in some string of the JSON).
func deferredTools(body []byte, marker string) []string {
	var v any
	if json.Unmarshal(body, &v) != nil {
		return nil
	}
	var out []string
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			_, list, ok := strings.Cut(x, "Deferred tools:")
			if !ok {
				return
			}
			for _, l := range strings.Split(list, "\n") {
				l = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), "- "))
				if strings.Contains(strings.ToLower(l), strings.ToLower(marker)) && !slices.Contains(out, l) {
					out = append(out, l)
				}
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
	return out
}

// logHookGroup is a hook group running e2e/testdata/loghook.sh for every
// tool (timeout in the client's unit).
func logHookGroup(sc *scenario, timeout int) map[string]any {
	return map[string]any{"matcher": ".*", "hooks": []any{map[string]any{
		"type": "command", "command": filepath.Join(bins.repo, "e2e", "testdata", "loghook.sh"), "timeout": timeout}}}
}

func observedNamesPath() string {
	return filepath.Join(bins.repo, "internal", "hooks", "testdata", "names", "observed.json")
}

func TestToolNames(t *testing.T) {
	parallel(t)
	var want []nameObservation
	if b, err := os.ReadFile(observedNamesPath()); err == nil {
		if err := json.Unmarshal(b, &want); err != nil {
			t.Fatalf("%s: %v", observedNamesPath(), err)
		}
	} else if os.Getenv("E2E_UPDATE_NAMES") == "" {
		t.Fatalf("%v (E2E_UPDATE_NAMES=1 writes it)", err)
	}
	// Each client's sessions (one per probe set) run as parallel
	// subtests: run one after another they were the suite's longest test.
	// A client's observations are compared once both of its sets are in
	// (a Cleanup runs after the subtests), and observed.json is rewritten
	// once every client's are.
	var mu sync.Mutex
	got := map[string][]nameObservation{}
	all := append(slices.Clone(namesClients), namesClients2...)
	t.Cleanup(func() { updateObservedNames(t, all, want, got) })
	for _, nc := range all {
		t.Run(nc.id, func(t *testing.T) {
			perSet := make([][]nameObservation, len(probeSets))
			t.Cleanup(func() {
				obs := slices.Concat(perSet...)
				mu.Lock()
				got[nc.id] = obs
				mu.Unlock()
				if os.Getenv("E2E_UPDATE_NAMES") == "" {
					compareObservedNames(t, nc, want, obs)
				}
			})
			for i, set := range probeSets {
				t.Run(set.name, func(t *testing.T) {
					parallel(t)
					perSet[i] = observeNames(t, nc, set.servers)
				})
			}
		})
	}
}

// compareObservedNames fails t for each of nc's observations that differs
// from the one observed.json recorded for it (want).
func compareObservedNames(t *testing.T, nc namesClient, want, obs []nameObservation) {
	var old []nameObservation
	for _, o := range want {
		if o.Client == nc.id {
			old = append(old, o)
		}
	}
	for i := range max(len(old), len(obs)) {
		var a, b string
		if i < len(old) {
			a = mustJSON(old[i])
		}
		if i < len(obs) {
			b = mustJSON(obs[i])
		}
		if a != b {
			t.Errorf("%s spells tool names differently from %s (E2E_UPDATE_NAMES=1 rewrites it once understood):\n--- recorded\n%s\n--- observed now\n%s",
				nc.c.name, observedNamesPath(), a, b)
		}
	}
}

// updateObservedNames rewrites observed.json with the clients' new
// observations (got) under E2E_UPDATE_NAMES, keeping the recorded rows
// (want) of the clients not run.
func updateObservedNames(t *testing.T, all []namesClient, want []nameObservation, got map[string][]nameObservation) {
	if os.Getenv("E2E_UPDATE_NAMES") == "" {
		return
	}
	// Keep the rows of clients not run; replace the others.
	var out []nameObservation
	for _, nc := range all {
		if obs, ok := got[nc.id]; ok {
			out = append(out, obs...)
			continue
		}
		for _, o := range want {
			if o.Client == nc.id {
				out = append(out, o)
			}
		}
	}
	if err := os.MkdirAll(filepath.Dir(observedNamesPath()), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(observedNamesPath(), []byte(mustJSON(out)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("E2E_UPDATE_NAMES: wrote %d observations to %s", len(out), observedNamesPath())
}

// observeNames runs one session of nc's client against the probe servers
// and returns one observation per configured (server, tool).
func observeNames(t *testing.T, nc namesClient, servers []probeServer) []nameObservation {
	sc := &scenario{t: t, c: nc.c, sessions: 1}
	sc.setUp()
	script := fakemodel.ProbeScript{Marker: probeMarker}
	var model fakemodel.Script = script
	if nc.id == "droid" {
		model = searchingProbe{script} // MCP tools behind ToolSearch
	}
	sc.model = fakemodel.New(fakemodel.Options{RecordDir: sc.recordDir, Script: model})
	defer killLeftovers(t, sc)
	defer sc.serveModel(sc.model)()

	commands := map[string][]string{}
	var configured []string
	for _, ps := range servers {
		commands[ps.name] = []string{bins.tokenServer, "--role", wfserver.RoleProbe, "--name", ps.name,
			"--tools", strings.Join(ps.tools, ","), "--log", sc.serverLog}
		configured = append(configured, ps.name)
	}
	argv := nc.configure(sc, commands)
	defArgv, env, stdin := nc.c.command(sc)
	if argv == nil {
		argv = defArgv
	}
	r := &sessionRun{stdout: sc.path("session0.stdout"), stderr: sc.path("session0.stderr")}
	sc.runs = []*sessionRun{r}
	t0 := time.Now()
	r.err = runClient(argv, append(sc.baseEnv(), append(env, nc.env...)...), stdin, sc.proj, r.stdout, r.stderr)
	r.took = time.Since(t0)
	t.Logf("%s: session finished in %s", nc.c.name, r.took.Round(time.Millisecond))
	if r.err != nil {
		t.Errorf("%s exited: %v", nc.c.name, r.err)
	}
	if out, _ := os.ReadFile(r.stdout); !bytes.Contains(out, []byte(fakemodel.FinalText)) {
		t.Errorf("%s's output lacks the model's final answer: the probe conversation did not finish", nc.c.name)
	}

	// What the model was offered.
	offered := map[string]bool{}
	for _, rq := range sc.model.Requests() {
		for _, tool := range script.Probes(fakemodel.ToolsOf(rq.Body)) {
			offered[tool.String()] = true
		}
	}
	hooks := readLogHook(t, sc.path("loghook.log"))
	recs, err := wfserver.ReadLog(sc.serverLog)
	if err != nil {
		t.Fatal(err)
	}
	started := map[string]bool{}
	called := map[[2]string][]string{} // (server, tool) -> probe args (model names)
	for _, rec := range recs {
		switch rec.Event {
		case "start":
			started[rec.Name] = true
		case "call":
			p, _ := rec.Args[wfserver.ProbeArg].(string)
			k := [2]string{rec.Name, rec.Tool}
			called[k] = append(called[k], p)
		}
	}
	reached := map[string]bool{}
	var obs []nameObservation
	for _, ps := range servers {
		for _, tool := range ps.tools {
			o := nameObservation{Client: nc.id, ClientVersion: nc.version, Server: ps.name, Tool: tool, Configured: configured}
			calls := called[[2]string{ps.name, tool}]
			switch {
			case !started[ps.name]:
				o.Notes = "server never started: the client refused or dropped this server name"
			case len(calls) == 0:
				o.Notes = "server started but this tool was never called: not offered to the model, or its name collided with another server's tool"
			default:
				o.ModelToolName = calls[0]
				reached[calls[0]] = true
				if len(calls) > 1 {
					o.Notes = fmt.Sprintf("called %d times", len(calls))
				}
				h, ok := hooks[calls[0]]
				if !ok {
					o.Notes = strings.TrimPrefix(o.Notes+"; the pre-tool hook never saw this call", "; ")
					break
				}
				o.HookToolName, o.HookServerName, o.HookMCPToolName = h.ToolName, h.ServerName, h.MCPToolName
			}
			obs = append(obs, o)
		}
	}
	for name := range offered {
		if !reached[name] {
			t.Errorf("%s offered %s to the model but no probe server logged a call with it", nc.c.name, name)
		}
	}
	if t.Failed() {
		sc.dump()
	}
	return obs
}

// hookCall is what a logged pre-tool hook payload says about a call.
type hookCall struct{ ToolName, ServerName, MCPToolName string }

// readLogHook parses loghook.sh's log ("### argv" then the payload) into
// the calls it saw, keyed by their probe argument (the model's name).
func readLogHook(t *testing.T, path string) map[string]hookCall {
	out := map[string]hookCall{}
	for _, p := range readHookPayloads(t, path) {
		probe, _ := p.input[wfserver.ProbeArg].(string)
		if probe == "" {
			continue // not a probe tool
		}
		out[probe] = p.hookCall
	}
	return out
}

// loggedPayload is one pre-tool hook payload loghook.sh (or the logging
// plugin) wrote, as any client spells it.
type loggedPayload struct {
	hookCall
	input map[string]any
	raw   string
}

// readHookPayloads reads every payload of loghook.sh's log. The tool's
// name and input are where each client puts them: tool_name and
// tool_input (Claude Code, Codex, Gemini CLI, Droid, the plugin log),
// toolName and toolArgs (Copilot CLI; the args may be a JSON string),
// tool_call.name and tool_call.input (Cline).
func readHookPayloads(t *testing.T, path string) []loggedPayload {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Errorf("the pre-tool hook never ran: %v", err)
		return nil
	}
	var out []loggedPayload
	for _, entry := range strings.Split("\n"+string(b), "\n### ")[1:] {
		_, payload, _ := strings.Cut(entry, "\n")
		var p struct {
			ToolName  string `json:"tool_name"`
			ToolInput any    `json:"tool_input"`
			CToolName string `json:"toolName"`
			CToolArgs any    `json:"toolArgs"`
			ToolCall  struct {
				Name  string `json:"name"`
				Input any    `json:"input"`
			} `json:"tool_call"`
			MCPServer struct {
				Name string `json:"name"`
			} `json:"mcp_server"`
			MCPContext struct {
				ServerName string `json:"server_name"`
				ToolName   string `json:"tool_name"`
			} `json:"mcp_context"`
		}
		if err := json.Unmarshal([]byte(strings.TrimSpace(payload)), &p); err != nil {
			t.Errorf("%s: unparsable hook payload %q: %v", path, tail(payload, 3), err)
			continue
		}
		lp := loggedPayload{raw: payload}
		lp.ToolName, lp.input = p.ToolName, asObject(p.ToolInput)
		switch {
		case p.ToolCall.Name != "":
			lp.ToolName, lp.input = p.ToolCall.Name, asObject(p.ToolCall.Input)
		case p.CToolName != "":
			lp.ToolName, lp.input = p.CToolName, asObject(p.CToolArgs)
		}
		lp.ServerName, lp.MCPToolName = p.MCPServer.Name, p.MCPContext.ToolName
		if lp.ServerName == "" {
			lp.ServerName = p.MCPContext.ServerName
		}
		out = append(out, lp)
	}
	return out
}

// asObject is a tool input given as an object or as its JSON text.
func asObject(v any) map[string]any {
	switch x := v.(type) {
	case map[string]any:
		return x
	case string:
		var m map[string]any
		if json.Unmarshal([]byte(x), &m) == nil {
			return m
		}
	}
	return nil
}
