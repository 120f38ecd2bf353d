package hooks

import (
	"strings"
	"testing"

	"github.com/interceptor-dev/interceptor/internal/token"
	"github.com/tidwall/gjson"
)

// TestRedactReplyResources: --redact leaves no held token, current or older,
// in embedded resources and resource links either (issue 12.5: the proxy
// handled resource.text, hooks did not).
func TestRedactReplyResources(t *testing.T) {
	const (
		cur = "eyJzaWQiOiJyIiwic2VxIjoyfQ.ab/cd+ef0123456789abcdef01"
		old = "eyJzaWQiOiJyIiwic2VxIjoxfQ.0123456789abcdef0123456789"
	)
	held := token.Held{cur, old}
	blocks := `[{"type":"text","text":"resumed from ` + old + `"},` +
		`{"type":"resource","resource":{"uri":"wf://session/eyJzaWQiOiJyIiwic2VxIjoyfQ.ab\/cd+ef0123456789abcdef01","text":"session_token: ` + cur + `"}},` +
		`{"type":"resource_link","uri":"https://wf.example/s?t=eyJzaWQiOiJyIiwic2VxIjoyfQ.ab%2Fcd%2Bef0123456789abcdef01","name":"session"}]`
	payloads := map[string]string{
		"claude-code": `{"session_id":"s","hook_event_name":"PostToolUse","tool_name":"mcp__wf__next_step","tool_input":{},"tool_response":` + blocks + `,"mcp_server":{"name":"wf"}}`,
		"opencode":    `{"input":{"tool":"wf_next_step","sessionID":"s","callID":"c","args":{}},"output":{"_meta":{"session_token":"` + cur + `"},"content":` + blocks + `}}`,
		"cursor":      `{"conversation_id":"s","hook_event_name":"postToolUse","cursor_version":"1","tool_name":"MCP:wf:next_step","tool_input":{},"tool_output":{"content":` + blocks + `}}`,
	}
	for client, payload := range payloads {
		t.Run(client, func(t *testing.T) {
			if !gjson.Valid(payload) {
				t.Fatalf("test payload is not JSON")
			}
			a, _ := Lookup(client)
			ev, err := Parse([]byte(payload), a)
			if err != nil {
				t.Fatal(err)
			}
			reply, err := ev.Client.RedactReply(ev, []token.Named{{Name: "session_token", Held: held}})
			if err != nil || !gjson.ValidBytes(reply) {
				t.Fatalf("RedactReply = %s, %v", reply, err)
			}
			for _, leak := range []string{cur, old, `ab\/cd+ef`, "ab%2Fcd%2Bef"} {
				if strings.Contains(string(reply), leak) {
					t.Errorf("%q reaches the model: %s", leak, reply)
				}
			}
			for _, tok := range held {
				if !strings.Contains(string(reply), token.Handle(tok)) {
					t.Errorf("no stand-in names %s…: %s", tok[:12], reply)
				}
			}
			if !strings.Contains(string(reply), `"name":"session"`) {
				t.Errorf("other fields changed: %s", reply)
			}
		})
	}
}
