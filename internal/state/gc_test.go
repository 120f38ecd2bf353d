package state

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
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
