package approvals

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/interceptor-dev/interceptor/internal/state"
	"github.com/interceptor-dev/interceptor/internal/token"
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
