package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// TestEnvNeverWidens: the three ways issue 22 (item 1) found for an
// exported INTERCEPTOR_<FLAG> to let tools run unasked. Each is refused now:
// children create fails and stores nothing, and the approve hook denies the
// call (it fails closed) instead of passing or allowing it.
func TestEnvNeverWidens(t *testing.T) {
	payload := fixtureFile(t, "claude-code.PreToolUse.text.json") // mcp__wf__next_step
	runIn := func(t *testing.T, in []byte, args ...string) (string, string, int) {
		var out, errb bytes.Buffer
		code := run(args, &IO{In: bytes.NewReader(in), Out: &out, Err: &errb})
		return out.String(), errb.String(), code
	}
	t.Run("INTERCEPTOR_APPROVE=1 is not children create --approve", func(t *testing.T) {
		dir, work := filepath.Join(t.TempDir(), "state"), t.TempDir()
		t.Setenv("INTERCEPTOR_APPROVE", "1")
		out, errs, code := runIn(t, nil, "children", "create", "w1", "--dir", work, "--state-dir", dir)
		if code != 1 || !strings.Contains(errs, "refusing INTERCEPTOR_APPROVE") || strings.Count(errs, "\n") != 1 {
			t.Fatalf("create: exit %d, stdout %q, stderr %q", code, out, errs)
		}
		if entries, _ := os.ReadDir(filepath.Join(dir, "children")); len(entries) > 0 {
			t.Fatalf("a child was stored: %v", entries)
		}
	})
	t.Run("INTERCEPTOR_MATCH does not let a call pass", func(t *testing.T) {
		t.Setenv("INTERCEPTOR_MATCH", "^wf_")
		out, errs, code := runIn(t, payload, "approve", "--client", "claude-code", "--timeout", "1s", "--state-dir", t.TempDir())
		if code != 0 || gjson.Get(out, "hookSpecificOutput.permissionDecision").Str != "deny" || !strings.Contains(out, "refusing INTERCEPTOR_MATCH") {
			t.Fatalf("approve: exit %d, stdout %q, stderr %q", code, out, errs)
		}
	})
	t.Run("INTERCEPTOR_ALLOW does not allow", func(t *testing.T) {
		t.Setenv("INTERCEPTOR_ALLOW", ".*")
		out, errs, code := runIn(t, payload, "approve", "--client", "claude-code", "--timeout", "1s", "--state-dir", t.TempDir())
		if code != 0 || gjson.Get(out, "hookSpecificOutput.permissionDecision").Str != "deny" || !strings.Contains(out, "refusing INTERCEPTOR_ALLOW") {
			t.Fatalf("approve: exit %d, stdout %q, stderr %q", code, out, errs)
		}
	})
}
