//go:build unix

package state

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// outsideTree is a dir outside the store holding what gc would remove if
// it were in a server dir: an old session token file and an old temp file.
func outsideTree(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "outside")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{SessionFile("victim"), tempPrefix + "victim", "precious.txt"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(`{"token":"`+tok("OUTSIDE")+`","server":"wf","session":"victim"}`+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Now().Add(-30 * 24 * time.Hour)
	for _, e := range []string{SessionFile("victim"), tempPrefix + "victim"} {
		os.Chtimes(filepath.Join(dir, e), old, old)
	}
	return dir
}

// TestGCNeverFollowsLinks: gc removes only what lies in the store's own
// server dirs, and a link there is removed as a link. A state, tokens or
// server dir that is a symlink is refused (or, for a server dir, skipped),
// and a session file or temp file that is a symlink to a file or a dir
// outside loses the link only: nothing outside changes (a held promise of
// issue 22's review).
func TestGCNeverFollowsLinks(t *testing.T) {
	future := time.Now().Add(24 * time.Hour) // everything is old then, links included
	for _, level := range []string{"state dir", "tokens dir", "server dir"} {
		t.Run(level, func(t *testing.T) {
			s := seeded(t)
			outside := outsideTree(t)
			link := map[string]string{"state dir": s.Dir, "tokens dir": filepath.Join(s.Dir, tokensDir), "server dir": s.serverDir("wf")}[level]
			// The link replaces the dir and points at the outside tree.
			if err := os.RemoveAll(link); err != nil {
				t.Fatal(err)
			}
			target := outside
			if level == "tokens dir" {
				target = filepath.Dir(outside) // holds outside/ as a "server" dir
			}
			if level == "state dir" {
				// A state dir whose tokens/wf is the outside tree.
				target = filepath.Join(t.TempDir(), "fake-state")
				os.MkdirAll(filepath.Join(target, tokensDir), 0o700)
				if err := os.Symlink(outside, filepath.Join(target, tokensDir, "wf")); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.Symlink(target, link); err != nil {
				t.Fatal(err)
			}
			before := snapshot(t, outside)
			res, err := s.GC(0, future, false)
			if level != "server dir" {
				wantRefused(t, "gc through a symlinked "+level, err, link, "symlink")
			}
			if len(res.Sessions)+len(res.Temps) != 0 {
				t.Errorf("gc through a symlinked %s removed %v %v", level, res.Sessions, res.Temps)
			}
			sameSnapshot(t, "outside the store", before, snapshot(t, outside))
		})
	}

	t.Run("links in a server dir", func(t *testing.T) {
		s := seeded(t)
		outside := outsideTree(t)
		dir := s.serverDir("wf")
		links := map[string]string{
			SessionFile("planted"):  filepath.Join(outside, SessionFile("victim")),
			tempPrefix + "file":     filepath.Join(outside, tempPrefix+"victim"),
			tempPrefix + "dir":      outside,
			SessionFile("dir-link"): outside,
		}
		for name, to := range links {
			if err := os.Symlink(to, filepath.Join(dir, name)); err != nil {
				t.Fatal(err)
			}
		}
		before := snapshot(t, outside)
		for _, dry := range []bool{true, false} {
			res, err := s.GC(0, future, dry)
			if err != nil {
				t.Errorf("gc (dry run %v): %v", dry, err)
			}
			if got := len(res.Sessions) + len(res.Temps); got != len(links)+1 {
				t.Errorf("gc (dry run %v) names %d files, want %d (the links and session A): %v %v", dry, got, len(links)+1, res.Sessions, res.Temps)
			}
			for _, p := range append(res.Sessions, res.Temps...) {
				if filepath.Dir(p) != dir {
					t.Errorf("gc (dry run %v) names %s, outside the server dir %s", dry, p, dir)
				}
			}
			sameSnapshot(t, "outside the store", before, snapshot(t, outside))
		}
		for name := range links {
			if _, err := os.Lstat(filepath.Join(dir, name)); !os.IsNotExist(err) {
				t.Errorf("the link %s is still there (%v)", name, err)
			}
		}
		if _, err := s.Get("wf", ""); err != nil {
			t.Errorf("the current token after gc: %v", err)
		}
	})
}
