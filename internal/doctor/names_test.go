package doctor

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/interceptor-dev/interceptor/internal/hooks"
	"github.com/interceptor-dev/interceptor/internal/install"
)

// Issue 11: under Codex, wf's prefix mcp__wf__ starts wf__admin's
// mcp__wf__admin__; install tells wf's hooks to refuse wf__admin's names,
// doctor fails hooks that do not. Claude Code names the server in the
// payload: nothing to refuse.
func TestCollidingServersRefused(t *testing.T) {
	env := testEnv(t)
	codexHome := filepath.Join(env.Home, "codex")
	env.Getenv = func(k string) string { return map[string]string{"CODEX_HOME": codexHome}[k] }
	bin := filepath.Join(env.Home, "bin", "interceptor")
	mustWrite(t, bin, "#!/bin/sh\n", 0o755)
	codexConfig := filepath.Join(codexHome, "config.toml")
	mustWrite(t, codexConfig, "[mcp_servers.wf]\ncommand = \"x\"\n", 0o600)
	mustWrite(t, filepath.Join(env.Project, ".mcp.json"), `{"mcpServers":{"wf":{},"wf__admin":{}}}`, 0o644)

	o := opts("codex", install.User)
	o.Bin = bin
	res, err := install.Install(env, o)
	if err != nil || strings.Contains(mustRead(t, res.Path), "--not-server") {
		t.Fatalf("a --not-server with no colliding server configured: %v\n%s", err, mustRead(t, res.Path))
	}
	// wf__admin appears in Codex's config: doctor fails wf's hooks.
	mustWrite(t, codexConfig, "[mcp_servers.wf]\ncommand = \"x\"\n\n[mcp_servers.wf__admin]\ncommand = \"y\"\n", 0o600)
	rep := Run(env, "", time.Now())
	if !hasFinding(rep, "codex", Fail, `add --not-server wf__admin`) {
		t.Fatalf("colliding server not failed: %+v", findingsOf(rep, "codex"))
	}
	res, err = install.Install(env, o)
	if err != nil {
		t.Fatal(err)
	}
	doc := mustRead(t, res.Path)
	if strings.Count(doc, "--server wf --not-server wf__admin") != 2 {
		t.Fatalf("inject and capture do not refuse wf__admin:\n%s", doc)
	}
	if !slices.ContainsFunc(res.Notes, func(n string) bool { return strings.Contains(n, "wf__admin") }) {
		t.Fatalf("install does not say why: %q", res.Notes)
	}
	rep = Run(env, "", time.Now())
	if hasFinding(rep, "codex", Fail, "--not-server") {
		t.Fatalf("doctor still fails the refused collision: %+v", findingsOf(rep, "codex"))
	}
	// Claude Code: the payload names the server.
	co := opts("claude-code", install.Project)
	co.Bin = bin
	res, err = install.Install(env, co)
	if err != nil || strings.Contains(mustRead(t, res.Path), "--not-server") {
		t.Fatalf("Claude Code got --not-server: %v\n%s", err, mustRead(t, res.Path))
	}
	if rep = Run(env, "", time.Now()); hasFinding(rep, "claude-code", Fail, "--not-server") {
		t.Fatalf("doctor fails Claude Code: %+v", findingsOf(rep, "claude-code"))
	}
	// OpenCode's shim carries the refusal in its shared ARGS.
	mustWrite(t, filepath.Join(env.Project, "opencode.json"), "{\n  // servers\n  \"mcp\": {\"wf\": {}, \"wf__admin\": {},},\n}\n", 0o644)
	oo := opts("opencode", install.Project)
	oo.Bin = bin
	if res, err = install.Install(env, oo); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(mustRead(t, res.Path), `const ARGS: string[] = ["--server", "wf", "--not-server", "wf__admin"]`) {
		t.Fatalf("shim does not refuse wf__admin:\n%s", mustRead(t, res.Path))
	}
	if rep = Run(env, "", time.Now()); hasFinding(rep, "opencode", Fail, "--not-server") {
		t.Fatalf("doctor fails the shim: %+v", findingsOf(rep, "opencode"))
	}
}

// Issue 11: a matcher written with the configured name where Codex
// sanitizes it never fires; doctor fails it.
func TestDoctorFailsMatcherThatNeverMatches(t *testing.T) {
	env := testEnv(t)
	codexHome := filepath.Join(env.Home, "codex")
	env.Getenv = func(k string) string { return map[string]string{"CODEX_HOME": codexHome}[k] }
	bin := filepath.Join(env.Home, "bin", "interceptor")
	mustWrite(t, bin, "#!/bin/sh\n", 0o755)
	hook := func(sub string) string {
		return `{"matcher": "^mcp__workflow-server__", "hooks": [{"type": "command", "command": "` + bin + ` ` + sub + ` --client codex --server workflow-server", "timeout": 10}]}`
	}
	path := filepath.Join(codexHome, "hooks.json")
	mustWrite(t, path, `{"hooks": {"PreToolUse": [`+hook("inject")+`], "PostToolUse": [`+hook("capture")+`]}}`, 0o644)
	rep := Run(env, "", time.Now())
	if !hasFinding(rep, "codex", Fail, `matcher "^mcp__workflow-server__" never matches server "workflow-server"'s tools, which Codex names mcp__workflow_server__tool`) {
		t.Fatalf("dead matcher not failed: %+v", findingsOf(rep, "codex"))
	}
	// What install writes passes.
	os.Remove(path)
	o := opts("codex", install.User)
	o.Bin = bin
	o.Server = "workflow-server"
	if _, err := install.Install(env, o); err != nil {
		t.Fatal(err)
	}
	if rep = Run(env, "", time.Now()); hasFinding(rep, "codex", Fail, "never matches") {
		t.Fatalf("install's matcher failed: %+v", findingsOf(rep, "codex"))
	}
}

// Copilot CLI matches a matcher against the whole tool name: "^wf-" never
// matches wf-next_step there, "^wf-.*" (install's) does.
func TestDoctorMatcherWholeName(t *testing.T) {
	env := testEnv(t)
	bin := filepath.Join(env.Home, "bin", "interceptor")
	mustWrite(t, bin, "#!/bin/sh\n", 0o755)
	o := opts("copilot", install.Project)
	o.Bin = bin
	res, err := install.Install(env, o)
	if err != nil {
		t.Fatal(err)
	}
	if rep := Run(env, "", time.Now()); hasFinding(rep, "copilot", Fail, "never matches") {
		t.Fatalf("install's matcher failed: %+v", findingsOf(rep, "copilot"))
	}
	doc := strings.ReplaceAll(mustRead(t, res.Path), `"^wf-.*"`, `"^wf-"`)
	mustWrite(t, res.Path, doc, 0o644)
	if rep := Run(env, "", time.Now()); !hasFinding(rep, "copilot", Fail, `matcher "^wf-" never matches`) {
		t.Fatalf("a matcher short of the whole name passed: %+v", findingsOf(rep, "copilot"))
	}
}

// Where the payload does not name the server, install reads each client's
// MCP server list and writes --not-server for a server whose tool names
// collide with wf's; doctor fails hooks written before that server was
// configured. Cursor collides through its second spelling only (MCP:wf: vs
// MCP:wf__admin: do not, mcp__wf__ vs mcp__wf__admin__ do); Copilot CLI
// names wf-admin's tools wf-admin-<tool>, which wf's wf- starts.
func TestCollisionsPerClient(t *testing.T) {
	for _, c := range []struct {
		client  string
		scope   install.Scope
		list    string // the client's MCP server list, relative to its root
		project bool   // list is in the project dir, not the home dir
		servers string // the JSON of the list, holding wf and other
		other   string
		written string // how the refusal reads in the file install writes
	}{
		{"cursor", install.User, ".cursor/mcp.json", false, `{"mcpServers":{"wf":{},"wf__admin":{}}}`, "wf__admin", "--not-server wf__admin"},
		{"copilot", install.User, ".copilot/mcp-config.json", false, `{"mcpServers":{"wf":{},"wf-admin":{}}}`, "wf-admin", "--not-server wf-admin"},
		{"copilot", install.Project, ".mcp.json", true, `{"mcpServers":{"wf":{},"wf-admin":{}}}`, "wf-admin", "--not-server wf-admin"},
		{"copilot", install.Project, ".github/mcp.json", true, `{"mcpServers":{"wf":{},"wf-admin":{}}}`, "wf-admin", "--not-server wf-admin"},
		{"cline", install.User, ".cline/data/settings/cline_mcp_settings.json", false, `{"mcpServers":{"wf":{"disabled":false},"wf__admin":{}}}`, "wf__admin", "--not-server wf__admin"},
		{"droid", install.User, ".factory/mcp.json", false, `{"mcpServers":{"wf":{},"wf_":{}}}`, "wf_", "--not-server wf_"},
		{"droid", install.Project, ".factory/mcp.json", true, `{"mcpServers":{"wf":{},"wf_":{}}}`, "wf_", "--not-server wf_"},
		{"kilo", install.Project, "kilo.jsonc", true, "{\n  // mine\n  \"mcp\": {\"wf\": {}, \"wf_admin\": {},},\n}\n", "wf_admin", `"--not-server", "wf_admin"`},
		{"kilo", install.User, ".config/kilo/kilo.json", false, `{"mcp":{"wf":{},"wf_admin":{}}}`, "wf_admin", `"--not-server", "wf_admin"`},
		{"kilo", install.User, ".kilocode/opencode.json", false, `{"mcp":{"wf":{},"wf_admin":{}}}`, "wf_admin", `"--not-server", "wf_admin"`},
	} {
		t.Run(c.client+"/"+c.list, func(t *testing.T) {
			env := testEnv(t)
			bin := filepath.Join(env.Home, "bin", "interceptor")
			mustWrite(t, bin, "#!/bin/sh\n", 0o755)
			o := opts(c.client, c.scope)
			o.Bin = bin
			// Hooks installed before the other server was configured.
			if _, err := install.Install(env, o); err != nil {
				t.Fatal(err)
			}
			list := filepath.Join(env.Home, c.list)
			if c.project {
				list = filepath.Join(env.Project, c.list)
			}
			mustWrite(t, list, c.servers, 0o644)
			want := "add --not-server " + c.other
			if rep := Run(env, "", time.Now()); !hasFinding(rep, c.client, Fail, want) {
				t.Fatalf("colliding server not failed: %+v", findingsOf(rep, c.client))
			}
			res, err := install.Install(env, o)
			if err != nil {
				t.Fatal(err)
			}
			files := []string{res.Path}
			if c.client == "cline" {
				files = append(files, install.ScriptPath(env, &hooks.ClineClient, c.scope, "PostToolUse"))
			}
			for _, f := range files {
				if doc := mustRead(t, f); !strings.Contains(doc, c.written) {
					t.Errorf("%s does not refuse %s:\n%s", f, c.other, doc)
				}
			}
			if !slices.ContainsFunc(res.Notes, func(n string) bool { return strings.Contains(n, c.other) }) {
				t.Errorf("install does not say why: %q", res.Notes)
			}
			if rep := Run(env, "", time.Now()); hasFinding(rep, c.client, Fail, "--not-server") {
				t.Fatalf("doctor still fails the refused collision: %+v", findingsOf(rep, c.client))
			}
		})
	}
}
