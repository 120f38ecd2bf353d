//go:build e2e

package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Commented settings files (JSONC) with the real clients. Where the client
// reads comments (Gemini CLI 0.61.0, Droid 0.225.2), a settings file a
// person commented gets the hooks from install with every comment kept, the
// client loads it and runs them, doctor reads it, and uninstall gives back
// its bytes. Copilot CLI 1.0.102 does not read comments: install refuses
// such a file (internal/install), and TestJSONCCopilotIgnored shows why.

// jsonServer is the JSON of the MCP server entry of role, with extra keys.
func jsonServer(sc *scenario, role string, extra map[string]any) string {
	cmd, args := sc.serverCommand(role)
	s := map[string]any{"command": cmd, "args": args}
	for k, v := range extra {
		s[k] = v
	}
	b, err := json.Marshal(s)
	if err != nil {
		sc.t.Fatal(err)
	}
	return string(b)
}

// installCommented writes orig, a commented settings file, to path, runs
// interceptor install client into it and checks each of comments is still
// there; after the run (extraCheck) doctor must see the hooks in it and
// uninstall must give back orig byte for byte.
func installCommented(sc *scenario, client, path, orig string, comments []string) {
	sc.write(path, orig)
	sc.install(client, nil)
	got, err := os.ReadFile(path)
	if err != nil {
		sc.t.Fatal(err)
	}
	for _, comment := range comments {
		if !strings.Contains(orig, comment) {
			sc.t.Fatalf("the test's file lacks its comment %q", comment)
		}
		if !strings.Contains(string(got), comment) {
			sc.t.Errorf("install dropped the comment %q:\n%s", comment, got)
		}
	}
	if !strings.Contains(string(got), `"hooks"`) {
		sc.t.Fatalf("install wrote no hooks:\n%s", got)
	}
	sc.t.Logf("%s after install:\n%s", path, got)
	sc.extraCheck = func() {
		doctorSees(sc, client, path)
		sc.interceptor("uninstall", client, "--server", sc.serverName("wf"))
		if after, _ := os.ReadFile(path); string(after) != orig {
			sc.t.Errorf("uninstall did not give back the original bytes:\n%s\nwant:\n%s", after, orig)
		}
	}
}

var geminiComments = []string{
	"// My Gemini CLI settings: Gemini CLI reads comments here.",
	"/* the fake model */",
	"// inline, after a value",
	"// the servers",
	"/* wf: the token server */",
	"// the end of the settings",
}

// geminiJSONC is Gemini CLI with a hand-written settings.json, with line and
// block comments before, inside and after its members.
var geminiJSONC = &client{
	name:          "Gemini CLI " + geminiVersion + " (commented settings.json)",
	tokenOptional: true,
	configure: func(sc *scenario) {
		c := geminiComments
		trusted := map[string]any{"trust": true}
		orig := c[0] + "\n{\n" +
			"  " + c[1] + "\n" +
			`  "security": {"auth": {"selectedType": "gemini-api-key"}}, ` + c[2] + "\n" +
			"  " + c[3] + "\n" +
			`  "mcpServers": {` + "\n" +
			"    " + c[4] + "\n" +
			`    "` + sc.serverName("wf") + `": ` + jsonServer(sc, "wf", trusted) + ",\n" +
			`    "` + sc.serverName("other") + `": ` + jsonServer(sc, "other", trusted) + "\n" +
			"  }\n" +
			"  " + c[5] + "\n" +
			"}\n"
		installCommented(sc, "gemini", filepath.Join(sc.home, ".gemini", "settings.json"), orig, c)
	},
	command: gemini.command,
}

var droidComments = []string{
	"// My Droid settings: Droid reads comments here.",
	"/* the fake model */",
	"// inline, after a bracket",
	"// the end of the settings",
}

// droidJSONC is Droid with a hand-written, commented ~/.factory/settings.json
// holding the fake model (so Droid runs only if it reads the file).
func droidJSONC() client2 {
	c := *droidCLI.client
	c.name += " (commented settings.json)"
	c.configure = func(sc *scenario) {
		sc.write(filepath.Join(sc.home, ".factory", "mcp.json"), mustJSON(mcpServers(sc, map[string]any{"type": "stdio"})))
		model, err := json.Marshal(map[string]any{"model": "e2e-model", "displayName": "e2e-model", "provider": "generic-chat-completion-api",
			"baseUrl": sc.baseURL + "/v1", "apiKey": "e2e-dummy-key", "maxOutputTokens": 4096})
		if err != nil {
			sc.t.Fatal(err)
		}
		k := droidComments
		orig := k[0] + "\n{\n" +
			"  " + k[1] + "\n" +
			`  "customModels": [ ` + k[2] + "\n" +
			"    " + string(model) + "\n" +
			"  ]\n" +
			"  " + k[3] + "\n" +
			"}\n"
		installCommented(sc, "droid", filepath.Join(sc.home, ".factory", "settings.json"), orig, k)
	}
	return client2{client: &c, script: droidCLI.script}
}

// doctorSees: doctor reads the file, finds the inject and capture hooks in
// it with their binary, and fails nothing of the client's.
func doctorSees(sc *scenario, client, path string) {
	out := sc.interceptor("doctor", "--json", "--project", sc.proj)
	var rep struct {
		Clients []struct {
			Client  string `json:"client"`
			Configs []struct {
				Path  string `json:"path"`
				Hooks []struct {
					Kind  string `json:"kind"`
					BinOK bool   `json:"bin_ok"`
				} `json:"hooks"`
			} `json:"configs"`
			Findings []struct {
				Level   string `json:"level"`
				Message string `json:"message"`
			} `json:"findings"`
		} `json:"clients"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		sc.t.Fatalf("doctor --json: %v\n%s", err, out)
	}
	kinds := map[string]bool{}
	for _, c := range rep.Clients {
		if c.Client != client {
			continue
		}
		for _, f := range c.Findings {
			if f.Level == "fail" {
				sc.t.Errorf("doctor: %s: %s", client, f.Message)
			}
		}
		for _, cf := range c.Configs {
			for _, h := range cf.Hooks {
				if cf.Path == path && h.BinOK {
					kinds[h.Kind] = true
				}
			}
		}
	}
	if !kinds["inject"] || !kinds["capture"] {
		sc.t.Errorf("doctor does not see the inject and capture hooks in %s: %s", path, out)
	}
}

// interceptor runs an interceptor command with the scenario's environment
// and returns its stdout. doctor exits 1 on a fail line: its caller judges
// the report.
func (sc *scenario) interceptor(args ...string) string {
	sc.t.Helper()
	cmd := exec.Command(bins.interceptor, args...)
	cmd.Env = sc.baseEnv()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil && args[0] != "doctor" {
		sc.t.Fatalf("interceptor %s: %v\n%s%s", strings.Join(args, " "), err, out, stderr.String())
	}
	return string(out)
}

func TestJSONCGemini(t *testing.T) {
	parallel(t)
	runScenario(t, geminiJSONC, 1, false)
}

func TestJSONCDroid(t *testing.T) {
	parallel(t)
	droidJSONC().run(t, false, nil)
}

// TestJSONCCopilotIgnored: beside the hooks install wrote, two hand-written
// hooks files in ~/.copilot/hooks/ with the same post-tool hook (it touches
// a marker): Copilot runs the plain one's and logs the commented one as
// "Invalid hook configuration", running none of its hooks.
func TestJSONCCopilotIgnored(t *testing.T) {
	parallel(t)
	c := *copilotCLI.client
	c.name += " (and a commented hooks file)"
	c.configure = func(sc *scenario) {
		copilotCLI.client.configure(sc)
		hooksFile := func(marker string) string {
			return mustJSON(map[string]any{"version": 1, "hooks": map[string]any{"postToolUse": []any{map[string]any{
				"matcher": "wf-.*", "hooks": []any{map[string]any{"type": "command",
					"command": "cat >/dev/null; touch " + shellQuote(sc.path(marker))}}}}}})
		}
		dir := filepath.Join(sc.home, ".copilot", "hooks")
		sc.write(filepath.Join(dir, "plain.json"), hooksFile("plain.ran"))
		sc.write(filepath.Join(dir, "commented.json"), "// commented by hand\n"+hooksFile("commented.ran"))
		sc.extraCheck = func() {
			if _, err := os.Stat(sc.path("plain.ran")); err != nil {
				sc.t.Errorf("the plain hooks file's hook did not run (%v): the check below would be vacuous", err)
			}
			if _, err := os.Stat(sc.path("commented.ran")); err == nil {
				sc.t.Errorf("Copilot ran a hook of the commented hooks file: it reads comments; update CopilotClient.Syntax")
			}
			logs, _ := filepath.Glob(sc.path("copilot-logs", "*.log"))
			var all strings.Builder
			for _, l := range logs {
				b, _ := os.ReadFile(l)
				all.Write(b)
			}
			if want := "Invalid hook configuration in " + filepath.Join(dir, "commented.json"); !strings.Contains(all.String(), want) {
				sc.t.Errorf("Copilot's log does not say %q", want)
			}
		}
	}
	client2{client: &c, script: copilotCLI.script}.run(t, false, nil)
}
