package reliability

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// The server every test uses; the fixtures call it "wf".
const server = "wf"

var (
	fixturesOnce sync.Once
	fixtures     map[string][]byte // file name without .json -> payload
)

// fixture returns the committed payload testdata/fixtures/NAME.json, as the
// real client sent it.
func fixture(t testing.TB, name string) []byte {
	t.Helper()
	fixturesOnce.Do(func() {
		fixtures = map[string][]byte{}
		paths, _ := filepath.Glob(filepath.Join(repoRoot, "testdata", "fixtures", "*.json"))
		for _, p := range paths {
			b, err := os.ReadFile(p)
			if err == nil {
				fixtures[strings.TrimSuffix(filepath.Base(p), ".json")] = b
			}
		}
	})
	b, ok := fixtures[name]
	if !ok {
		t.Fatalf("no fixture %s.json in testdata/fixtures", name)
	}
	return b
}

func set(t testing.TB, doc []byte, path string, v any) []byte {
	t.Helper()
	out, err := sjson.SetBytes(doc, path, v)
	if err != nil {
		t.Fatalf("sjson set %s: %v", path, err)
	}
	return out
}

func setRaw(t testing.TB, doc []byte, path, raw string) []byte {
	t.Helper()
	out, err := sjson.SetRawBytes(doc, path, []byte(raw))
	if err != nil {
		t.Fatalf("sjson set raw %s: %v", path, err)
	}
	return out
}

// client describes how to talk to one client's hooks in these tests.
type client struct {
	name string
	// pre is a pre-tool event of session calling the server's tool.
	pre func(t testing.TB, session string) []byte
	// post is a post-tool event of session whose result carries tok where
	// this client lets a hook see it.
	post func(t testing.TB, session, tok string) []byte
	// end is a session-end event (clear), when the client has one.
	end func(t testing.TB, session string) []byte
	// argPath is where the injected token sits in the inject reply.
	argPath string
}

var clients = []client{
	{
		name: "claude-code",
		pre: func(t testing.TB, s string) []byte {
			return set(t, fixture(t, "claude-code.PreToolUse.structured"), "session_id", s)
		},
		post: func(t testing.TB, s, tok string) []byte {
			// Claude Code passes structuredContent as one JSON string.
			body, _ := sjson.Set(`{"step":"one"}`, "session_token", tok)
			return set(t, set(t, fixture(t, "claude-code.PostToolUse.structured"), "session_id", s), "tool_response", body)
		},
		end: func(t testing.TB, s string) []byte {
			b := set(t, fixture(t, "claude-code.PreToolUse.structured"), "session_id", s)
			b = set(t, b, "hook_event_name", "SessionEnd")
			return b
		},
		argPath: "hookSpecificOutput.updatedInput.session_token",
	},
	{
		name: "codex",
		pre: func(t testing.TB, s string) []byte {
			return set(t, fixture(t, "codex.PreToolUse.structured"), "session_id", s)
		},
		post: func(t testing.TB, s, tok string) []byte {
			b := set(t, fixture(t, "codex.PostToolUse.structured"), "session_id", s)
			b = set(t, b, "tool_response._meta.session_token", tok)
			return set(t, b, "tool_response.structuredContent.session_token", tok)
		},
		end: func(t testing.TB, s string) []byte {
			return set(t, set(t, fixture(t, "codex.PreToolUse.structured"), "session_id", s), "hook_event_name", "SessionEnd")
		},
		argPath: "hookSpecificOutput.updatedInput.session_token",
	},
	{
		name: "gemini",
		pre: func(t testing.TB, s string) []byte {
			return set(t, fixture(t, "gemini.BeforeTool.text"), "session_id", s)
		},
		post: func(t testing.TB, s, tok string) []byte {
			// Gemini shows the hook only the text, wrapped.
			b := set(t, fixture(t, "gemini.AfterTool.text"), "session_id", s)
			return set(t, b, "tool_response.llmContent.0.text",
				"<untrusted_context>\nstep one done\nsession_token: "+tok+"\n</untrusted_context>")
		},
		end: func(t testing.TB, s string) []byte {
			return set(t, set(t, fixture(t, "gemini.BeforeTool.text"), "session_id", s), "hook_event_name", "SessionEnd")
		},
		argPath: "hookSpecificOutput.tool_input.session_token",
	},
	{
		name: "opencode",
		pre: func(t testing.TB, s string) []byte {
			return set(t, fixture(t, "opencode.tool.execute.before.text"), "input.sessionID", s)
		},
		post: func(t testing.TB, s, tok string) []byte {
			b := set(t, fixture(t, "opencode.tool.execute.after.text"), "input.sessionID", s)
			return set(t, b, "output._meta.session_token", tok)
		},
		argPath: "args.session_token",
	},
	{
		name: "cursor",
		pre: func(t testing.TB, s string) []byte {
			return set(t, cursorEvent(t, s, "preToolUse"), "tool_input", `{"step":"one"}`)
		},
		post: func(t testing.TB, s, tok string) []byte {
			out, _ := sjson.Set(`{"content":[{"type":"text","text":"step one done"}],"isError":false}`, "_meta.session_token", tok)
			b := set(t, cursorEvent(t, s, "postToolUse"), "tool_input", map[string]any{"step": "one"})
			return set(t, b, "tool_output", out)
		},
		end: func(t testing.TB, s string) []byte {
			return cursorEvent(t, s, "sessionEnd")
		},
		argPath: "updated_input.session_token",
	},
}

// cursorEvent follows Cursor's documented hook payload (there is no observed
// fixture: Cursor has no Linux CLI).
func cursorEvent(t testing.TB, session, event string) []byte {
	b := []byte(`{"generation_id":"gen-1","cursor_version":"1.7.0","workspace_roots":["/home/dev/project"],"tool_name":"MCP:wf:next_step","tool_use_id":"tu-1","cwd":"/home/dev/project"}`)
	b = set(t, b, "conversation_id", session)
	return set(t, b, "hook_event_name", event)
}

func clientNamed(t testing.TB, name string) client {
	for _, c := range clients {
		if c.name == name {
			return c
		}
	}
	t.Fatalf("no client %s", name)
	return client{}
}

// hookArgs are the arguments of a hook command against stateDir.
func hookArgs(cmd, stateDir string, extra ...string) []string {
	args := []string{cmd, "--state-dir", stateDir}
	if cmd != "clear" {
		// --sessionless: these tests hammer the server's current record
		// (what an event without a session reads) as well as each
		// session's, so every capture writes both.
		args = append(args, "--server", server, "--sessionless")
	}
	return append(args, extra...)
}

// injected returns the token an inject reply carries for c, checking the
// reply is one line of JSON.
func injected(t testing.TB, c client, r result) string {
	t.Helper()
	if r.stdout == "" {
		return ""
	}
	if !strings.HasSuffix(r.stdout, "\n") || strings.Count(r.stdout, "\n") != 1 || !gjson.Valid(r.stdout) {
		t.Errorf("reply is not one line of JSON\n%s", r)
		return ""
	}
	return gjson.Get(r.stdout, c.argPath).Str
}
