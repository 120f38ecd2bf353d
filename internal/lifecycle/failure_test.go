package lifecycle

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/interceptor-dev/interceptor/internal/state"
	"github.com/tidwall/sjson"
)

// failed is Claude Code's PostToolUseFailure for wf's tool (2.1.330's
// shape): no tool_response, the error text, mcp_server.
func failed(session, tool, input, errText string) string {
	p, _ := sjson.SetRaw(`{"hook_event_name":"PostToolUseFailure","is_interrupt":false,"duration_ms":3,"mcp_server":{"name":"wf","source":"dynamic"}}`, "tool_input", input)
	p, _ = sjson.Set(p, "session_id", session)
	p, _ = sjson.Set(p, "tool_name", "mcp__wf__"+tool)
	p, _ = sjson.Set(p, "tool_use_id", "toolu_1")
	p, _ = sjson.Set(p, "error", errText)
	return p
}

// A start tool that fails (PostToolUseFailure) retires the value held
// before, and a failed call whose error echoes a value never makes it the
// held one.
func TestFailedCallNeverCarriesAValue(t *testing.T) {
	st := state.New(filepath.Join(t.TempDir(), "state"))
	o := indexOptions()
	if _, err := Capture(event(t, post("S", "start_session", `{"session_index":"ABCDEF"}`)), st, o); err != nil {
		t.Fatal(err)
	}
	if got, _ := injected(t, st, o, "S", "next_activity"); got != "ABCDEF" {
		t.Fatalf("injected %q before the failure", got)
	}
	// A failed call of another tool whose error names a value: nothing taken.
	if _, err := Capture(event(t, failed("S", "next_activity", `{"session_index":"ABCDEF"}`, "Error: session_index: QRSTUV is not yours")), st, o); err != nil {
		t.Fatal(err)
	}
	if got, _ := injected(t, st, o, "S", "next_activity"); got != "ABCDEF" {
		t.Fatalf("after a failed call: injected %q, want the value held before", got)
	}
	// A failed restart: the old value is retired.
	out, err := Capture(event(t, failed("S", "start_session", `{}`, "Error: session_index: QRSTUV (workspace is locked)")), st, o)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.Warning, "the one held before is no longer injected") {
		t.Errorf("warning = %q", out.Warning)
	}
	if got, iout := injected(t, st, o, "S", "next_activity"); got != "" || !strings.Contains(iout.Warning, "no session_index injected") {
		t.Fatalf("after a failed restart: injected %q, warning %q", got, iout.Warning)
	}
}
