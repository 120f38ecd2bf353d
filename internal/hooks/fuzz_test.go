package hooks

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/interceptor-dev/interceptor/internal/token"
	"github.com/tidwall/gjson"
)

// Each adapter's parser gets its own fuzz target, seeded with that client's
// real payloads. Whatever the input: no panic, no hang, and every reply that
// is rendered is valid JSON.

func FuzzClaudeCode(f *testing.F) { fuzzAdapter(f, ClaudeCode{}, "claude-code.*.json") }
func FuzzCodex(f *testing.F)      { fuzzAdapter(f, Codex{}, "codex.*.json") }
func FuzzGemini(f *testing.F)     { fuzzAdapter(f, Gemini{}, "gemini.*.json") }
func FuzzOpenCode(f *testing.F)   { fuzzAdapter(f, OpenCode{}, "opencode.*.json") }
func FuzzCursor(f *testing.F)     { fuzzAdapter(f, Cursor{}, "cursor.*.json") }
func FuzzDetect(f *testing.F)     { fuzzAdapter(f, nil, "*.json") }

func fuzzAdapter(f *testing.F, a Adapter, pattern string) {
	for _, dir := range []string{"fixtures", "documented"} {
		files, _ := filepath.Glob(filepath.Join("..", "..", "testdata", dir, pattern))
		for _, file := range files {
			f.Add(fixture(f, filepath.Base(file)))
		}
	}
	f.Add([]byte(`{}`))
	f.Add([]byte(`{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"mcp__wf__x","tool_input":"{}"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		ev, err := Parse(data, a)
		if err != nil {
			return
		}
		tool, ok := ev.Client.Tool(ev, "wf")
		if ok && tool == "" {
			t.Fatal("matched with an empty tool name")
		}
		args := ev.Input.Raw
		if !ev.Input.Exists() {
			args = "{}"
		}
		if inj, err := token.Inject(args, "session_token", "TOKEN-1234"); err == nil {
			if reply, err := ev.Client.InputReply(ev, inj); err == nil && !gjson.ValidBytes(reply) {
				t.Fatalf("invalid input reply %q", reply)
			}
		}
		tok, _, found := token.Find(ev.Result(), "session_token")
		if !found || token.Validate(tok) != nil {
			tok = "TOKEN-1234"
		}
		reply, err := ev.Client.RedactReply(ev, "session_token", tok)
		if err == nil && reply != nil {
			if !gjson.ValidBytes(reply) {
				t.Fatalf("invalid redact reply %q", reply)
			}
			if len(tok) >= 8 && !strings.ContainsAny(tok, `"\`) && strings.Contains(string(reply), tok) && !strings.Contains(token.Placeholder, tok) {
				// A token can survive only where it was not visible to us as a
				// string (e.g. split by an escape); never in a plain text block.
				for _, txt := range ev.Result().Texts {
					if red, _ := token.RedactText(txt, "session_token", tok); strings.Contains(red, tok) {
						t.Fatalf("token survived redaction of text %q", txt)
					}
				}
			}
		}
	})
}
