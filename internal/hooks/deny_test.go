package hooks

import (
	"bytes"
	"testing"
)

// TestDenyUnread: the deny rendered without an event is byte for byte the
// deny each client gets for its real pre-tool event. Every adapter must
// have a pre-tool fixture here: a new client whose deny names its event
// differently fails this test until DenyUnread knows it.
func TestDenyUnread(t *testing.T) {
	files := map[string]string{
		"claude-code": "claude-code.PreToolUse.text.json",
		"codex":       "codex.PreToolUse.text.json",
		"gemini":      "gemini.BeforeTool.text.json",
		"opencode":    "opencode.tool.execute.before.text.json",
		"cursor":      "cursor.preToolUse.json",
		"copilot":     "copilot.preToolUse.json",
		"cline":       "cline.PreToolUse.json",
		"droid":       "droid.PreToolUse.json",
	}
	for _, c := range Clients {
		if !c.ownHooks() {
			continue
		}
		client := c.Hooks
		file, ok := files[client.Name()]
		if !ok {
			t.Errorf("%s: no pre-tool fixture to check DenyUnread against", client.Name())
			continue
		}
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
	in := `{"cmd":"ls"}`
	for _, c := range []struct {
		d    Decision
		want string
	}{
		{Decision{Allow: true}, `{"behavior":"allow","updatedInput":{"cmd":"ls"}}`},
		{Decision{Allow: true, Reason: "ok", UpdatedInput: `{"cmd":"pwd"}`}, `{"behavior":"allow","updatedInput":{"cmd":"pwd"}}`},
		{Decision{Reason: "not \"that\"\n"}, `{"behavior":"deny","message":"not \"that\"\n"}`},
		{Decision{}, `{"behavior":"deny","message":"denied by the supervisor"}`},
	} {
		if got := string(PermitReply(c.d, in)); got != c.want {
			t.Errorf("PermitReply(%+v) = %s, want %s", c.d, got, c.want)
		}
	}
}
