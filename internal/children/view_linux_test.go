//go:build linux

package children

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/interceptor-dev/interceptor/internal/state"
	"github.com/interceptor-dev/interceptor/internal/testfiles"
)

// A child's view masks the child's own client session's values and every
// server's current one, and reads no other session's file: a poll's cost
// does not grow with the sessions the store holds (it read them all).
func TestViewerReadsOnlyTheChildsSession(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	st := state.New(dir)
	for i := range 50 {
		if err := st.Put(state.Record{Server: "wf", Session: fmt.Sprintf("other-%d", i), Token: fmt.Sprintf("tok-other-%d-0123456789abcdef", i)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Put(state.Record{Server: "wf", Session: "child-client", Token: "tok-child-0123456789abcdefgh"}); err != nil {
		t.Fatal(err)
	}
	var v *Viewer
	got := testfiles.Opened(t, filepath.Join(dir, "tokens", "wf"), func() { v = NewViewer(dir, "child-client") })
	for _, name := range got {
		if name != state.SessionFile("child-client") && name != "current.json" && name != "." {
			t.Errorf("NewViewer opened %s (opened %v)", name, got)
		}
	}
	out := v.JSON(`{"text":"the child printed tok-child-0123456789abcdefgh"}`)
	if strings.Contains(out, "tok-child") {
		t.Errorf("the child's token is shown: %s", out)
	}
}
