package approvals

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/interceptor-dev/interceptor/internal/rawjson"
	"github.com/interceptor-dev/interceptor/internal/state"
	"github.com/interceptor-dev/interceptor/internal/token"
	"github.com/tidwall/gjson"
)

// TestLoadSecrets: the session's tokens on every server, newest first, and
// no other session's (a stand-in must not fetch another session's token).
func TestLoadSecrets(t *testing.T) {
	st := state.New(filepath.Join(t.TempDir(), "state"))
	put := func(server, session, tok string) {
		t.Helper()
		if err := st.Put(state.Record{Token: tok, Server: server, Session: session}); err != nil {
			t.Fatal(err)
		}
	}
	put("wf", "A", "wf-A-one-0123456789abcdef")
	put("wf", "A", "wf-A-two-0123456789abcdef")
	put("other", "A", "other-A-0123456789abcdef")
	put("wf", "B", "wf-B-0123456789abcdef")

	s := LoadSecrets(st, "A", "")
	if s.Key != DefaultKey {
		t.Errorf("key %q", s.Key)
	}
	want := token.Held{"other-A-0123456789abcdef", "wf-A-two-0123456789abcdef", "wf-A-one-0123456789abcdef"}
	if !slices.Equal(s.Held, want) {
		t.Errorf("held for A: %q, want %q", s.Held, want)
	}
	// Others are masked, never resolved: the servers' current tokens.
	if !slices.Equal(s.Others, token.Held{"wf-B-0123456789abcdef"}) {
		t.Errorf("others for A: %q", s.Others)
	}
	none := LoadSecrets(st, "", "tok")
	if got := none.Held; !slices.Contains(got, "wf-B-0123456789abcdef") || slices.Contains(got, "wf-A-one-0123456789abcdef") {
		t.Errorf("no session: %q, want the servers' current tokens", got)
	}
	// With no session known, every held token is masked.
	for _, tok := range []string{"wf-A-one-0123456789abcdef", "wf-A-two-0123456789abcdef"} {
		if !slices.Contains(none.Others, tok) {
			t.Errorf("no session: others %q lack %s", none.Others, tok)
		}
	}
	if got := LoadSecrets(nil, "A", "k"); got.Key != "k" || len(got.Held) != 0 {
		t.Errorf("no store: %+v", got)
	}
}

// MaskText masks one string (a tool's name in a notification) as Mask
// masks it as a JSON value: Held and Others, in its own JSON too.
func TestSecretsMaskText(t *testing.T) {
	s := Secrets{Key: DefaultKey, Held: token.Held{"held-0123456789abcdef0123"}, Others: token.Held{"other-0123456789abcdef0123"}}
	for _, in := range []string{
		"mcp__wf__x held-0123456789abcdef0123\x1b",
		`{"t":"\u006fther-0123456789abcdef0123"}`,
		"plain",
	} {
		raw := string(rawjson.AppendString([]byte(`{"tool":`), in)) + "}"
		if got, want := s.MaskText(in), gjson.Get(s.Mask(raw), "tool").Str; got != want || strings.Contains(got, "0123456789abcdef0123") {
			t.Errorf("MaskText(%q) = %q, Mask gives %q", in, got, want)
		}
	}
}

// TestViewerMasksEveryString: the model names the tool, so a held token can
// stand in a tool name as well as in the input; an older record may hold
// one in any string. The Viewer shows a stand-in in each, and Ask queues
// the tool name, origin, chat and tool use id masked already.
func TestViewerMasksEveryString(t *testing.T) {
	q := newStore(t)
	st := state.New(q.StateDir)
	const tok = "HELDtok0123456789abcdefghijkl"
	if err := st.Put(state.Record{Server: "wf", Session: "S", Token: tok}); err != nil {
		t.Fatal(err)
	}
	standIn := token.StandIn("session_token", tok)
	r := Request{ID: "r1", Session: "S", Client: "codex" + tok, Tool: "mcp__wf__" + tok, Input: `{"a":"` + tok + `"}`,
		Origin: "approve hook " + tok, Chat: "chat-" + tok, ToolUseID: "toolu_" + tok, Reason: "because " + tok,
		UpdatedInput: `{"b":"` + tok + `"}`, Answer: tok, DecidedBy: "cli " + tok, DeliveredTo: "hook " + tok,
		InputSchema: `{"description":"` + tok + `"}`}
	got := q.Viewer().Request(r)
	v := reflect.ValueOf(got)
	for i := range v.NumField() {
		if f := v.Field(i); f.Kind() == reflect.String && strings.Contains(f.String(), tok) {
			t.Errorf("the view's %s shows the token: %q", v.Type().Field(i).Name, f.String())
		}
	}
	if got.Tool != "mcp__wf__"+standIn {
		t.Errorf("tool %q, want the stand-in in its place", got.Tool)
	}

	// Queued: the record on disk holds no token in the tool's name either.
	call := Call{Client: "codex", Session: "S", Tool: "mcp__wf__" + tok, Input: `{}`, Origin: "hook " + tok,
		Chat: "c" + tok, ToolUseID: "u" + tok, Tokens: st}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { q.Ask(ctx, Policy{Timeout: time.Minute}, call); close(done) }()
	p := waitPending(t, q)
	cancel()
	<-done
	raw, err := os.ReadFile(filepath.Join(q.StateDir, "approvals", "history", p.ID+".json"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), tok) || !strings.Contains(p.Tool, standIn) {
		t.Errorf("queued with the token: tool %q, record %s", p.Tool, raw)
	}
}
