package hooks

import (
	"bytes"
	"testing"

	"github.com/interceptor-dev/interceptor/internal/token"
	"github.com/tidwall/gjson"
)

// The agent CLI's payloads as its sources and threads show them (written,
// not observed: testdata/documented/README.md), with and without the
// byte-order marks Cursor writes on Windows.
func TestCursorCLIPayloads(t *testing.T) {
	for _, marks := range []int{0, 1, 2} {
		bom := bytes.Repeat([]byte("\xef\xbb\xbf"), marks)
		pre, err := Parse(append(bom, fixture(t, "cursor.cli.preToolUse.json")...), nil)
		if err != nil {
			t.Fatalf("%d marks: %v", marks, err)
		}
		if pre.Client.Name() != "cursor" || pre.Phase != PhasePreTool || pre.Session != "7d0c5a4e-2b1f-4c1e-9d55-0a4b7e3c9f10" {
			t.Fatalf("pre: %s %s %q", pre.Client.Name(), pre.Phase, pre.Session)
		}
		// MCP:<tool> names no server: never guessed.
		if tool, ok := pre.Client.Tool(pre, "wf"); ok {
			t.Errorf("MCP:next_step taken as wf's %q", tool)
		}
		post, err := Parse(append(bom, fixture(t, "cursor.cli.postToolUse.json")...), Cursor{})
		if err != nil {
			t.Fatal(err)
		}
		if tool, ok := post.Client.Tool(post, "wf"); !ok || tool != "start_session" {
			t.Fatalf("post Tool(wf) = %q, %v", tool, ok)
		}
		tok, _, err := token.Choose(post.Result(), token.Rules{Key: "session_token", MinLen: 4})
		if err != nil || tok != "tok-cursor-cli-1" {
			t.Fatalf("token %q, %v", tok, err)
		}
		// updated_mcp_tool_output is honoured for MCP tools as
		// {content:[{type:"text",text}]}.
		red, err := post.Client.RedactReply(post, []token.Named{{Name: "session_token", Held: token.Held{tok}}})
		if err != nil {
			t.Fatal(err)
		}
		text := gjson.GetBytes(red, "updated_mcp_tool_output.content.0.text").Str
		if text == "" || bytes.Contains(red, []byte(tok)) {
			t.Errorf("redacted reply %s", red)
		}
	}
}
