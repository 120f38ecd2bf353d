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
