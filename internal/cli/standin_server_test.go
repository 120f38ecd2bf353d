package cli

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/interceptor-dev/interceptor/internal/approvals"
	"github.com/interceptor-dev/interceptor/internal/mcpserver"
	"github.com/interceptor-dev/interceptor/internal/state"
	"github.com/interceptor-dev/interceptor/internal/token"
	"github.com/tidwall/gjson"
)

// TestEditedInputNeverGivesAChatATokenCLI: the model planted a stand-in of
// wf's token in a chat post. A supervisor allows the post with new input
// that keeps the stand-in, by `approvals allow --updated-input` and by the
// MCP supervisor's respond: the post is denied with the reason, and neither
// the token nor the stand-in's text reaches the chat server. The same edit
// on wf's own tool gets the token.
func TestEditedInputNeverGivesAChatATokenCLI(t *testing.T) {
	const session = "be0b78df-7440-44cb-9e65-7b68cd544fe4"
	const tok = "eyJzaWQiOiJhIn0.0123456789abcdef"
	dir := filepath.Join(t.TempDir(), "state")
	if err := state.New(dir).Put(state.Record{Token: tok, Server: "wf", Session: session, Client: "claude-code"}); err != nil {
		t.Fatal(err)
	}
	standIn := token.StandIn("session_token", tok)
	wfCall := string(fixtureFile(t, "claude-code.PreToolUse.text.json"))
	chatCall := strings.NewReplacer(`"mcp__wf__next_step"`, `"mcp__chat__post"`, `"name": "wf"`, `"name": "chat"`,
		`"step": "one"`, `"text": "see `+standIn+`"`).Replace(wfCall)
	if !strings.Contains(chatCall, "mcp__chat__post") || !strings.Contains(chatCall, `"name": "chat"`) {
		t.Fatalf("the fixture changed: %s", chatCall)
	}
	upd := `{"text":"` + standIn + `"}`
	decide := map[string]func(id string){
		"approvals allow --updated-input": func(id string) {
			if out, code := cli(t, "approvals", "allow", id, "--state-dir", dir, "--updated-input", upd); code != 0 {
				t.Fatalf("allow: %s", out)
			}
		},
		"mcp respond": func(id string) {
			for _, tool := range mcpserver.SupervisorTools(approvals.New(dir), "") {
				if tool.Name == "respond" {
					args := `{"id":"` + id + `","allow":true,"updated_input":` + upd + `}`
					if res, err := tool.Call(context.Background(), gjson.Parse(args)); err != nil {
						t.Fatalf("respond: %v %s", err, res.Text)
					}
				}
			}
		},
	}
	for route, fn := range decide {
		wait := startApprove(t, dir, []byte(chatCall), "--timeout", "30s")
		fn(pendingIDs(t, dir, 1)[0])
		out, errs, _ := wait()
		if strings.Contains(out, tok) || strings.Contains(out, "updatedInput") {
			t.Errorf("%s: the chat post goes out with new input: %s", route, out)
		}
		if gjson.Get(out, "hookSpecificOutput.permissionDecision").Str != "deny" ||
			!strings.Contains(gjson.Get(out, "hookSpecificOutput.permissionDecisionReason").Str, "mcp__chat__post is no tool of a server interceptor holds values for") {
			t.Errorf("%s: want a deny naming the reason, got %s (stderr %s)", route, out, errs)
		}

		// wf's own tool, same edit: the token.
		wait = startApprove(t, dir, []byte(wfCall), "--timeout", "30s")
		fn(pendingIDs(t, dir, 1)[0])
		out, errs, _ = wait()
		if got := gjson.Get(out, "hookSpecificOutput.updatedInput.text").Str; got != tok {
			t.Errorf("%s: wf's tool runs with %q, want the token (stdout %s, stderr %s)", route, got, out, errs)
		}
	}
}
