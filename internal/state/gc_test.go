package state

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/interceptor-dev/interceptor/internal/token"
)

func TestGCAndInspect(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	st := New(dir)
	now := time.Now()
	for _, s := range []string{"old", "new"} {
		if err := st.Put(Record{Token: "tok-" + s, Server: "wf", Session: s}); err != nil {
			t.Fatal(err)
		}
	}
	sdir := filepath.Join(dir, tokensDir, "wf")
	old := filepath.Join(sdir, SessionFile("old"))
	tenDays := now.Add(-10 * 24 * time.Hour)
	if err := os.Chtimes(old, tenDays, tenDays); err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(sdir, tempPrefix+"123")
	if err := os.WriteFile(tmp, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	hour := now.Add(-time.Hour)
	os.Chtimes(tmp, hour, hour)
	fresh := filepath.Join(sdir, tempPrefix+"456")
	os.WriteFile(fresh, []byte("x"), 0o600)

	in := Inspect(dir, now)
	if !in.Safe() || in.Sessions() != 2 || len(in.Servers) != 1 || !in.Servers[0].Current || in.Servers[0].Temps != 1 || in.Servers[0].Name != "wf" {
		t.Fatalf("inspect: %+v", in)
	}
	if got := now.Sub(in.Servers[0].Oldest); got < 9*24*time.Hour {
		t.Fatalf("oldest is %s old", got)
	}

	res, err := st.GC(7*24*time.Hour, now, true)
	if err != nil || len(res.Sessions) != 1 || len(res.Temps) != 1 {
		t.Fatalf("dry run: %+v %v", res, err)
	}
	if _, err := os.Stat(old); err != nil {
		t.Fatal("dry run removed a file")
	}
	res, err = st.GC(7*24*time.Hour, now, false)
	if err != nil || len(res.Sessions) != 1 || res.Sessions[0] != old || len(res.Temps) != 1 {
		t.Fatalf("gc: %+v %v", res, err)
	}
	if _, err := st.Get("wf", "old"); err != ErrNotFound {
		t.Fatalf("old session still held: %v", err)
	}
	if _, err := st.Get("wf", "new"); err != nil {
		t.Fatalf("new session lost: %v", err)
	}
	if _, err := st.Get("wf", ""); err != nil {
		t.Fatalf("current token lost: %v", err)
	}
	if _, err := os.Stat(fresh); err != nil {
		t.Fatal("a fresh temp file (a write in progress) was removed")
	}
}

func TestInspectReportsUnsafe(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("modes mean nothing on Windows")
	}
	dir := filepath.Join(t.TempDir(), "state")
	st := New(dir)
	if err := st.Put(Record{Token: "tok", Server: "wf", Session: "s"}); err != nil {
		t.Fatal(err)
	}
	f := filepath.Join(dir, tokensDir, "wf", SessionFile("s"))
	os.Chmod(f, 0o644)
	in := Inspect(dir, time.Now())
	if in.Safe() || !strings.Contains(strings.Join(in.Problems, "\n"), "mode 0644") {
		t.Fatalf("problems %q", in.Problems)
	}
	os.Chmod(dir, 0o755)
	in = Inspect(dir, time.Now())
	if in.Safe() || !strings.Contains(in.Problems[0], "state dir "+dir+" has mode 0755") {
		t.Fatalf("problems %q", in.Problems)
	}
	if _, err := st.GC(0, time.Now(), false); err == nil {
		t.Fatal("gc ran in an unsafe dir")
	}
	if in := Inspect(filepath.Join(dir, "missing"), time.Now()); in.Exists || !in.Safe() {
		t.Fatalf("missing dir: %+v", in)
	}
}

// TestGCNeverCostsACapture: captures that run while gc sweeps thousands of
// stale sessions are all stored and all kept, also for a stale session
// written again meanwhile (issue 25: gc held the server's lock for its whole
// sweep, and a capture gave up after its lock wait, losing its token).
func TestGCNeverCostsACapture(t *testing.T) {
	st := newStore(t)
	st.LockTimeout = 500 * time.Millisecond // far under a whole sweep of the old kind
	const stale = 6000
	sdir := st.serverDir("wf")
	old := time.Now().Add(-30 * 24 * time.Hour)
	for i := range stale {
		id := fmt.Sprintf("stale-%d", i)
		if err := st.Update("wf", id, "x", false, func(h token.Holding) (token.Holding, bool) {
			h["session_token"] = token.Live{Values: token.Held{tok(id)}, Default: tok(id)}
			return h, true
		}); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(sdir, SessionFile(id))
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}
	done := make(chan error, 1)
	go func() {
		_, err := st.GC(7*24*time.Hour, time.Now(), false)
		done <- err
	}()
	var stored []string
	for i := 0; ; i++ {
		id := fmt.Sprintf("fresh-%d", i)
		if i%2 == 1 {
			id = fmt.Sprintf("stale-%d", stale-1-i) // a stale session written again
		}
		if err := st.Put(Record{Token: tok(id), Server: "wf", Session: id}); err != nil {
			t.Fatalf("capture %d during gc: %v", i, err)
		}
		stored = append(stored, id)
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
			for _, id := range stored {
				if got, err := st.Get("wf", id); err != nil || got.Token != tok(id) {
					t.Fatalf("session %s stored during gc: %v", id, err)
				}
			}
			if n, _ := os.ReadDir(sdir); len(n) > 2*len(stored)+300 {
				t.Fatalf("gc left %d entries", len(n))
			}
			t.Logf("%d captures during a gc of %d stale sessions: all stored and kept", len(stored), stale)
			if len(stored) < 2 {
				t.Fatalf("gc finished before the captures ran: the test proves nothing")
			}
			return
		default:
		}
	}
}
