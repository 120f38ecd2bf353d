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
		tok, _, err := token.Choose(ev.Result(), token.Rules{Key: "session_token", MinLen: 8})
		if err != nil || tok == "" {
			tok = "TOKEN-1234"
		}
		reply, err := ev.Client.RedactReply(ev, []token.Named{{Name: "session_token", Held: token.Held{tok}}})
		if err == nil && reply != nil {
			if !gjson.ValidBytes(reply) {
				t.Fatalf("invalid redact reply %q", reply)
			}
			// The stand-in must not itself carry the token (a token that is a
			// substring of the stand-in's fixed words can "survive").
			if stand := token.StandIn("session_token", tok); !strings.Contains(stand, tok) {
				for _, txt := range ev.Result().Texts {
					if red, _ := token.RedactText(txt, "session_token", token.Held{tok}); standsAlone(red, tok) {
						t.Fatalf("token survived redaction of text %q", txt)
					}
				}
			}
		}
	})
}

// standsAlone reports whether tok stands in s where redaction must have
// replaced it: anywhere for a long value, and for a short one only as a
// word of its own (a short value inside a longer word is another word:
// "sha 9f00AB2CDE77" keeps its "AB2CDE").
func standsAlone(s, tok string) bool {
	if token.IsLong(tok) {
		return strings.Contains(s, tok)
	}
	word := func(c byte) bool {
		return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
	}
	for from := 0; ; {
		i := strings.Index(s[from:], tok)
		if i < 0 {
			return false
		}
		i += from
		end := i + len(tok)
		glued := i > 0 && word(s[i-1]) && word(tok[0]) || end < len(s) && word(s[end]) && word(tok[len(tok)-1])
		if !glued {
			return true
		}
		from = i + 1
	}
}
