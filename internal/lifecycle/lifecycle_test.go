package lifecycle

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/interceptor-dev/interceptor/internal/carry"
	"github.com/interceptor-dev/interceptor/internal/hooks"
	"github.com/interceptor-dev/interceptor/internal/state"
	"github.com/interceptor-dev/interceptor/internal/token"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

func event(t *testing.T, payload string) *hooks.Event {
	t.Helper()
	ev, err := hooks.Parse([]byte(payload), nil)
	if err != nil {
		t.Fatalf("parse %s: %v", payload, err)
	}
	return ev
}

// pre and post are Claude Code events of session S for wf's tool.
func pre(session, tool, input string) string {
	p, _ := sjson.SetRaw(`{"hook_event_name":"PreToolUse"}`, "tool_input", input)
	p, _ = sjson.Set(p, "session_id", session)
	p, _ = sjson.Set(p, "tool_name", "mcp__wf__"+tool)
	return p
}

func post(session, tool, text string) string {
	p, _ := sjson.Set(`{"hook_event_name":"PostToolUse","tool_input":{}}`, "session_id", session)
	p, _ = sjson.Set(p, "tool_name", "mcp__wf__"+tool)
	p, _ = sjson.Set(p, "tool_response.0.type", "text")
	p, _ = sjson.Set(p, "tool_response.0.text", text)
	return p
}

func indexOptions() carry.Options {
	// What `--arg session_index` alone means: --meta-key too, start_session
	// starts (the flag's default) and is skipped.
	return carry.Options{Servers: []string{"wf"}, Arg: "session_index", MetaKey: "session_index",
		SkipTools: []string{"start_session"}, StartTools: []string{"start_session"}}
}

func injected(t *testing.T, st *state.Store, o carry.Options, session, tool string) (string, Outcome) {
	t.Helper()
	out, err := Inject(event(t, pre(session, tool, `{"activity_id":"a"}`)), st, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Reply) == 0 {
		return "", out
	}
	return gjson.GetBytes(out.Reply, "hookSpecificOutput.updatedInput.session_index").Str, out
}

// The workflow-server regression (issue 20): a 6-character base32 index
// without a digit is carried, and when a restart returns no index, the
// previous session's index is never injected.
func TestSessionIndexNeverStale(t *testing.T) {
	st := state.New(filepath.Join(t.TempDir(), "state"))
	o := indexOptions()
	cap := func(tool, text string) Outcome {
		t.Helper()
		out, err := Capture(event(t, post("S", tool, text)), st, o)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	if out := cap("start_session", `{"session_index":"ABCDEF","workflow":"w"}`); out.Warning != "" {
		t.Fatalf("capture warned: %s", out.Warning)
	}
	if got, _ := injected(t, st, o, "S", "next_activity"); got != "ABCDEF" {
		t.Fatalf("injected %q, want the digitless index", got)
	}
	// A later result's prose line with the same index changes nothing.
	cap("get_activity", "Activity a.\nsession_index: ABCDEF\n")
	// A restart whose result carries no index retires the old one.
	out := cap("start_session", "Error: workspace is locked")
	if !strings.Contains(out.Warning, "start_session returned no session_index; the one held before is no longer injected") {
		t.Fatalf("warning = %q", out.Warning)
	}
	got, iout := injected(t, st, o, "S", "next_activity")
	if got != "" || !strings.Contains(iout.Warning, "no session_index injected") {
		t.Fatalf("after a failed restart: injected %q, warning %q", got, iout.Warning)
	}
	// The next successful start is carried again.
	cap("start_session", `{"session_index":"QRSTUV"}`)
	if got, _ := injected(t, st, o, "S", "next_activity"); got != "QRSTUV" {
		t.Fatalf("after a new start: %q", got)
	}
}

func TestSessionlessIsOptIn(t *testing.T) {
	st := state.New(filepath.Join(t.TempDir(), "state"))
	o := indexOptions()
	if _, err := Capture(event(t, post("A", "start_session", `{"session_index":"AAAAAA"}`)), st, o); err != nil {
		t.Fatal(err)
	}
	// Claude Code always sends a session id; a payload without one (here:
	// an empty one) gets nothing, not session A's index.
	got, out := injected(t, st, o, "", "next_activity")
	if got != "" || !strings.Contains(out.Warning, "without a session id") {
		t.Fatalf("sessionless: injected %q, warning %q", got, out.Warning)
	}
	if _, err := os.Stat(filepath.Join(st.Dir, "tokens", "wf", "current.json")); !os.IsNotExist(err) {
		t.Fatalf("a capture with a session wrote the current record: %v", err)
	}
	o.Sessionless = true
	if _, err := Capture(event(t, post("A", "start_session", `{"session_index":"BBBBBB"}`)), st, o); err != nil {
		t.Fatal(err)
	}
	if got, _ := injected(t, st, o, "", "next_activity"); got != "BBBBBB" {
		t.Fatalf("with --sessionless: %q", got)
	}
}

// A record written before handles (one token and its history) is still
// read by flag mode, and rewritten under the handle's name.
func TestLegacyRecord(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	st := state.New(dir)
	tok := "eyJzaWQiOiJhIn0." + strings.Repeat("ab12", 10)
	if err := st.Put(state.Record{Token: "placeholder-0123456789abc", Server: "wf", Session: "S"}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "tokens", "wf", state.SessionFile("S"))
	legacy := `{"token":"` + tok + `","history":["older-0123456789abcdefgh"],"server":"wf","session":"S","session_file":"` + state.SessionFile("S") + `","client":"claude-code","updated":"2026-11-20T10:00:00Z"}` + "\n"
	if err := os.WriteFile(path, []byte(legacy), 0o600); err != nil {
		t.Fatal(err)
	}
	o := carry.Options{Servers: []string{"wf"}, Arg: "session_token", MetaKey: "session_token"}
	out, err := Inject(event(t, pre("S", "next_step", `{}`)), st, o)
	if err != nil || gjson.GetBytes(out.Reply, "hookSpecificOutput.updatedInput.session_token").Str != tok {
		t.Fatalf("legacy record: %s %v", out.Reply, err)
	}
	next := "eyJzaWQiOiJhIn0." + strings.Repeat("cd34", 10)
	if _, err := Capture(event(t, post("S", "next_step", "session_token: "+next)), st, o); err != nil {
		t.Fatal(err)
	}
	rec, err := st.Get("wf", "S")
	if err != nil {
		t.Fatal(err)
	}
	l := rec.Holding["session_token"]
	if l.Default != next || len(l.Values) != 3 || l.Values[1] != tok || len(rec.Holding) != 1 {
		t.Fatalf("after a capture: %+v", rec.Holding)
	}
}

// --redact with handles: each long value as a stand-in named after its
// handle; a short value in flag mode (a secret) as a whole word only.
func TestRedactHandles(t *testing.T) {
	st := state.New(filepath.Join(t.TempDir(), "state"))
	o := indexOptions()
	o.Redact = true
	out, err := Capture(event(t, post("S", "start_session", "{\"session_index\":\"ABCDEF\",\"sha\":\"9f00ABCDEF77\"}")), st, o)
	if err != nil {
		t.Fatal(err)
	}
	text := gjson.GetBytes(out.Reply, "hookSpecificOutput.updatedMCPToolOutput.0.text").Str
	if gjson.Get(text, "session_index").Str != token.StandIn("session_index", "ABCDEF") || gjson.Get(text, "sha").Str != "9f00ABCDEF77" {
		t.Fatalf("redacted: %s", out.Reply)
	}
}
