package hooks

import (
	"errors"
	"strings"
	"testing"

	"github.com/interceptor-dev/interceptor/internal/token"
	"github.com/tidwall/pretty"
)

// droidPayload is a real Droid payload with its ToolSearch call turned into
// a call of toolName.
func droidPayload(t *testing.T, file, toolName string) string {
	t.Helper()
	return strings.Replace(string(fixture(t, file)), `"tool_name": "ToolSearch"`, `"tool_name": "`+toolName+`"`, 1)
}

func TestDroidServerTools(t *testing.T) {
	ev, err := Parse([]byte(droidPayload(t, "droid.PreToolUse.json", "wf___next_step")), nil)
	if err != nil {
		t.Fatal(err)
	}
	if ev.Client.Name() != "droid" {
		t.Fatalf("detected as %s", ev.Client.Name())
	}
	checkTools(t, ev, []toolCase{
		{"wf___next_step", "wf", "next_step", true},
		{"wf__next_step", "wf", "", false},
		{"wf___next_step", "wf2", "", false},
		{"mcp__wf__next_step", "wf", "", false},
	})

	// tool_response is the text the model reads, as one string.
	const tok = "eyJzaWQiOiJ4In0.0123456789abcdef"
	post := strings.Replace(droidPayload(t, "droid.PostToolUse.json", "wf___start_session"),
		`"Loaded 2 tool(s): wf___start_session, wf___next_step"`, `"started\nsession_token: `+tok+`\n"`, 1)
	ev, err = Parse([]byte(post), nil)
	if err != nil {
		t.Fatal(err)
	}
	got, src, err := token.Choose(ev.Result(), token.Rules{Key: "session_token"})
	if err != nil || got != tok || src != token.FromText {
		t.Errorf("token %q from %s (%v)", got, src, err)
	}
	if _, err := ev.Client.RedactReply(ev, []token.Named{{Name: "session_token", Held: token.Held{tok}}}); !errors.Is(err, ErrCannotRewrite) {
		t.Errorf("RedactReply = %v, want ErrCannotRewrite", err)
	}
}

func TestDroidIsNotClaudeCode(t *testing.T) {
	// Without Droid's transcript path the same payload reads as Claude
	// Code's; --client droid reads it as Droid's.
	payload := strings.Replace(droidPayload(t, "droid.PreToolUse.json", "wf___next_step"), "/.factory/", "/.claude/", 1)
	ev, err := Parse([]byte(payload), nil)
	if err != nil || ev.Client.Name() != "claude-code" {
		t.Fatalf("detected as %v (%v)", ev, err)
	}
	ev, err = Parse([]byte(payload), Droid{})
	if err != nil {
		t.Fatal(err)
	}
	if tool, ok := ev.Client.Tool(ev, "wf"); !ok || tool != "next_step" {
		t.Errorf("Tool = %q %v", tool, ok)
	}
	args, _ := token.Inject(ev.Input.Raw, "session_token", "T")
	reply, _ := ev.Client.InputReply(ev, args)
	want := `{"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":{"query":"select:wf___start_session,wf___next_step","session_token":"T"}}}`
	if string(pretty.Ugly(reply)) != want {
		t.Errorf("reply %s", reply)
	}
}
