package hooks

import (
	"errors"
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
