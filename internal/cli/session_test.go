package cli

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/interceptor-dev/interceptor/internal/state"
)

// TestOverlongSessionRefused: a session id past state.MaxSessionLen used to
// be stored and then never read back (issue 12.11). Now the hook refuses it
// up front: exit 0, no stdout, one stderr line, nothing stored.
func TestOverlongSessionRefused(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	session := strings.Repeat("s", state.MaxSessionLen+1)
	payload := `{"session_id":"` + session + `","hook_event_name":"PostToolUse","tool_name":"mcp__wf__next_step","tool_input":{},` +
		`"tool_response":[{"type":"text","text":"session_token: eyJzaWQiOiJ4In0.0123456789abcdef0123"}]}`
	pre := strings.Replace(strings.Replace(payload, "PostToolUse", "PreToolUse", 1), `"tool_input":{}`, `"tool_input":{"step":"x"}`, 1)
	for cmd, in := range map[string]string{"capture": payload, "inject": pre} {
		var out, errb bytes.Buffer
		code := run([]string{cmd, "--server", "wf", "--client", "claude-code", "--state-dir", dir}, &IO{In: strings.NewReader(in), Out: &out, Err: &errb})
		if code != 0 || out.Len() != 0 || strings.Count(errb.String(), "\n") != 1 || !strings.Contains(errb.String(), "session id is") {
			t.Fatalf("%s: exit %d, stdout %q, stderr %q", cmd, code, out.String(), errb.String())
		}
	}
	if list, errs := state.New(dir).List("wf"); len(list) > 0 || len(errs) > 0 {
		t.Fatalf("something was stored: %d records, %v", len(list), errs)
	}
}
