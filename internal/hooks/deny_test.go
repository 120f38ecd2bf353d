package hooks

import (
	"bytes"
	"testing"
)

// TestDenyUnread: the deny rendered without an event is byte for byte the
// deny each client gets for its real pre-tool event.
func TestDenyUnread(t *testing.T) {
	for file, client := range map[string]Adapter{
		"claude-code.PreToolUse.text.json":       ClaudeCode{},
		"codex.PreToolUse.text.json":             Codex{},
		"gemini.BeforeTool.text.json":            Gemini{},
		"opencode.tool.execute.before.text.json": OpenCode{},
		"cursor.preToolUse.json":                 Cursor{},
		"copilot.preToolUse.json":                Copilot{},
		"cline.PreToolUse.json":                  Cline{},
		"droid.PreToolUse.json":                  Droid{},
	} {
		ev, err := Parse(fixture(t, file), client)
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		want, err := client.DecisionReply(ev, Decision{Reason: "unreadable"})
		if err != nil {
			t.Fatal(err)
		}
		got, err := DenyUnread(client, "unreadable")
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: DenyUnread = %s, %v\nwant %s", client.Name(), got, err, want)
		}
	}
}

// TestPermitReply: exactly the JSON Claude Code's permission-prompt tool
// must answer, nothing appended.
func TestPermitReply(t *testing.T) {
	in := []byte(`{"cmd":"ls"}`)
	for _, c := range []struct {
		d    Decision
		want string
	}{
		{Decision{Allow: true}, `{"behavior":"allow","updatedInput":{"cmd":"ls"}}`},
		{Decision{Allow: true, Reason: "ok", UpdatedInput: []byte(`{"cmd":"pwd"}`)}, `{"behavior":"allow","updatedInput":{"cmd":"pwd"}}`},
		{Decision{Reason: "not \"that\"\n"}, `{"behavior":"deny","message":"not \"that\"\n"}`},
		{Decision{}, `{"behavior":"deny","message":"denied by the supervisor"}`},
	} {
		if got := string(PermitReply(c.d, in)); got != c.want {
			t.Errorf("PermitReply(%+v) = %s, want %s", c.d, got, c.want)
		}
	}
}
