package approvals

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/interceptor-dev/interceptor/internal/hooks"
	"github.com/interceptor-dev/interceptor/internal/state"
	"github.com/interceptor-dev/interceptor/internal/token"
	"github.com/tidwall/gjson"
)

// TestStandInResolvesOnlyForItsServer: the page's "Allow with this input"
// (the store's Decide) with a stand-in the model planted in another
// server's call. The waiting call gets a token back only when its tool is
// a tool of the server that holds it; a tool of no such server, or of
// either of two, is denied, never sent with the stand-in's text or with
// another server's token.
func TestStandInResolvesOnlyForItsServer(t *testing.T) {
	q := newStore(t)
	st := state.New(q.StateDir)
	const wfTok, otherTok, adminTok = "wfTOKEN0123456789abcdefghij", "otherTOKEN0123456789abcdefg", "adminTOKEN0123456789abcdefg"
	for _, r := range []state.Record{
		{Server: "wf", Session: "S", Token: wfTok},
		{Server: "other", Session: "S", Token: otherTok},
		{Server: "wf__admin", Session: "T", Token: adminTok},
	} {
		if err := st.Put(r); err != nil {
			t.Fatal(err)
		}
	}
	wf, other := token.StandIn("session_token", wfTok), token.StandIn("session_token", otherTok)
	cases := []struct {
		name, client, tool, upd string
		owns                    func(string) bool
		allow                   bool
		want, why               string // the token the call runs with; a part of the deny reason
	}{
		{name: "a chat post", client: "codex", tool: "mcp__chat__post", upd: `{"text":"` + wf + `"}`,
			why: "mcp__chat__post is no tool of a server interceptor holds values for"},
		{name: "the nameless placeholder in a chat post", client: "claude-code", tool: "mcp__chat__post", upd: `{"text":"` + token.Placeholder + `"}`,
			why: "is no tool of a server"},
		{name: "the server's own tool", client: "codex", tool: "mcp__wf__next_step", upd: `{"session_token":"` + wf + `"}`,
			allow: true, want: wfTok},
		{name: "another server's token for wf's tool", client: "codex", tool: "mcp__wf__next_step", upd: `{"session_token":"` + other + `"}`,
			why: "holds no value with handle " + token.Handle(otherTok)},
		{name: "a name two servers could own", client: "codex", tool: "mcp__wf__admin__drop", upd: `{"session_token":"` + wf + `"}`,
			why: `could be a tool of server "wf" or of server "wf__admin"`},
		{name: "a client not known", client: "nosuch", tool: "mcp__wf__next_step", upd: `{"session_token":"` + wf + `"}`,
			why: "is no tool of a server"},
		{name: "the event names the server (Owns)", client: "claude-code", tool: "mcp__wf__next_step", upd: `{"session_token":"` + wf + `"}`,
			owns: func(s string) bool { return s == "other" }, why: "holds no value with handle " + token.Handle(wfTok)},
		{name: "new input without a stand-in", client: "codex", tool: "mcp__chat__post", upd: `{"text":"hello"}`, allow: true},
	}
	for _, c := range cases {
		call := Call{Client: c.client, Session: "S", Tool: c.tool, Input: `{"text":"x"}`, Origin: "test", Tokens: st, Owns: c.owns}
		done := make(chan hooks.Decision, 1)
		go func() { d, _ := q.Ask(context.Background(), Policy{Timeout: 10 * time.Second}, call); done <- d }()
		r := waitPending(t, q)
		if _, err := q.Decide(r.ID, hooks.Decision{Allow: true, UpdatedInput: c.upd, By: "inbox page"}); err != nil {
			t.Fatal(err)
		}
		d := <-done
		for _, tok := range []string{wfTok, otherTok, adminTok} {
			if tok != c.want && strings.Contains(d.UpdatedInput+d.Reason, tok) {
				t.Errorf("%s: the call carries %s: %+v", c.name, tok, d)
			}
		}
		switch {
		case d.Allow != c.allow:
			t.Errorf("%s: allow %t, want %t: %+v", c.name, d.Allow, c.allow, d)
		case !c.allow && (d.UpdatedInput != "" || !strings.Contains(d.Reason, c.why)):
			t.Errorf("%s: denied with %+v, want a reason naming %q", c.name, d, c.why)
		case c.want != "" && gjson.Get(d.UpdatedInput, "session_token").Str != c.want:
			t.Errorf("%s: runs with %s", c.name, d.UpdatedInput)
		case c.allow && c.want == "" && d.UpdatedInput != c.upd:
			t.Errorf("%s: runs with %s, want %s", c.name, d.UpdatedInput, c.upd)
		}
	}
}
