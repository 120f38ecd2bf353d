//go:build linux

package approvals

import (
	"path/filepath"
	"testing"

	"github.com/interceptor-dev/interceptor/internal/state"
	"github.com/interceptor-dev/interceptor/internal/testfiles"
)

// TestSecretsReadOnlyTheSession: the approve hook (and permit) read the
// call's session's token file and the current one of each server, never
// another session's: the cost of a gated call does not grow with the
// sessions stored (it read them all: 280 ms at 10,000).
func TestSecretsReadOnlyTheSession(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	st := state.New(dir)
	for _, s := range []string{"A", "B", "C", "D"} {
		if err := st.Put(state.Record{Server: "wf", Session: s, Token: "tok-" + s + "-0123456789abcdef"}); err != nil {
			t.Fatal(err)
		}
	}
	var sec Secrets
	got := testfiles.Opened(t, filepath.Join(dir, "tokens", "wf"), func() { sec = LoadSecrets(st, "A", "") })
	for _, name := range got {
		if name != state.SessionFile("A") && name != "current.json" {
			t.Errorf("LoadSecrets for session A opened %s (opened %v)", name, got)
		}
	}
	if len(sec.Held) != 1 || sec.Held[0] != "tok-A-0123456789abcdef" || len(sec.Others) != 1 || sec.Others[0] != "tok-D-0123456789abcdef" {
		t.Errorf("secrets: held %q, others %q", sec.Held, sec.Others)
	}
}
