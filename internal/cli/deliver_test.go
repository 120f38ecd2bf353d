package cli

import (
	"strings"
	"testing"

	"github.com/interceptor-dev/interceptor/internal/approvals"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// TestDeliverOpenCode: the plugin shim's two deliver calls. After the human
// server's tool (tool.execute.after, as OpenCode 1.18.33 passes an MCP
// result) deliver binds the parked request to the session; at the next
// user message (chat.message) it replies with the part the shim adds, once.
func TestDeliverOpenCode(t *testing.T) {
	dir, decl := humanToolsState(t, humanToolsDecl, "")
	rs := mcpSession(t, dir, decl,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"request_access","arguments":{"what":"prod"}}}`)
	id, parked := questionID(t, rs[0]), rs[0].Get("result.content.0.text").Str
	const session = "ses_df31bc0a5ffexnpCA0x6VbF3ON"
	post, _ := sjson.Set(`{"input":{"tool":"human_request_access","sessionID":"`+session+`","callID":"call_1","args":{"what":"prod"}},"output":{"content":[{"type":"text","text":""}],"isError":false}}`,
		"output.content.0.text", parked)
	if out, errs := hookRun(t, dir, post, "deliver", "--client", "opencode"); out != "" || errs != "" {
		t.Fatalf("post-tool deliver printed %q %q", out, errs)
	}
	if r, err := approvals.New(dir).Get(id); err != nil || r.Session != session {
		t.Fatalf("not bound to the session: %+v %v", r, err)
	}
	if out, code := cli(t, "approvals", "answer", id, "granted", "--state-dir", dir); code != 0 {
		t.Fatalf("answer: %d %s", code, out)
	}
	other := `{"hook":"chat.message","input":{"sessionID":"ses_other"}}`
	if out, _ := hookRun(t, dir, other, "deliver", "--client", "opencode"); out != "" {
		t.Fatalf("another session got %q", out)
	}
	prompt := `{"hook":"chat.message","input":{"sessionID":"` + session + `","agent":"build","model":{"providerID":"e2e","modelID":"e2e-model"}}}`
	out, errs := hookRun(t, dir, prompt, "deliver", "--client", "opencode")
	parts := gjson.Get(out, "parts").Array()
	if errs != "" || len(parts) != 1 || parts[0].Get("type").Str != "text" || !parts[0].Get("synthetic").Bool() ||
		!strings.Contains(parts[0].Get("text").Str, "granted") || !strings.Contains(parts[0].Get("text").Str, id) {
		t.Fatalf("deliver: %q %q", out, errs)
	}
	if again, _ := hookRun(t, dir, prompt, "deliver", "--client", "opencode"); again != "" {
		t.Fatalf("second deliver: %q", again)
	}
	if r, _ := approvals.New(dir).Get(id); r.Status != approvals.Delivered || !strings.Contains(r.DeliveredTo, "opencode prompt hook") {
		t.Fatalf("record: %+v", r)
	}
}
