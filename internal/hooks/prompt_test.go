package hooks

import (
	"errors"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

func TestPromptContextReply(t *testing.T) {
	text := "A person answered: \"yes\"\nline two"
	for _, c := range []struct {
		client, payload, event string
	}{
		{"claude-code", `{"session_id":"s1","transcript_path":"/t","cwd":"/p","hook_event_name":"UserPromptSubmit","prompt":"go on"}`, "UserPromptSubmit"},
		{"codex", `{"session_id":"s1","turn_id":"t1","transcript_path":null,"cwd":"/p","hook_event_name":"UserPromptSubmit","model":"m","permission_mode":"default","prompt":"go on"}`, "UserPromptSubmit"},
		{"gemini", `{"session_id":"s1","transcript_path":"/t","cwd":"/p","hook_event_name":"BeforeAgent","timestamp":"2026-01-01T00:00:00Z","prompt":"go on"}`, "BeforeAgent"},
	} {
		ev, err := Parse([]byte(c.payload), nil)
		if err != nil {
			t.Fatalf("%s: %v", c.client, err)
		}
		if ev.Client.Name() != c.client || ev.Session != "s1" || !IsPromptEvent(ev) {
			t.Fatalf("%s: detected %s session %q prompt event %t", c.client, ev.Client.Name(), ev.Session, IsPromptEvent(ev))
		}
		out, err := PromptContextReply(ev, text)
		if err != nil {
			t.Fatalf("%s: %v", c.client, err)
		}
		r := gjson.ParseBytes(out)
		if r.Get("hookSpecificOutput.hookEventName").Str != c.event || r.Get("hookSpecificOutput.additionalContext").Str != text ||
			len(r.Map()) != 1 || len(r.Get("hookSpecificOutput").Map()) != 2 {
			t.Fatalf("%s reply: %s", c.client, out)
		}
	}
	// A tool event cannot carry a turn's context.
	ev, err := Parse([]byte(`{"session_id":"s1","hook_event_name":"PreToolUse","tool_name":"x","tool_input":{}}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := PromptContextReply(ev, text); !errors.Is(err, ErrCannotRewrite) {
		t.Fatalf("PreToolUse: %v", err)
	}
}

// TestOpenCodePromptEvent: what the shim sends from OpenCode's chat.message
// (as OpenCode 1.18.33 ran it: `opencode run`, and with --agent and --model)
// is OpenCode's turn-start event, and the reply is the part the shim adds to
// the user message.
func TestOpenCodePromptEvent(t *testing.T) {
	text := "A person answered: \"yes\"\nline two \u2028 </script>"
	for _, payload := range []string{
		`{"hook":"chat.message","input":{"sessionID":"ses_df31bc0a5ffexnpCA0x6VbF3ON"}}`,
		`{"hook":"chat.message","input":{"sessionID":"ses_df31ba760ffe97VssHj3DDcl5j","agent":"build","model":{"providerID":"e2e","modelID":"e2e-model"}}}`,
	} {
		for _, client := range []Adapter{nil, OpenCode{}} {
			ev, err := Parse([]byte(payload), client)
			if err != nil {
				t.Fatalf("%s: %v", payload, err)
			}
			if ev.Client.Name() != "opencode" || !strings.HasPrefix(ev.Session, "ses_") || !IsPromptEvent(ev) || ev.Phase != PhaseOther || ev.ToolName != "" {
				t.Fatalf("%s: client %s session %q prompt event %t phase %v tool %q", payload, ev.Client.Name(), ev.Session, IsPromptEvent(ev), ev.Phase, ev.ToolName)
			}
			out, err := PromptContextReply(ev, text)
			if err != nil {
				t.Fatal(err)
			}
			r := gjson.ParseBytes(out)
			parts := r.Get("parts").Array()
			if len(r.Map()) != 1 || len(parts) != 1 || len(parts[0].Map()) != 3 || parts[0].Get("type").Str != "text" ||
				parts[0].Get("text").Str != text || parts[0].Get("synthetic").Type != gjson.True || !gjson.ValidBytes(out) {
				t.Fatalf("reply: %s", out)
			}
		}
	}
	// A tool event is not a turn's start, and its reply cannot carry one.
	ev, err := Parse([]byte(`{"input":{"tool":"human_ask","sessionID":"s1","callID":"c1"},"output":{"args":{}}}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if IsPromptEvent(ev) || ev.Phase != PhasePreTool {
		t.Fatalf("tool.execute.before read as %v, prompt event %t", ev.Phase, IsPromptEvent(ev))
	}
	if _, err := PromptContextReply(ev, text); !errors.Is(err, ErrCannotRewrite) {
		t.Fatalf("tool.execute.before: %v", err)
	}
	// A chat.message payload whose session is not a string is refused.
	if _, err := Parse([]byte(`{"hook":"chat.message","input":{"sessionID":7}}`), nil); err == nil || !strings.Contains(err.Error(), "input.sessionID") {
		t.Fatalf("numeric session: %v", err)
	}
}
