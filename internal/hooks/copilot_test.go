package hooks

import (
	"errors"
	"strings"
	"testing"

	"github.com/interceptor-dev/interceptor/internal/token"
	"github.com/tidwall/gjson"
)

func TestCopilotRedactReply(t *testing.T) {
	stand := token.StandIn("session_token", copilotTok)
	reply := redact(t, string(fixture(t, "copilot.postToolUse.json")), copilotTok)
	text := gjson.Get(reply, "modifiedResult.textResultForLlm").Str
	if strings.Contains(reply, copilotTok) || strings.Count(text, stand) != 2 {
		t.Fatalf("reply %s", reply)
	}
	if gjson.Get(reply, "modifiedResult.resultType").Str != "success" {
		t.Errorf("resultType lost: %s", reply)
	}
	// The rest of the text is kept byte for byte.
	orig := gjson.GetBytes(fixture(t, "copilot.postToolUse.json"), "toolResult.textResultForLlm").Str
	if strings.ReplaceAll(orig, copilotTok, stand) != text {
		t.Errorf("text changed beyond the token:\n%s", text)
	}
}

func TestCopilotEvents(t *testing.T) {
	// toolArgs as a JSON string, as older Copilot versions send it.
	ev, err := Parse([]byte(`{"sessionId":"s","timestamp":1,"cwd":"/","toolName":"wf-next_step","toolArgs":"{\"step\":\"one\"}"}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if ev.Client.Name() != "copilot" || ev.Phase != PhasePreTool || ev.Input.Get("step").Str != "one" {
		t.Fatalf("got %s %s input %s", ev.Client.Name(), ev.Phase, ev.Input.Raw)
	}
	checkTools(t, ev, []toolCase{
		{"wf-next_step", "wf", "next_step", true},
		{"wf2-next_step", "wf", "", false},
		{"wf-server-next_step", "wf-server", "next_step", true},
		{"bash", "wf", "", false},
		{"wf-", "wf", "", false},
	})
	// A failed result keeps its resultType when redacted.
	failed := strings.Replace(string(fixture(t, "copilot.postToolUse.json")), `"resultType": "success"`, `"resultType": "failure"`, 1)
	if r := redact(t, failed, copilotTok); gjson.Get(r, "modifiedResult.resultType").Str != "failure" {
		t.Errorf("reply %s", r)
	}
	// Nothing to hide: no reply.
	ev, err = Parse(fixture(t, "copilot.postToolUse.json"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if r, err := ev.Client.RedactReply(ev, []token.Named{{Name: "session_token", Held: token.Held{"some-other-token-123456"}}}); r != nil || err != nil {
		t.Errorf("RedactReply = %s, %v; want nothing", r, err)
	}
}

func TestCopilotSnakeCase(t *testing.T) {
	// The snake_case payload is Claude Code's shape: it must be read as
	// Copilot's (timestamp, tool_result), and no result rewrite is offered.
	ev, err := Parse(fixture(t, "copilot.PostToolUse.json"), nil)
	if err != nil || ev.Client.Name() != "copilot" {
		t.Fatalf("detected as %v (%v)", ev, err)
	}
	if _, err := ev.Client.RedactReply(ev, []token.Named{{Name: "session_token", Held: token.Held{copilotSnakeTok}}}); !errors.Is(err, ErrCannotRewrite) {
		t.Errorf("RedactReply = %v, want ErrCannotRewrite", err)
	}
	pre, err := Parse(fixture(t, "copilot.PreToolUse.json"), nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := pre.Client.DecisionReply(pre, Decision{Reason: "no"})
	if err != nil || string(got) != `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no"}}` {
		t.Errorf("deny = %s, %v", got, err)
	}
}
