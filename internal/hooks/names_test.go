package hooks

import (
	"slices"
	"testing"
)

// TestToolNameSpelling checks the spellings in names.go on the names the
// real clients were seen to send (observed.json holds the full set; the e2e
// helper's test checks every row of it).
func TestToolNameSpelling(t *testing.T) {
	cases := []struct {
		client, toolName, server, tool string
		ok                             bool
	}{
		{"codex", "mcp__workflow_server__next_step", "workflow-server", "next_step", true},
		{"codex", "mcp__workflow-server__next_step", "workflow-server", "", false},
		{"codex", "mcp__wf_v2__probe", "wf.v2", "probe", true},
		{"codex", "mcp__wf_server_84756e964336__probe", "wf-server", "", false},
		{"claude-code", "mcp__workflow-server__next_step", "workflow-server", "next_step", true},
		{"claude-code", "mcp__wf_server__probe", "wf server", "probe", true},
		{"claude-code", "mcp__plugin_p_wf__probe", "wf", "probe", true},
		{"opencode", "wf-server_probe", "wf-server", "probe", true},
		{"opencode", "wf_v2_probe", "wf.v2", "probe", true},
		{"cursor", "MCP:wf:probe", "wf", "probe", true},
		{"cursor", "mcp__wf__probe", "wf", "probe", true},
		{"cursor", "MCP:probe", "wf", "", false},
		{"copilot", "wf-next_step", "wf", "next_step", true},
		{"copilot", "wf-v2-probe", "wf.v2", "probe", true},
		{"copilot", "wf-server-probe", "wf server", "probe", true},
		{"droid", "wf-v2___probe", "wf.v2", "probe", true},
		{"cline", "wf_v2__probe_770cc911", "wf.v2", "probe", true},
		{"cline", "wf__next_step", "wf", "next_step", true},
		{"cline", "wf_v2__probe", "wf.v2", "", false},
		{"droid", "wf___next_step", "wf", "next_step", true},
		{"droid", "wf__next_step", "wf", "", false},
		{"codex", "mcp__wf__", "wf", "", false},
		{"codex", "mcp__wf__x", "", "", false},
		{"nope", "mcp__wf__x", "wf", "", false},
	}
	for _, c := range cases {
		tool, ok := "", false
		if cl, found := FindClient(c.client); found {
			tool, ok = cl.matchTool(c.toolName, c.server)
		}
		if ok != c.ok || tool != c.tool {
			t.Errorf("%s %q for server %q = %q %v, want %q %v", c.client, c.toolName, c.server, tool, ok, c.tool, c.ok)
		}
	}
	if p, ok := ToolPrefix("gemini", "wf.v2"); !ok || p != "mcp_wf.v2_" {
		t.Errorf("gemini prefix %q", p)
	}
}

// Collisions compares every spelling a client's hooks accept.
func TestCollisionsEverySpelling(t *testing.T) {
	for _, c := range []struct {
		client, server string
		configured     []string
		want           []string
	}{
		{"cursor", "wf", []string{"wf", "wf__admin", "wf2", "wfx"}, []string{"wf__admin"}},
		{"cursor", "wf__admin", []string{"wf", "wf__admin"}, []string{"wf"}},
		{"codex", "wf", []string{"wf", "wf__admin", "wf-admin"}, []string{"wf__admin"}},
		{"copilot", "wf", []string{"wf", "wf-admin", "wf_admin"}, []string{"wf-admin"}},
		// Copilot spells wf.v2's tools wf-v2-<tool>, which wf's wf- starts.
		{"copilot", "wf", []string{"wf", "wf.v2", "wfv2"}, []string{"wf.v2"}},
		// Cline hashes wf.v2's tool names but keeps the sanitized wf_v2__.
		{"cline", "wf_v2", []string{"wf.v2", "wf_v2", "wf-v2"}, []string{"wf.v2"}},
		{"claude-code", "wf", []string{"wf", "wf__admin"}, nil},
	} {
		cl, _ := FindClient(c.client)
		if got := cl.Collisions(c.server, c.configured); !slices.Equal(got, c.want) {
			t.Errorf("%s %s among %q: %q, want %q", c.client, c.server, c.configured, got, c.want)
		}
	}
}

// Cline runs a hook file named after the event in any case, with or
// without one of its script extensions (as @cline/core 3.0.65 reads names:
// an extension in capitals is not cut off, so the name then matches no
// event).
func TestScriptEvent(t *testing.T) {
	for name, want := range map[string]string{
		"PreToolUse":         "PreToolUse",
		"pretooluse":         "PreToolUse",
		"PreToolUse.sh":      "PreToolUse",
		"PRETOOLUSE.py":      "PreToolUse",
		" PreToolUse .mjs":   "PreToolUse",
		"posttooluse.ps1":    "PostToolUse",
		"PreToolUse.SH":      "",
		"PreToolUse.txt":     "",
		"PreToolUse.sh.bak":  "",
		".pretooluse":        "",
		"PreToolUse2":        "",
		"TaskStart.sh":       "",
		"PostToolUse.bash":   "PostToolUse",
		"PreToolUse.tar.zsh": "",
	} {
		if got := ClineClient.ScriptEvent(name); got != want {
			t.Errorf("ScriptEvent(%q) = %q, want %q", name, got, want)
		}
	}
	if got := ClaudeCodeClient.ScriptEvent("PreToolUse"); got != "" {
		t.Errorf("Claude Code runs no hook files by name: %q", got)
	}
}
