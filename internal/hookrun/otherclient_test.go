package hookrun

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/interceptor-dev/interceptor/internal/hooks"
	"github.com/interceptor-dev/interceptor/internal/lifecycle"
)

// Cursor runs the hooks of Claude Code's settings too: a Claude Code hook
// given Cursor's call says and does nothing (Cursor's own hook handles
// it), whether it fails open (inject) or closed (approve), and never
// denies the call.
func TestClaudeHookUnderCursorIsSilent(t *testing.T) {
	payload := `{"session_id":"c","conversation_id":"c","cursor_version":"2026.09.18-9a7762b","hook_event_name":"PreToolUse",` +
		`"tool_name":"mcp__wf__next_step","tool_input":{"step":"one"}}`
	for _, closed := range []bool{false, true} {
		var out, errb bytes.Buffer
		handled := false
		h := &Hook{Name: "inject", Client: "claude-code", Handle: func(context.Context, *hooks.Event) (lifecycle.Outcome, error) {
			handled = true
			return lifecycle.Outcome{Reply: []byte(`{"x":1}`)}, nil
		}}
		if closed {
			h.Name = "approve"
			h.Closed = &Closed{
				Unread: func(hooks.Adapter, string) ([]byte, error) { return []byte(`{"deny":1}`), nil },
				Failed: func(*hooks.Event, string) ([]byte, error) { return []byte(`{"deny":2}`), nil },
			}
		}
		err := Run(&IO{In: strings.NewReader(payload), Out: &out, Err: &errb}, h)
		if err != nil || handled || out.Len() != 0 || errb.Len() != 0 {
			t.Errorf("closed=%v: err %v, handled %v, stdout %q, stderr %q; want nothing at all", closed, err, handled, out.String(), errb.String())
		}
	}
}
