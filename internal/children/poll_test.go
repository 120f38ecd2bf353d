package children

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/interceptor-dev/interceptor/internal/approvals"
	"github.com/interceptor-dev/interceptor/internal/rawjson"
	"github.com/interceptor-dev/interceptor/internal/state"
	"github.com/interceptor-dev/interceptor/internal/token"
	"github.com/tidwall/gjson"
)

// pollJSON is Poll as the poll tool and `children show` print it.
func pollJSON(ctx context.Context, s *Store, q *approvals.Store, r PollRequest) (string, error) {
	res, err := s.Poll(ctx, q, r)
	if err != nil {
		return "", err
	}
	b, err := rawjson.Marshal(res)
	return string(b), err
}

// Poll masks its typed result field by field, and its JSON is byte for
// byte what masking the whole JSON text gave (Viewer.JSON, how poll worked
// when it returned JSON text): held tokens in every piece, a token one
// event offers (a session_token line) masked in every other piece too,
// hidden characters as escapes, <, > and & kept.
func TestPollMasksAsItsWholeJSON(t *testing.T) {
	const (
		held    = "eyJzaWQiOiJzXzEyMyJ9.heldheldheld0123456789abcdef"
		offered = "offered-0123456789abcdef0123456789"
	)
	dir := filepath.Join(t.TempDir(), "state")
	if err := state.New(dir).Put(state.Record{Token: held, Server: "wf", Session: "child-client", Client: "codex", Updated: time.Now()}); err != nil {
		t.Fatal(err)
	}
	chat := &Chat{ID: "0123456789abcdef-1", N: 1, Child: Child{ID: "0123456789abcdef", Name: "w<&>" + held, Session: "child-client"}}
	now := time.Date(2026, 7, 28, 12, 0, 0, 123000000, time.UTC)
	evs := []Event{
		{Seq: 0, Time: now, Event: `{"type":"start","session":"s1","prompt":"go \u001b[2J\u202e` + held + `","raw":{"x":"` + held + `"}}`},
		{Seq: 1, Time: now, Event: `{"type":"tool_result","tool_use_id":"t1","content":"started\nsession_token: ` + offered + `","is_error":false}`},
		{Seq: 2, Time: now, Event: `{ "type" : "content", "text" : "bare ` + offered + ` and \u2028 \u2800 \"q\" <b>&amp;" }`},
		{Seq: 3, Time: now, Event: `{"type":"tool_use","id":"t2","name":"Bash","input":{"session_token":"typed-by-the-model","cmd":"{\"t\":\"` + held + `\"}"}}`},
	}
	pending := []approvals.Request{
		{ID: "aaaaaaaaaaaaaaaa", Tool: "mcp__wf__x\u001b]0;" + offered, ToolUseID: "toolu_" + held, Input: `{"session_token": "` + held + `", "n": [1, 2]}`, Created: now},
		{ID: "bbbbbbbbbbbbbbbb", Tool: "request_access", Input: `not json`, Created: now, Kind: approvals.KindInput, Mode: approvals.ModePark},
	}
	res := pollResult(chat, AwaitingPermission, evs, pending, 0, 6)
	type plain PollResult // encoded as poll encoded it before masking
	before, err := rawjson.Marshal(plain(res))
	if err != nil {
		t.Fatal(err)
	}
	v := NewViewer(dir, "child-client")
	want := v.JSON(string(before))
	v.poll(&res)
	got, err := rawjson.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Fatalf("poll's JSON:\n%s\nmasking the whole JSON gives:\n%s", got, want)
	}
	for _, leak := range []string{held, offered, "typed-by-the-model", "\u202e", "\u001b", "\u2028"} {
		if strings.Contains(string(got), leak) {
			t.Errorf("poll's JSON shows %q: %s", leak, got)
		}
	}
	// The typed fields a CLI reads are masked too.
	if a := res.PendingApprovals[0]; strings.Contains(a.ToolName, offered) || strings.Contains(a.ToolUseID, held) ||
		!strings.Contains(a.ToolName, token.StandIn(TokenKey, offered)) || strings.Contains(res.Child, held) {
		t.Errorf("typed fields: child %q, approval %+v", res.Child, a)
	}
	if res.ReadPosition != 4 || !res.HasMore || res.Status != AwaitingPermission || len(res.Events) != 4 {
		t.Errorf("poll result %+v", res)
	}
}

// Viewer.Text is what masking a JSON string holding the text gave (the
// inbox wrapped a prompt in JSON to mask it).
func TestViewerText(t *testing.T) {
	const held = "heldheld-0123456789abcdef0123"
	dir := filepath.Join(t.TempDir(), "state")
	if err := state.New(dir).Put(state.Record{Token: held, Server: "wf", Session: "s", Updated: time.Now()}); err != nil {
		t.Fatal(err)
	}
	v := NewViewer(dir, "s")
	for _, text := range []string{
		"plain",
		"uses " + held + " twice: " + held,
		"session_token: unheld-0123456789abcdef012345\nagain unheld-0123456789abcdef012345",
		`{"session_token":"` + held + `","x":"\u0041"}`,
		"\u202e\x1b[0m bytes \xff\xfe",
	} {
		raw := string(rawjson.AppendString([]byte(`{"t":`), text)) + "}"
		want := gjson.Get(v.JSON(raw), "t").Str
		if got := v.Text(text); got != want {
			t.Errorf("Text(%q) = %q, masking it as JSON gives %q", text, got, want)
		}
	}
}
