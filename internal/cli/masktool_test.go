package cli

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/interceptor-dev/interceptor/internal/approvals"
	"github.com/interceptor-dev/interceptor/internal/mcpserver"
	"github.com/interceptor-dev/interceptor/internal/state"
	"github.com/interceptor-dev/interceptor/internal/token"
	"github.com/tidwall/gjson"
)

// TestToolNameShowsAStandIn: a held token in a request's tool name (a model
// that read the token names a tool after it, or a record of an earlier
// version) shows as its stand-in in `approvals list`, `list --json`, `show`
// and the MCP supervisor's pending, as it does in the input.
func TestToolNameShowsAStandIn(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	const tok = "HELDtok0123456789abcdefghijkl"
	if err := state.New(dir).Put(state.Record{Server: "wf", Session: "S", Token: tok}); err != nil {
		t.Fatal(err)
	}
	r, err := approvals.New(dir).Enqueue(approvals.Request{Client: "codex", Session: "S", Tool: "mcp__wf__" + tok,
		Origin: "approve hook " + tok, Input: `{}`, Deadline: time.Now().Add(time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	views := map[string]string{}
	for _, args := range [][]string{{"list"}, {"list", "--json"}, {"show", r.ID}} {
		views["approvals "+strings.Join(args, " ")], _ = cli(t, append(append([]string{"approvals"}, args...), "--state-dir", dir)...)
	}
	for _, tool := range mcpserver.SupervisorTools(approvals.New(dir), "") {
		if tool.Name == "pending" {
			res, err := tool.Call(context.Background(), gjson.Parse(`{}`))
			if err != nil {
				t.Fatal(err)
			}
			views["mcp pending"] = res.Text
		}
	}
	standIn := token.StandIn("session_token", tok)
	for name, v := range views {
		if strings.Contains(v, tok) || !strings.Contains(v, standIn) {
			t.Errorf("%s shows the token, or no stand-in:\n%s", name, v)
		}
	}
}
