package hooks

import (
	"errors"
	"testing"

	"github.com/tidwall/gjson"
)

// TestDecisionReplies pins every client's answer to a supervisor's decision
// on a real (Cursor: documented) pre-tool payload.
func TestDecisionReplies(t *testing.T) {
	upd := `{"step":"one","x":1}`
	cases := []struct {
		file                     string
		deny, allow, allowUpdate string // "" means print nothing
	}{
		{"claude-code.PreToolUse.text.json",
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no"}}`,
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}`,
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"step":"one","x":1}}}`},
		{"codex.PreToolUse.text.json",
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no"}}`,
			``,
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"step":"one","x":1}}}`},
		{"gemini.BeforeTool.text.json",
			`{"decision":"deny","reason":"no"}`,
			`{"decision":"allow"}`,
			`{"decision":"allow","hookSpecificOutput":{"hookEventName":"BeforeTool","tool_input":{"step":"one","x":1}}}`},
		{"opencode.tool.execute.before.text.json",
			`{"deny":"no"}`,
			``,
			`{"args":{"step":"one","x":1}}`},
		{"cursor.preToolUse.json",
			`{"permission":"deny","user_message":"no","agent_message":"no"}`,
			`{"permission":"allow"}`,
			`{"permission":"allow","updated_input":{"step":"one","x":1}}`},
		{"copilot.preToolUse.json",
			`{"permissionDecision":"deny","permissionDecisionReason":"no"}`,
			`{"permissionDecision":"allow"}`,
			`{"permissionDecision":"allow","modifiedArgs":{"step":"one","x":1}}`},
		{"cline.PreToolUse.json",
			`{"cancel":true,"errorMessage":"no"}`,
			``,
			`{"overrideInput":{"step":"one","x":1}}`},
		{"droid.PreToolUse.json",
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no"}}`,
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}`,
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"step":"one","x":1}}}`},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			ev, err := Parse(fixture(t, c.file), nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, k := range []struct {
				name string
				d    Decision
				want string
			}{
				{"deny", Decision{Reason: "no"}, c.deny},
				{"allow", Decision{Allow: true}, c.allow},
				{"allow+updatedInput", Decision{Allow: true, UpdatedInput: upd}, c.allowUpdate},
			} {
				got, err := ev.Client.DecisionReply(ev, k.d)
				if err != nil {
					t.Fatalf("%s: %v", k.name, err)
				}
				if string(got) != k.want {
					t.Errorf("%s:\n got %s\nwant %s", k.name, got, k.want)
				}
				if len(got) > 0 && !gjson.ValidBytes(got) {
					t.Errorf("%s: reply is not JSON: %s", k.name, got)
				}
			}
		})
	}
}

func TestDecisionReplyDetails(t *testing.T) {
	ev, err := Parse(fixture(t, "claude-code.PreToolUse.text.json"), nil)
	if err != nil {
		t.Fatal(err)
	}
	// A deny without a reason still tells the model why.
	got, _ := ev.Client.DecisionReply(ev, Decision{})
	if r := gjson.GetBytes(got, "hookSpecificOutput.permissionDecisionReason").Str; r != "denied by the supervisor" {
		t.Errorf("empty deny reason became %q", r)
	}
	// A reason with quotes and newlines is escaped, and new input is never
	// sent with a deny.
	got, _ = ev.Client.DecisionReply(ev, Decision{Reason: "a \"b\"\nc", UpdatedInput: `{"x":1}`})
	if !gjson.ValidBytes(got) || gjson.GetBytes(got, "hookSpecificOutput.permissionDecisionReason").Str != "a \"b\"\nc" ||
		gjson.GetBytes(got, "hookSpecificOutput.updatedInput").Exists() {
		t.Errorf("deny reply %s", got)
	}

	// Post-tool events cannot carry a decision, for any client.
	for _, f := range []string{"claude-code.PostToolUse.text.json", "codex.PostToolUse.text.json", "gemini.AfterTool.text.json",
		"opencode.tool.execute.after.text.json", "cursor.postToolUse.json", "copilot.postToolUse.json", "cline.PostToolUse.json",
		"droid.PostToolUse.json"} {
		ev, err := Parse(fixture(t, f), nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ev.Client.DecisionReply(ev, Decision{Reason: "no"}); !errors.Is(err, ErrCannotRewrite) {
			t.Errorf("%s: DecisionReply error %v, want ErrCannotRewrite", f, err)
		}
	}

	// Cursor's beforeMCPExecution can allow or deny, not change the input.
	cur, err := Parse([]byte(`{"conversation_id":"c","hook_event_name":"beforeMCPExecution","tool_name":"MCP:wf:next_step","tool_input":"{}"}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := cur.Client.DecisionReply(cur, Decision{Allow: true}); err != nil || string(got) != `{"permission":"allow"}` {
		t.Errorf("beforeMCPExecution allow: %s %v", got, err)
	}
	if _, err := cur.Client.DecisionReply(cur, Decision{Allow: true, UpdatedInput: `{}`}); !errors.Is(err, ErrCannotRewrite) {
		t.Errorf("beforeMCPExecution allow with input: %v, want ErrCannotRewrite", err)
	}
}
