package verify

import (
	"context"
	"strings"
	"testing"

	"github.com/interceptor-dev/interceptor/e2e/fakemodel"
	"github.com/interceptor-dev/interceptor/e2e/internal/wfserver"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// playNested plays fakemodel.NestedScript against an awkward wf server as
// a client with hooks would: a wf call without session_token (other than
// start_session) gets the newest token seen in a result's _meta. tamper may
// change a call's arguments first (turn = tool results so far).
func playNested(w *world, tamper func(turn int, args map[string]any, held []string)) {
	wf := w.serverWith(wfserver.Config{Role: wfserver.RoleWF, Awkward: true})
	other := w.server(wfserver.RoleOther)
	var tools []fakemodel.Tool
	for _, name := range []string{"start_session", "next_step", "get_status", "save_checkpoint", "resume_checkpoint"} {
		tools = append(tools, fakemodel.Tool{Name: "mcp__wf__" + name})
	}
	tools = append(tools, fakemodel.Tool{Name: "mcp__other__echo"})
	script := fakemodel.NestedScript{WFServer: "wf", OtherServer: "other", EchoText: "hi"}
	var conv fakemodel.Conversation
	var held []string // newest first
	for turn := 0; ; turn++ {
		act, main := script.Plan(conv, tools)
		if !main || !act.IsTool() {
			if turn != fakemodel.NestedToolCalls {
				w.t.Fatalf("the script ended after %d tool calls (%s), want %d", turn, act, fakemodel.NestedToolCalls)
			}
			return
		}
		server, tool, _ := strings.Cut(strings.TrimPrefix(act.Tool.Name, "mcp__"), "__")
		cs := other
		if server == "wf" {
			cs = wf
			if _, has := act.Args["session_token"]; !has && tool != "start_session" && len(held) > 0 {
				act.Args["session_token"] = held[0]
			}
		}
		if tamper != nil {
			tamper(turn, act.Args, held)
		}
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: act.Args})
		if err != nil {
			w.t.Fatal(err)
		}
		var text strings.Builder
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				text.WriteString(tc.Text)
			}
		}
		conv.Results = append(conv.Results, text.String())
		if tok, _ := res.Meta["session_token"].(string); tok != "" && (len(held) == 0 || held[0] != tok) {
			held = append([]string{tok}, held...)
		}
	}
}

func TestNestedPass(t *testing.T) {
	w := newWorld(t)
	playNested(w, nil)
	if probs := Nested(w.records(), 1); len(probs) > 0 {
		t.Errorf("honest play reported:\n%s", strings.Join(probs, "\n"))
	}
}

// Each way the hooks or the proxy can fail issue 11's flow is reported.
func TestNestedFailures(t *testing.T) {
	for _, tc := range []struct {
		name   string
		tamper func(turn int, args map[string]any, held []string)
		want   string
	}{
		{"stand-in forwarded as the parent", func(turn int, args map[string]any, _ []string) {
			if turn == 3 {
				args["parent_session_token"] = "[session_token 1a2b3c4d held by interceptor]"
			}
		}, "parent_session_token did not carry the orchestrator's latest token"},
		{"orchestrator given the latest (the child's) token", func(turn int, args map[string]any, held []string) {
			if turn == 5 {
				args["session_token"] = held[0]
			}
		}, "orchestrator session"},
		{"word captured from the prose", func(turn int, args map[string]any, _ []string) {
			if turn == 6 {
				args["session_token"] = "The"
			}
		}, "get_status({\"session_token\":\"The\"}) -> malformed_token"},
		{"no token with checkpoint_handle", func(turn int, args map[string]any, _ []string) {
			if turn == 8 {
				delete(args, "session_token")
			}
		}, "keep-if"},
		{"stand-in forwarded as the resume token", func(turn int, args map[string]any, _ []string) {
			if turn == 9 {
				args["resume_token"] = "[session_token 1a2b3c4d held by interceptor]"
			}
		}, "resume accepted 0 time(s)"},
		{"token to the other server", func(turn int, args map[string]any, held []string) {
			if turn == 2 {
				args["session_token"] = held[0]
			}
		}, "a token went to another server's tool"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t)
			playNested(w, tc.tamper)
			probs := strings.Join(Nested(w.records(), 1), "\n")
			if !strings.Contains(probs, tc.want) {
				t.Errorf("want a problem mentioning %q, got:\n%s", tc.want, probs)
			}
		})
	}
}

// The script hands back what the model read: a stand-in where the result
// was redacted, the value of the real (last, unindented) line, never the
// prose, code or quoted text before it.
func TestNestedScriptReads(t *testing.T) {
	standIn := "[session_token 1a2b3c4d held by interceptor]"
	step := strings.Join([]string{"Step accepted.", wfserver.ProseLine, wfserver.CodeLine, wfserver.QuoteLine, "", "session_token: " + standIn}, "\n")
	tools := []fakemodel.Tool{{Namespace: "mcp__wf_server", Name: "start_session"}, {Namespace: "mcp__wf_server", Name: "next_step"},
		{Namespace: "mcp__wf_server", Name: "get_status"}, {Namespace: "mcp__wf_server", Name: "save_checkpoint"},
		{Namespace: "mcp__wf_server", Name: "resume_checkpoint"}, {Namespace: "mcp__other", Name: "echo"}}
	s := fakemodel.NestedScript{WFServer: "wf-server", OtherServer: "other"}
	conv := fakemodel.Conversation{Results: []string{"started", step, "echo"}}
	act, _ := s.Plan(conv, tools)
	if act.Tool.String() != "mcp__wf_server/start_session" || act.Args["parent_session_token"] != standIn {
		t.Errorf("turn 3: %s", act)
	}
	conv.Results = append(conv.Results, "child", "child step")
	if act, _ = s.Plan(conv, tools); act.Args["session_token"] != standIn {
		t.Errorf("turn 5: %s", act)
	}
	conv.Results = append(conv.Results, "two", "status", `{"checkpoint_handle": "ckpt_0a1b2c", "session_token": "x"}`)
	if act, _ = s.Plan(conv, tools); act.Tool.Name != "resume_checkpoint" || act.Args["checkpoint_handle"] != "ckpt_0a1b2c" {
		t.Errorf("turn 8: %s", act)
	}
	conv.Results[1] = "no token line here\n  session_token: indented"
	if act, _ = s.Plan(fakemodel.Conversation{Results: conv.Results[:3:3]}, tools); act.Args["parent_session_token"] != fakemodel.MissingValue {
		t.Errorf("turn 3 without a real line: %s", act)
	}
}
