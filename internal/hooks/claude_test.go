package hooks

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// mcp_server (Claude Code 2.1.330) names the server exactly; when the tool
// name spells it another way, mcp_server decides.
func TestClaudeMCPServerBeatsTheToolName(t *testing.T) {
	cases := []struct {
		name, payload, server, tool string
		ok                          bool
	}{
		{"agree", `{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"mcp__wf__next_step","tool_input":{},"mcp_server":{"name":"wf","source":"dynamic"}}`, "wf", "next_step", true},
		{"name spelled another way: mcp_server's server", `{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"mcp__renamed__next_step","tool_input":{},"mcp_server":{"name":"wf","source":"dynamic"}}`, "wf", "next_step", true},
		{"name spelled another way: not the name's server", `{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"mcp__renamed__next_step","tool_input":{},"mcp_server":{"name":"wf","source":"dynamic"}}`, "renamed", "", false},
		{"tool name with __", `{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"mcp__x_y__a__b","tool_input":{},"mcp_server":{"name":"wf"}}`, "wf", "a__b", true},
		{"not an MCP tool name", `{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{},"mcp_server":{"name":"wf"}}`, "wf", "", false},
		{"no tool after the server", `{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"mcp__x__","tool_input":{},"mcp_server":{"name":"wf"}}`, "wf", "", false},
		{"absent: the parse decides", `{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"mcp__wf__next_step","tool_input":{}}`, "wf", "next_step", true},
		{"not a string: the parse decides", `{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"mcp__wf__next_step","tool_input":{},"mcp_server":{"name":7}}`, "wf", "next_step", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ev, err := Parse([]byte(c.payload), ClaudeCode{})
			if err != nil {
				t.Fatal(err)
			}
			tool, ok := ev.Client.Tool(ev, c.server)
			if ok != c.ok || tool != c.tool {
				t.Errorf("Tool(%q) = %q, %v; want %q, %v", c.server, tool, ok, c.tool, c.ok)
			}
		})
	}
}

// PostToolUseFailure is a post-tool event of the failed call, whose result
// holds nothing: its error text echoes the arguments, a stale handle among
// them, and must never become the held value.
func TestClaudePostToolUseFailure(t *testing.T) {
	payload := fixtureFile(t, "claude-code.PostToolUseFailure.json")
	for _, client := range []Adapter{nil, ClaudeCode{}} {
		ev, err := Parse(payload, client)
		if err != nil {
			t.Fatal(err)
		}
		if ev.Client.Name() != "claude-code" || ev.Phase != PhasePostTool || ev.Name != "PostToolUseFailure" || ev.Session == "" {
			t.Fatalf("got %s %s %q session %q", ev.Client.Name(), ev.Phase, ev.Name, ev.Session)
		}
		if tool, ok := ev.Client.Tool(ev, "wf"); !ok || tool != "next_step" {
			t.Errorf("Tool(wf) = %q, %v", tool, ok)
		}
		if r := ev.Result(); len(r.Texts) != 0 || r.Meta.Exists() || r.Structured.Exists() {
			t.Errorf("a failure's result holds %+v, want nothing", r)
		}
	}
}

// Cursor runs the hooks in Claude Code's settings beside its own (facts:
// cursor.com/docs/reference/third-party-hooks). With interceptor installed
// for both, one call reaches both hooks: the Claude Code one stands aside
// (ErrOtherClient, silent) and Cursor's handles it, so the call is
// injected once.
func TestCursorRunsClaudeCodeHooks(t *testing.T) {
	defer func(g func(string) string) { getenv = g }(getenv)
	env := map[string]string{}
	getenv = func(k string) string { return env[k] }
	native := fixtureFile(t, "cursor.preToolUse.json")
	// What a Claude-format hook would get if Cursor translated the call
	// (no source says whether it does): Claude's names, Cursor's fields.
	translated := []byte(`{"session_id":"c0ffee00-1111-2222-3333-444455556666","conversation_id":"c0ffee00-1111-2222-3333-444455556666",` +
		`"cursor_version":"2026.09.18-9a7762b","hook_event_name":"PreToolUse","tool_name":"mcp__wf__next_step","tool_input":{"step":"one"}}`)
	bare := []byte(`{"session_id":"c0ffee00","hook_event_name":"PreToolUse","tool_name":"mcp__wf__next_step","tool_input":{"step":"one"}}`)
	injects := func(payload []byte, client Adapter) (bool, error) {
		ev, err := Parse(payload, client)
		if err != nil {
			return false, err
		}
		_, ok := ev.Client.Tool(ev, "wf")
		return ev.Phase == PhasePreTool && ok, nil
	}
	// Cursor's own hook gets its own payload, and injects.
	if ok, err := injects(native, Cursor{}); !ok || err != nil {
		t.Errorf("Cursor's own hook: %v, %v", ok, err)
	}
	for _, payload := range [][]byte{native, translated} {
		if ok, err := injects(payload, ClaudeCode{}); ok || !errors.Is(err, ErrOtherClient) {
			t.Errorf("Claude Code's hook under Cursor: injects %v, err %v; want it to stand aside", ok, err)
		}
	}
	// A payload that says nothing of Cursor, in a process Cursor started.
	env["CURSOR_VERSION"] = "2026.09.18-9a7762b"
	if _, err := Parse(bare, ClaudeCode{}); !errors.Is(err, ErrOtherClient) {
		t.Errorf("CURSOR_VERSION set: %v, want ErrOtherClient", err)
	}
	// Claude Code itself, run from a terminal that inherited CURSOR_VERSION,
	// marks its own hooks with CLAUDECODE=1: they run.
	env["CLAUDECODE"] = "1"
	if ok, err := injects(bare, ClaudeCode{}); !ok || err != nil {
		t.Errorf("Claude Code's own call: %v, %v", ok, err)
	}
}

// fixtureFile reads a payload from testdata/clients (this package's: each
// file's origin is in its README) or, failing that, the repository's
// fixtures (fixture).
func fixtureFile(t *testing.T, name string) []byte {
	t.Helper()
	if data, err := os.ReadFile(filepath.Join("testdata", "clients", name)); err == nil {
		return data
	}
	return fixture(t, name)
}

// Copilot CLI also runs the hooks of a repository's .claude/settings.json,
// with its own snake_case payload and its own tool names (wf-next_step,
// recorded from 1.0.102): the Claude Code hook never takes such a call for
// wf's, so Copilot's own hook is the only one that injects.
func TestCopilotRunsClaudeCodeHooks(t *testing.T) {
	for _, name := range []string{"copilot.PreToolUse.json", "copilot.PostToolUse.json"} {
		ev, err := Parse(fixture(t, name), ClaudeCode{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if tool, ok := ev.Client.Tool(ev, "wf"); ok {
			t.Errorf("%s: the Claude Code hook took %s (%q) for wf's", name, ev.ToolName, tool)
		}
		// install's matcher for wf is ^<prefix>: it does not even run.
		if p, _ := ClaudeCodeClient.ToolPrefix("wf"); strings.HasPrefix(ev.ToolName, p) {
			t.Errorf("%s: Claude Code's matcher for wf (^%s) matches %q", name, p, ev.ToolName)
		}
	}
}
