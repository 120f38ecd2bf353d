package hooks

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/interceptor-dev/interceptor/internal/token"
	"github.com/tidwall/gjson"
	"github.com/tidwall/pretty"
)

// fixture reads a payload: real ones from testdata/fixtures (verbatim from
// the clients), Cursor's from testdata/documented (written from its docs).
func fixture(t testing.TB, name string) []byte {
	t.Helper()
	for _, dir := range []string{"fixtures", "documented"} {
		data, err := os.ReadFile(filepath.Join("..", "..", "testdata", dir, name))
		if err == nil {
			return data
		}
	}
	t.Fatalf("no fixture %s", name)
	return nil
}

func TestEveryRealFixtureIsCovered(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "testdata", "fixtures", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	covered := map[string]bool{}
	for _, c := range fixtureCases {
		covered[c.file] = true
	}
	for _, f := range files {
		if !covered[filepath.Base(f)] {
			t.Errorf("fixture %s has no case in fixtureCases", filepath.Base(f))
		}
	}
}

type fixtureCase struct {
	file    string
	client  string
	phase   Phase
	session string
	// pre-tool: the exact reply for injecting "TOK" (compacted)
	reply string
	// post-tool: the token the hook can see, "" when none
	token string
	src   token.Where
	// tool is the tool of server wf the fixture calls: "" is next_step,
	// "-" is a tool of no server (Droid's ToolSearch).
	tool string
}

var fixtureCases = []fixtureCase{
	{file: "claude-code.PreToolUse.text.json", client: "claude-code", phase: PhasePreTool, session: "be0b78df-7440-44cb-9e65-7b68cd544fe4",
		reply: `{"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":{"step":"one","session_token":"TOK"}}}`},
	{file: "claude-code.PreToolUse.structured.json", client: "claude-code", phase: PhasePreTool, session: "58224942-e2c5-4744-bb5a-d92f86bb81cd",
		reply: `{"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":{"step":"one","session_token":"TOK"}}}`},
	// Claude Code never shows _meta to a hook: the text-only result has no token.
	{file: "claude-code.PostToolUse.text.json", client: "claude-code", phase: PhasePostTool, session: "be0b78df-7440-44cb-9e65-7b68cd544fe4"},
	{file: "claude-code.PostToolUse.structured.json", client: "claude-code", phase: PhasePostTool, session: "58224942-e2c5-4744-bb5a-d92f86bb81cd",
		token: "tok-1", src: token.FromStructured},
	{file: "codex.PreToolUse.text.json", client: "codex", phase: PhasePreTool, session: "01a1ffa5-69ed-7221-a81e-eca97e15be4c",
		reply: `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"step":"one","session_token":"TOK"}}}`},
	{file: "codex.PreToolUse.structured.json", client: "codex", phase: PhasePreTool, session: "01a1ffa5-6edc-74b0-80b0-757707a9a45a",
		reply: `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"step":"one","session_token":"TOK"}}}`},
	{file: "codex.PostToolUse.text.json", client: "codex", phase: PhasePostTool, session: "01a1ffa5-69ed-7221-a81e-eca97e15be4c",
		token: "tok-1", src: token.FromMeta},
	{file: "codex.PostToolUse.structured.json", client: "codex", phase: PhasePostTool, session: "01a1ffa5-6edc-74b0-80b0-757707a9a45a",
		token: "tok-1", src: token.FromMeta},
	{file: "gemini.BeforeTool.text.json", client: "gemini", phase: PhasePreTool, session: "fd98bae8-a7f6-46fe-8728-1ba81834528f",
		reply: `{"hookSpecificOutput":{"hookEventName":"BeforeTool","tool_input":{"step":"one","session_token":"TOK"}}}`},
	// Gemini CLI passes the content only, and this result's text has no token.
	{file: "gemini.AfterTool.text.json", client: "gemini", phase: PhasePostTool, session: "fd98bae8-a7f6-46fe-8728-1ba81834528f"},
	{file: "opencode.tool.execute.before.text.json", client: "opencode", phase: PhasePreTool, session: "ses_e005a68a7ffeEK1Gr5dKnzlq10",
		reply: `{"args":{"step":"one","session_token":"TOK"}}`},
	{file: "opencode.tool.execute.after.text.json", client: "opencode", phase: PhasePostTool, session: "ses_e005a68a7ffeEK1Gr5dKnzlq10",
		token: "tok-1", src: token.FromMeta},
	{file: "cursor.preToolUse.json", client: "cursor", phase: PhasePreTool, session: "c0ffee00-1111-2222-3333-444455556666",
		reply: `{"permission":"allow","updated_input":{"step":"one","session_token":"TOK"}}`},
	{file: "cursor.preToolUse.string-input.json", client: "cursor", phase: PhasePreTool, session: "c0ffee00-1111-2222-3333-444455556666",
		reply: `{"permission":"allow","updated_input":{"step":"one","session_token":"TOK"}}`},
	{file: "cursor.postToolUse.json", client: "cursor", phase: PhasePostTool, session: "c0ffee00-1111-2222-3333-444455556666",
		token: "tok-cursor-1", src: token.FromText},
	{file: "copilot.preToolUse.json", client: "copilot", phase: PhasePreTool, session: "82d35c93-1e6b-40fb-8215-8a877b8bfc2e",
		reply: `{"modifiedArgs":{"step":"one","session_token":"TOK"}}`},
	// Copilot passes text only: the token line (and the structuredContent
	// appended as JSON text, one line among others).
	{file: "copilot.postToolUse.json", client: "copilot", phase: PhasePostTool, session: "82d35c93-1e6b-40fb-8215-8a877b8bfc2e",
		token: copilotTok, src: token.FromText, tool: "start_session"},
	// Copilot hooks configured under PascalCase events get snake_case
	// payloads (recorded by the e2e suite's pass-through hook, 1.0.102).
	{file: "copilot.PreToolUse.json", client: "copilot", phase: PhasePreTool, session: "829516fa-4262-4d77-89b0-36315c3cbe8e",
		reply: `{"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":{"step":"one","session_token":"TOK"}}}`},
	{file: "copilot.PostToolUse.json", client: "copilot", phase: PhasePostTool, session: "829516fa-4262-4d77-89b0-36315c3cbe8e",
		token: copilotSnakeTok, src: token.FromText, tool: "start_session"},
	{file: "cline.PreToolUse.json", client: "cline", phase: PhasePreTool, session: "conv_1795345560094_4edyoff",
		reply: `{"overrideInput":{"step":"one","session_token":"TOK"}}`},
	{file: "cline.PostToolUse.json", client: "cline", phase: PhasePostTool, session: "conv_1795345560094_4edyoff",
		token: clineTok, src: token.FromMeta, tool: "start_session"},
	// Droid's MCP tools sit behind ToolSearch: these are its calls;
	// TestDroidServerTools reads the same payloads for a wf tool.
	{file: "droid.PreToolUse.json", client: "droid", phase: PhasePreTool, session: "b0ebcd25-0cc9-4321-9498-d0a4c7e0da35",
		reply: `{"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":{"query":"select:wf___start_session,wf___next_step","session_token":"TOK"}}}`, tool: "-"},
	{file: "droid.PostToolUse.json", client: "droid", phase: PhasePostTool, session: "b0ebcd25-0cc9-4321-9498-d0a4c7e0da35", tool: "-"},
	// Droid 0.225.2 calling the wf tools (recorded by the e2e suite's
	// pass-through hook): tool_response is the text the model reads.
	{file: "droid.PreToolUse.start_session.json", client: "droid", phase: PhasePreTool, session: "c827b0a0-b1ab-4d19-a761-0dcc57ded69d",
		reply: `{"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":{"session_token":"TOK"}}}`, tool: "start_session"},
	{file: "droid.PostToolUse.start_session.json", client: "droid", phase: PhasePostTool, session: "c827b0a0-b1ab-4d19-a761-0dcc57ded69d",
		token: droidTok, src: token.FromText, tool: "start_session"},
	{file: "droid.PreToolUse.next_step.json", client: "droid", phase: PhasePreTool, session: "c827b0a0-b1ab-4d19-a761-0dcc57ded69d",
		reply: `{"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":{"step":"one","session_token":"TOK"}}}`},
}

// The tokens the real Copilot and Cline fixtures carry.
const (
	copilotTok      = "eyJzaWQiOiJzXzc0YjQyZDk3NDcyM2UzNjMiLCJzZXEiOjEsInRzIjoxNzk1MzQ1NDIzLCJ3ZiI6InJlbGVhc2UtcmV2aWV3IiwiYWN0Ijoic3RhcnRfc2Vzc2lvbiIsImluc3QiOiJhZDg1N2E1MCIsInNjb3BlIjpbIndvcmtmbG93OnJlYWQiLCJ3b3JrZmxvdzp3cml0ZSIsIndvcmtmbG93OmFkdmFuY2UiXSwibm9uY2UiOiI4YWVjYjdkMjdiMmRhZDIzMGI3NjE3YWEyZGY1M2U2NSIsImF1ZCI6Im1jcDovL2UyZS13b3JrZmxvdy1zZXJ2ZXIvcmVsZWFzZS1yZXZpZXcifQ.c1413ce1171cb638a16dd96defc2a694d6b90b8fce0c075f6672766242f67843"
	droidTok        = "eyJzaWQiOiJzXzdiZmU3ZDQwNzZhYzVkMTgiLCJzZXEiOjEsInRzIjoxNzk1NDYyMDg5LCJ3ZiI6InJlbGVhc2UtcmV2aWV3IiwiYWN0Ijoic3RhcnRfc2Vzc2lvbiIsImluc3QiOiI2ZDU1NmVkYSIsInNjb3BlIjpbIndvcmtmbG93OnJlYWQiLCJ3b3JrZmxvdzp3cml0ZSIsIndvcmtmbG93OmFkdmFuY2UiXSwibm9uY2UiOiJkNzExNDQzN2JiMzJkZWU2MTI0MWMzMzdiODBhZTUyOSIsImF1ZCI6Im1jcDovL2UyZS13b3JrZmxvdy1zZXJ2ZXIvcmVsZWFzZS1yZXZpZXcifQ.c4b312a752ebaadf348d168ec1a09f6ebdd9cc5d057a12d8edebb4de5d4d3bd7"
	copilotSnakeTok = "eyJzaWQiOiJzXzViNTZhOTJmMGNjOWNhMGYiLCJzZXEiOjEsInRzIjoxNzk1NDYzMTYzLCJ3ZiI6InJlbGVhc2UtcmV2aWV3IiwiYWN0Ijoic3RhcnRfc2Vzc2lvbiIsImluc3QiOiJmZDBjMGIxYiIsInNjb3BlIjpbIndvcmtmbG93OnJlYWQiLCJ3b3JrZmxvdzp3cml0ZSIsIndvcmtmbG93OmFkdmFuY2UiXSwibm9uY2UiOiJmODIyNjY0MDJlYzg2OTE2ZTYwMzRkZmEyMjFhZDJmZSIsImF1ZCI6Im1jcDovL2UyZS13b3JrZmxvdy1zZXJ2ZXIvcmVsZWFzZS1yZXZpZXcifQ.ee2df3d452dfaca985360004b4cfe572ce1f746c522f03883ddff06496feb8e1"
	clineTok        = "eyJzaWQiOiJzXzUxZGJkZmNkOTM4Njk5ZTAiLCJzZXEiOjEsInRzIjoxNzk1MzQ1NTYwLCJ3ZiI6InJlbGVhc2UtcmV2aWV3IiwiYWN0Ijoic3RhcnRfc2Vzc2lvbiIsImluc3QiOiJhYTMwYTc2MSIsInNjb3BlIjpbIndvcmtmbG93OnJlYWQiLCJ3b3JrZmxvdzp3cml0ZSIsIndvcmtmbG93OmFkdmFuY2UiXSwibm9uY2UiOiIzY2Q5OWZjYjVjNDg3NjNkMTRjMWYyZWQ3Nzc1ZTg4NiIsImF1ZCI6Im1jcDovL2UyZS13b3JrZmxvdy1zZXJ2ZXIvcmVsZWFzZS1yZXZpZXcifQ.fab4c5067dd0dee1d70e12a0be2a6aee6b515e38a224dc44d0c466a74238f0be"
)

func TestFixtures(t *testing.T) {
	for _, c := range fixtureCases {
		t.Run(c.file, func(t *testing.T) {
			payload := fixture(t, c.file)
			ev, err := Parse(payload, nil)
			if err != nil {
				t.Fatal(err)
			}
			if ev.Client.Name() != c.client || ev.Phase != c.phase || ev.Session != c.session {
				t.Fatalf("got client %s phase %s session %q; want %s %s %q", ev.Client.Name(), ev.Phase, ev.Session, c.client, c.phase, c.session)
			}
			// Naming the client explicitly gives the same event.
			named, err := Parse(payload, ev.Client)
			if err != nil || named.Session != ev.Session || named.Phase != ev.Phase {
				t.Fatalf("--client %s: %v", c.client, err)
			}
			want := c.tool
			if want == "" {
				want = "next_step"
			}
			tool, ok := ev.Client.Tool(ev, "wf")
			if want == "-" && ok || want != "-" && (!ok || tool != want) {
				t.Fatalf("Tool(wf) = %q, %v; want %s", tool, ok, want)
			}
			for _, other := range []string{"wf2", "w", "other", ""} {
				if tool, ok := ev.Client.Tool(ev, other); ok {
					t.Errorf("Tool(%q) matched a wf tool as %q", other, tool)
				}
			}
			switch c.phase {
			case PhasePreTool:
				args, err := token.Inject(ev.Input.Raw, "session_token", "TOK")
				if err != nil {
					t.Fatal(err)
				}
				reply, err := ev.Client.InputReply(ev, args)
				if err != nil {
					t.Fatal(err)
				}
				if got := string(pretty.Ugly(reply)); got != c.reply {
					t.Errorf("reply\n got %s\nwant %s", got, c.reply)
				}
			case PhasePostTool:
				// The fixtures were recorded against a test server whose tokens
				// are short ("tok-1"); the shape rules are tested in
				// internal/token, the format here.
				tok, src, err := token.Choose(ev.Result(), token.Rules{Key: "session_token", MinLen: 4})
				if err != nil || tok != c.token || (tok != "" && src != c.src) {
					t.Errorf("token = %q from %s (%v); want %q from %s", tok, src, err, c.token, c.src)
				}
			}
		})
	}
}

func TestInputReplyKeepsUntouchedBytes(t *testing.T) {
	// A Claude Code call whose arguments hold values a JSON round trip would
	// change: number spelling, escapes, key order, unknown keys.
	payload := `{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"mcp__wf__next_step",` +
		`"tool_input":{"z":1.50,"a":"\u00e9\n","big":12345678901234567890,"nested":{"b":[true,null]}},"mcp_server":{"name":"wf"}}`
	ev, err := Parse([]byte(payload), nil)
	if err != nil {
		t.Fatal(err)
	}
	args, _ := token.Inject(ev.Input.Raw, "session_token", "T")
	reply, err := ev.Client.InputReply(ev, args)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"z":1.50,"a":"\u00e9\n","big":12345678901234567890,"nested":{"b":[true,null]},"session_token":"T"}`
	if got := gjson.GetBytes(reply, "hookSpecificOutput.updatedInput").Raw; got != want {
		t.Errorf("updatedInput\n got %s\nwant %s", got, want)
	}
	if gjson.GetBytes(reply, "hookSpecificOutput.permissionDecision").Exists() {
		t.Error("Claude Code reply must not carry a permissionDecision (it would bypass the user's permission rules)")
	}
}

func TestServerMatching(t *testing.T) {
	cases := []struct {
		name, payload, server, tool string
		ok                          bool
	}{
		{"claude sanitized dot", `{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"mcp__my_server__x","tool_input":{}}`, "my.server", "x", true},
		{"claude exact mcp_server wins", `{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"mcp__my_server__x","tool_input":{},"mcp_server":{"name":"my_server"}}`, "my.server", "", false},
		{"claude mcp_server names another server", `{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"mcp__wf__x","tool_input":{},"mcp_server":{"name":"wf2"}}`, "wf", "", false},
		{"claude plugin form", `{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"mcp__plugin_tools_wf__next_step","tool_input":{}}`, "wf", "next_step", true},
		{"claude built-in tool", `{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{}}`, "wf", "", false},
		{"claude prefix server", `{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"mcp__wfx__next_step","tool_input":{}}`, "wf", "", false},
		{"claude tool with __", `{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"mcp__wf__a__b","tool_input":{}}`, "wf", "a__b", true},
		{"codex other server", `{"session_id":"s","turn_id":"t","hook_event_name":"PreToolUse","tool_name":"mcp__other__next_step","tool_input":{}}`, "wf", "", false},
		{"gemini other server", `{"session_id":"s","hook_event_name":"BeforeTool","tool_name":"mcp_wf_next_step","tool_input":{},"mcp_context":{"server_name":"other","tool_name":"next_step"}}`, "wf", "", false},
		{"gemini without mcp_context never guesses", `{"session_id":"s","hook_event_name":"BeforeTool","timestamp":"x","tool_name":"mcp_wf_next_step","tool_input":{}}`, "wf", "", false},
		{"gemini exact name with dot", `{"session_id":"s","hook_event_name":"BeforeTool","tool_name":"mcp_my_server_x","tool_input":{},"mcp_context":{"server_name":"my.server","tool_name":"x"}}`, "my.server", "x", true},
		{"opencode other server", `{"input":{"tool":"other_next_step","sessionID":"s"},"output":{"args":{}}}`, "wf", "", false},
		{"opencode built-in", `{"input":{"tool":"bash","sessionID":"s"},"output":{"args":{}}}`, "wf", "", false},
		{"opencode sanitized", `{"input":{"tool":"my_server_x","sessionID":"s"},"output":{"args":{}}}`, "my.server", "x", true},
		{"cursor unnamed server never guesses", string(fixture(t, "cursor.preToolUse.unnamed-server.json")), "wf", "", false},
		{"cursor mcp__ form", `{"conversation_id":"c","hook_event_name":"preToolUse","tool_name":"mcp__wf__next_step","tool_input":{}}`, "wf", "next_step", true},
		{"cursor other server", `{"conversation_id":"c","hook_event_name":"preToolUse","tool_name":"MCP:wf2:next_step","tool_input":{}}`, "wf", "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ev, err := Parse([]byte(c.payload), nil)
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

func TestDetection(t *testing.T) {
	cases := map[string]string{
		// Codex sends turn_id and model; it must never be taken for Claude Code.
		`{"session_id":"s","turn_id":"t","hook_event_name":"PreToolUse","tool_name":"x","tool_input":{}}`:             "codex",
		`{"session_id":"s","model":"gpt","hook_event_name":"PostToolUse","tool_name":"x","tool_input":{}}`:            "codex",
		`{"session_id":"s","hook_event_name":"SessionEnd","reason":"exit"}`:                                           "claude-code",
		`{"session_id":"s","hook_event_name":"SessionEnd","timestamp":"2026-01-01T00:00:00Z"}`:                        "gemini",
		`{"conversation_id":"c","hook_event_name":"sessionEnd"}`:                                                      "cursor",
		`{"input":{"tool":"t","sessionID":"s"},"output":{"args":{}}}`:                                                 "opencode",
		`{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"x","tool_input":{},"mcp_server":{"name":"a"}}`: "claude-code",
	}
	for payload, want := range cases {
		ev, err := Parse([]byte(payload), nil)
		if err != nil {
			t.Errorf("%s: %v", payload, err)
			continue
		}
		if ev.Client.Name() != want {
			t.Errorf("%s detected as %s, want %s", payload, ev.Client.Name(), want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	deep := strings.Repeat("[", 10000) + strings.Repeat("]", 10000)
	cases := map[string]string{
		"":                   "empty",
		"   \n":              "empty",
		"{":                  "not valid JSON",
		"[1,2]":              "not a JSON object",
		`{"hello":"world"}`:  "no known client",
		`{"x":` + deep + `}`: "nested deeper",
		`{"session_id":5,"turn_id":"t","hook_event_name":"PreToolUse"}`:                   "field session_id is a number",
		`{"session_id":"s","turn_id":"t","hook_event_name":"PreToolUse","tool_input":[]}`: "field tool_input is an array",
		`{"input":{"tool":"t","sessionID":{}},"output":{"args":{}}}`:                      "input.sessionID is an object",
		"{\"session_id\":\"s\xff\",\"turn_id\":\"t\",\"hook_event_name\":\"PreToolUse\"":  "not valid JSON",
	}
	for payload, want := range cases {
		_, err := Parse([]byte(payload), nil)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%.40q) = %v, want error containing %q", payload, err, want)
		}
	}
	big := make([]byte, MaxPayload+1)
	if _, err := Parse(big, nil); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("oversized payload: %v", err)
	}
}

func TestRedactReplies(t *testing.T) {
	const tok = "eyJzaWQiOiJ4In0.0123456789abcdef"
	stand := token.StandIn("session_token", tok) // "[session_token d57b463f held by interceptor]"
	t.Run("claude-code content array", func(t *testing.T) {
		payload := `{"session_id":"s","hook_event_name":"PostToolUse","tool_name":"mcp__wf__next_step","tool_input":{},` +
			`"tool_response":[{"type":"text","text":"done\nsession_token: ` + tok + `\n"},{"type":"image","data":"AAAA"}],"mcp_server":{"name":"wf"}}`
		reply := redact(t, payload, tok)
		want := `{"hookSpecificOutput":{"hookEventName":"PostToolUse","updatedMCPToolOutput":[{"type":"text","text":"done\nsession_token: ` + stand + `\n"},{"type":"image","data":"AAAA"}]}}`
		if reply != want {
			t.Errorf("\n got %s\nwant %s", reply, want)
		}
	})
	t.Run("claude-code structured string", func(t *testing.T) {
		payload := strings.Replace(string(fixture(t, "claude-code.PostToolUse.structured.json")), "tok-1", tok, 1)
		reply := redact(t, payload, tok)
		want := `{"hookSpecificOutput":{"hookEventName":"PostToolUse","updatedMCPToolOutput":[{"type":"text","text":"{\"step\":\"one\",\"session_token\":\"` + stand + `\",\"received_token\":\"INJECTED\"}"}]}}`
		if reply != want {
			t.Errorf("\n got %s\nwant %s", reply, want)
		}
	})
	t.Run("opencode in place fields", func(t *testing.T) {
		payload := strings.ReplaceAll(string(fixture(t, "opencode.tool.execute.after.text.json")), "tok-1", tok)
		reply := redact(t, payload, tok)
		if strings.Contains(reply, tok) || !gjson.Get(reply, "content").IsArray() || !gjson.Get(reply, "_meta").IsObject() {
			t.Errorf("reply %s", reply)
		}
		if gjson.Get(reply, "isError").Exists() {
			t.Errorf("reply carries unchanged fields: %s", reply)
		}
	})
	t.Run("cursor postToolUse", func(t *testing.T) {
		payload := strings.ReplaceAll(string(fixture(t, "cursor.postToolUse.json")), "tok-cursor-1", tok)
		reply := redact(t, payload, tok)
		if strings.Contains(reply, tok) || gjson.Get(reply, "updated_mcp_tool_output.content.0.text").Str != "step one done\nsession_token: "+stand+"\n" {
			t.Errorf("reply %s", reply)
		}
	})
	for _, f := range []string{"codex.PostToolUse.text.json", "gemini.AfterTool.text.json"} {
		t.Run(f+" cannot", func(t *testing.T) {
			ev, err := Parse(fixture(t, f), nil)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := ev.Client.RedactReply(ev, []token.Named{{Name: "session_token", Held: token.Held{"tok-1"}}}); !errors.Is(err, ErrCannotRewrite) {
				t.Errorf("RedactReply = %v, want ErrCannotRewrite", err)
			}
		})
	}
	t.Run("nothing visible", func(t *testing.T) {
		ev, err := Parse(fixture(t, "claude-code.PostToolUse.text.json"), nil)
		if err != nil {
			t.Fatal(err)
		}
		if reply, err := ev.Client.RedactReply(ev, []token.Named{{Name: "session_token", Held: token.Held{tok}}}); reply != nil || err != nil {
			t.Errorf("RedactReply = %s, %v; want nothing", reply, err)
		}
	})
}

func redact(t *testing.T, payload, tok string) string {
	t.Helper()
	ev, err := Parse([]byte(payload), nil)
	if err != nil {
		t.Fatal(err)
	}
	reply, err := ev.Client.RedactReply(ev, []token.Named{{Name: "session_token", Held: token.Held{tok}}})
	if err != nil || reply == nil {
		t.Fatalf("RedactReply = %s, %v", reply, err)
	}
	if !gjson.ValidBytes(reply) {
		t.Fatalf("invalid JSON reply %s", reply)
	}
	return string(pretty.Ugly(reply))
}
