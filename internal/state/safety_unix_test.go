//go:build unix

package state

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gofrs/flock"
	"github.com/interceptor-dev/interceptor/internal/token"
)

func umask(m int) int { return syscall.Umask(m) }

func TestModesOnDisk(t *testing.T) {
	for _, mask := range []int{0, 0o022, 0o077} {
		old := umask(mask)
		s := New(filepath.Join(t.TempDir(), "state")) // a real disk
		mustPut(t, s, Record{Token: tok("A"), Server: "wf", Session: "A"})
		umask(old)
		for _, d := range []string{s.Dir, filepath.Join(s.Dir, tokensDir), s.serverDir("wf")} {
			if m := mode(t, d); m != 0o700 {
				t.Errorf("umask %03o: dir %s has mode %04o; want 0700", mask, d, m)
			}
		}
		for _, f := range []string{currentFile, SessionFile("A"), lockOf(SessionFile("A")), currentLock} {
			if m := mode(t, filepath.Join(s.serverDir("wf"), f)); m != 0o600 {
				t.Errorf("umask %03o: file %s has mode %04o; want 0600", mask, f, m)
			}
		}
	}
}

func mode(t *testing.T, path string) fs.FileMode {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Perm()
}

// detach gives a token file an inode of its own (Put may hard-link the
// session file and current), so changing its mode or owner changes only it.
// Directories are left alone.
func detach(t *testing.T, path string) {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// seeded returns a store holding A's token for wf (session A and current).
func seeded(t *testing.T) *Store {
	t.Helper()
	s := newStore(t)
	mustPut(t, s, Record{Token: tok("A"), Server: "wf", Session: "A"})
	return s
}

// wantRefused checks err is a refusal that names path and says why.
func wantRefused(t *testing.T, what string, err error, path string, why ...string) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: no error; want a refusal", what)
		return
	}
	if errors.Is(err, ErrNotFound) {
		t.Errorf("%s: ErrNotFound; want a refusal that says why", what)
		return
	}
	msg := err.Error()
	if !strings.Contains(msg, path) {
		t.Errorf("%s: error %q does not name %s", what, msg, path)
	}
	for _, w := range why {
		if !strings.Contains(msg, w) {
			t.Errorf("%s: error %q does not say %q", what, msg, w)
		}
	}
	if strings.Contains(msg, "\n") {
		t.Errorf("%s: error spans lines: %q", what, msg)
	}
}

// allOps runs every store operation, readers first (a Put may replace a
// planted file), and returns their errors by name.
func allOps(s *Store) map[string]error {
	errs := map[string]error{}
	_, errs["Get session"] = s.Get("wf", "A")
	_, errs["Get current"] = s.Get("wf", "")
	firstErr := func(_ []Record, errs []error) error {
		if len(errs) > 0 {
			return errs[0]
		}
		return nil
	}
	errs["List server"] = firstErr(s.List("wf"))
	errs["List all"] = firstErr(s.List(""))
	errs["Put"] = s.Put(Record{Token: tok("NEW"), Server: "wf", Session: "A"})
	errs["Delete"] = s.Delete("wf", "A")
	errs["DeleteServer"] = s.DeleteServer("wf")
	errs["DeleteSession"] = s.DeleteSession("A")
	return errs
}

// checkOps asserts every operation in errs is refused: each one checks the
// whole tree above the token files.
func checkOps(t *testing.T, level string, errs map[string]error, path string, why ...string) {
	t.Helper()
	for op, err := range errs {
		wantRefused(t, level+" "+op, err, path, why...)
	}
}

// snapshot maps every path under root to its content (or "dir" / link target).
func snapshot(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		fi, _ := d.Info()
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			l, _ := os.Readlink(path)
			out[path] = "link:" + l
		case d.IsDir():
			out[path] = "dir"
		case d.Type().IsRegular():
			b, _ := os.ReadFile(path)
			out[path] = string(b)
		default:
			out[path] = "special:" + fi.Mode().String()
		}
		return nil
	})
	return out
}

func sameSnapshot(t *testing.T, what string, a, b map[string]string) {
	t.Helper()
	for k, v := range a {
		if w, ok := b[k]; !ok {
			t.Errorf("%s: %s disappeared", what, k)
		} else if v != w {
			t.Errorf("%s: %s changed", what, k)
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			t.Errorf("%s: %s appeared", what, k)
		}
	}
}

func TestRefusesSymlinkedDirs(t *testing.T) {
	for _, c := range []struct {
		name string
		path func(s *Store) string
	}{
		{"state dir", func(s *Store) string { return s.Dir }},
		{"tokens dir", func(s *Store) string { return filepath.Join(s.Dir, tokensDir) }},
		{"server dir", func(s *Store) string { return s.serverDir("wf") }},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := seeded(t)
			link := c.path(s)
			// The link points at a copy that looks perfectly valid.
			other, _ := fastDir(t) // same file system as the store, for the rename
			target := filepath.Join(other, "elsewhere")
			if err := os.Rename(link, target); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(target, link); err != nil {
				t.Fatal(err)
			}
			before := snapshot(t, target)
			errs := allOps(s)
			if c.name == "server dir" {
				// Listing every server skips an entry that is not a directory:
				// it neither follows nor reports it.
				delete(errs, "List all")
				delete(errs, "DeleteSession")
			}
			checkOps(t, c.name, errs, link, "symlink")
			sameSnapshot(t, "link target", before, snapshot(t, target))
		})
	}
}

func TestSymlinkedTokenFile(t *testing.T) {
	s := seeded(t)
	outside := filepath.Join(t.TempDir(), "outside.json")
	planted := `{"token":"` + tok("PLANTED") + `","server":"wf","session":"A"}` + "\n"
	if err := os.WriteFile(outside, []byte(planted), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{currentFile, SessionFile("A")} {
		p := filepath.Join(s.serverDir("wf"), name)
		os.Remove(p)
		if err := os.Symlink(outside, p); err != nil {
			t.Fatal(err)
		}
	}
	for _, session := range []string{"", "A"} {
		rec, err := s.Get("wf", session)
		wantRefused(t, "Get "+session, err, "token file", "symlink")
		if rec.Token != "" {
			t.Errorf("Get(%q) followed the link: %.20q", session, rec.Token)
		}
	}
	if _, errs := s.List("wf"); len(errs) != 2 {
		t.Errorf("List: %d errors; want one per linked file: %v", len(errs), errs)
	}
	// A writer replaces the link instead of writing through it.
	mustPut(t, s, Record{Token: tok("NEW"), Server: "wf", Session: "A"})
	if b, _ := os.ReadFile(outside); string(b) != planted {
		t.Errorf("Put wrote through the symlink: %s now holds %q", outside, b)
	}
	for _, name := range []string{currentFile, SessionFile("A")} {
		fi, err := os.Lstat(filepath.Join(s.serverDir("wf"), name))
		if err != nil || !fi.Mode().IsRegular() {
			t.Errorf("%s after Put: %v, %v; want a regular file", name, fi.Mode(), err)
		}
	}
	if got := mustGet(t, s, "wf", "A"); got.Token != tok("NEW") {
		t.Errorf("after Put: %.20q", got.Token)
	}
}

func TestSymlinkedLockFile(t *testing.T) {
	for _, target := range []string{"missing", "existing"} {
		t.Run(target, func(t *testing.T) {
			s := seeded(t)
			outside := filepath.Join(t.TempDir(), "victim")
			if target == "existing" {
				if err := os.WriteFile(outside, []byte("keep me"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			// A's shard lock, and current's, which a write of A also takes.
			lock := filepath.Join(s.serverDir("wf"), lockOf(SessionFile("A")))
			cur := filepath.Join(s.serverDir("wf"), currentLock)
			for _, l := range []string{lock, cur} {
				os.Remove(l)
				if err := os.Symlink(outside, l); err != nil {
					t.Fatal(err)
				}
			}
			for _, op := range []struct {
				name string
				err  error
			}{
				{"Put", s.Put(Record{Token: tok("NEW"), Server: "wf", Session: "A"})},
				{"Delete", s.Delete("wf", "A")},
				{"DeleteServer", s.DeleteServer("wf")},
				{"DeleteSession", s.DeleteSession("A")},
			} {
				wantRefused(t, op.name, op.err, lock, "lock file", "not a regular file")
			}
			b, err := os.ReadFile(outside)
			switch {
			case target == "missing" && !errors.Is(err, fs.ErrNotExist):
				t.Errorf("taking the lock created %s through the link", outside)
			case target == "existing" && string(b) != "keep me":
				t.Errorf("taking the lock changed %s: %q", outside, b)
			}
			// Readers take no lock, so the held token is still readable.
			if got := mustGet(t, s, "wf", "A"); got.Token != tok("A") {
				t.Errorf("Get = %.20q", got.Token)
			}
		})
	}
}

func TestRefusesOpenModes(t *testing.T) {
	for _, c := range []struct {
		name string
		path func(s *Store) string
	}{
		{"state dir", func(s *Store) string { return s.Dir }},
		{"tokens dir", func(s *Store) string { return filepath.Join(s.Dir, tokensDir) }},
		{"server dir", func(s *Store) string { return s.serverDir("wf") }},
	} {
		for _, m := range []fs.FileMode{0o750, 0o705, 0o710, 0o701, 0o770, 0o755, 0o777} {
			s := seeded(t)
			p := c.path(s)
			if err := os.Chmod(p, m); err != nil {
				t.Fatal(err)
			}
			checkOps(t, c.name, allOps(s), p, "open to group or others", "chmod 700")
			if m2 := mode(t, p); m2 != m {
				t.Errorf("%s: mode changed to %04o; the store must refuse, not repair", c.name, m2)
			}
		}
	}
	for _, m := range []fs.FileMode{0o640, 0o604, 0o660, 0o644, 0o606} {
		s := seeded(t)
		p := filepath.Join(s.serverDir("wf"), currentFile)
		detach(t, p)
		if err := os.Chmod(p, m); err != nil {
			t.Fatal(err)
		}
		rec, err := s.Get("wf", "")
		wantRefused(t, "token file "+m.String(), err, p, "open to group or others", "chmod 600")
		if rec.Token != "" {
			t.Errorf("token file %s: Get returned the token", m)
		}
		if _, errs := s.List("wf"); len(errs) != 1 {
			t.Errorf("token file %s: List errors %v; want 1", m, errs)
		}
		// The session's own file is still private and still readable.
		if got := mustGet(t, s, "wf", "A"); got.Token != tok("A") {
			t.Errorf("session file: %.20q", got.Token)
		}
	}
}

func TestRefusesForeignOwner(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to chown a file to another uid; run as root to cover the owner check")
	}
	const uid = 4242
	for _, c := range []struct {
		name string
		path func(s *Store) string
		ops  []string
	}{
		{"state dir", func(s *Store) string { return s.Dir }, nil},
		{"tokens dir", func(s *Store) string { return filepath.Join(s.Dir, tokensDir) }, nil},
		{"server dir", func(s *Store) string { return s.serverDir("wf") }, nil},
		{"token file", func(s *Store) string { return filepath.Join(s.serverDir("wf"), currentFile) }, []string{"Get current"}},
	} {
		s := seeded(t)
		p := c.path(s)
		detach(t, p)
		if err := os.Lchown(p, uid, uid); err != nil {
			t.Fatal(err)
		}
		errs := allOps(s)
		if c.ops == nil {
			checkOps(t, c.name, errs, p, "owned by uid 4242", "refusing")
			continue
		}
		for _, op := range c.ops {
			wantRefused(t, c.name+" "+op, errs[op], p, "owned by uid 4242", "refusing")
		}
	}
}

// TestSpecialFileInPlaceOfToken: a FIFO must not hang a reader, and a
// directory must not be taken for a token.
func TestSpecialFileInPlaceOfToken(t *testing.T) {
	for _, kind := range []string{"fifo", "dir"} {
		t.Run(kind, func(t *testing.T) {
			s := seeded(t)
			p := filepath.Join(s.serverDir("wf"), currentFile)
			os.Remove(p)
			var err error
			if kind == "fifo" {
				err = syscall.Mkfifo(p, 0o600)
			} else {
				err = os.Mkdir(p, 0o700)
			}
			if err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() {
				_, err := s.Get("wf", "")
				done <- err
			}()
			select {
			case err := <-done:
				wantRefused(t, "Get", err, p, "not a regular file")
			case <-time.After(3 * time.Second):
				t.Fatalf("Get on a %s hung", kind)
			}
			_, errs := s.List("wf")
			if len(errs) != 1 {
				t.Errorf("List: %v; want one error", errs)
			}
			if got := mustGet(t, s, "wf", "A"); got.Token != tok("A") {
				t.Errorf("session file: %.20q", got.Token)
			}
			// Put replaces a FIFO by rename; it cannot rename over a directory
			// and must say so.
			err = s.Put(Record{Token: tok("NEW"), Server: "wf"})
			if kind == "dir" {
				wantRefused(t, "Put over a dir", err, currentFile)
			} else if err != nil {
				t.Errorf("Put over a FIFO: %v", err)
			} else if got := mustGet(t, s, "wf", ""); got.Token != tok("NEW") {
				t.Errorf("after Put over a FIFO: %.20q", got.Token)
			}
		})
	}
	t.Run("dir in place of the session file", func(t *testing.T) {
		s := seeded(t)
		p := filepath.Join(s.serverDir("wf"), SessionFile("B"))
		if err := os.Mkdir(p, 0o700); err != nil {
			t.Fatal(err)
		}
		err := s.Put(Record{Token: tok("B"), Server: "wf", Session: "B"})
		wantRefused(t, "Put", err, SessionFile("B"))
		// The session file is written first, so a refused write leaves the
		// current token as it was.
		if got := mustGet(t, s, "wf", ""); got.Token != tok("A") {
			t.Errorf("current after a refused Put = %.20q; want A's", got.Token)
		}
		assertNoTemps(t, s.serverDir("wf"))
	})
}

func assertNoTemps(t *testing.T, dir string) {
	t.Helper()
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), tempPrefix) {
			t.Errorf("temp file %s left behind by a failed write", e.Name())
		}
	}
}

func TestOversizeTokenFile(t *testing.T) {
	s := seeded(t)
	p := filepath.Join(s.serverDir("wf"), currentFile)
	big := `{"token":"x","pad":"` + strings.Repeat("p", 10<<20) + `"}`
	if err := os.WriteFile(p, []byte(big), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := s.Get("wf", "")
	wantRefused(t, "Get", err, p, "larger than")
}

// TestLockTimeout: a writer gives up with a clear error when another holds
// the lock past LockTimeout, and readers are never held up.
func TestLockTimeout(t *testing.T) {
	s := seeded(t)
	// Long enough that "gave up waiting" and "never waited" cannot be
	// confused on a loaded CI machine.
	s.LockTimeout = time.Second
	dir := s.serverDir("wf")
	shardA, shardB := filepath.Join(dir, lockOf(SessionFile("A"))), filepath.Join(dir, lockOf(SessionFile("B")))
	cur := filepath.Join(dir, currentLock)
	for _, l := range []string{shardA, shardB, cur} {
		holder := flock.New(l)
		if err := holder.Lock(); err != nil {
			t.Fatal(err)
		}
		defer holder.Unlock()
	}

	for _, op := range []struct {
		name, lock string
		fn         func() error
	}{
		{"Put", shardB, func() error { return s.Put(Record{Token: tok("B"), Server: "wf", Session: "B"}) }},
		{"Delete", shardA, func() error { return s.Delete("wf", "A") }},
		{"DeleteServer", shardA, func() error { return s.DeleteServer("wf") }},
		{"DeleteSession", shardA, func() error { return s.DeleteSession("A") }},
	} {
		start := time.Now()
		err := op.fn()
		took := time.Since(start)
		wantRefused(t, op.name, err, op.lock, "still held by another process after 1s")
		if took < s.LockTimeout || took > 3*s.LockTimeout+2*time.Second {
			t.Errorf("%s gave up after %v; want about %v per lock", op.name, took, s.LockTimeout)
		}
	}
	start := time.Now()
	if got := mustGet(t, s, "wf", ""); got.Token != tok("A") {
		t.Errorf("Get under a held lock = %.20q; nothing may have changed", got.Token)
	}
	if took := time.Since(start); took >= s.LockTimeout/2 {
		t.Errorf("Get waited %v under a held lock; readers take no lock", took)
	}
	wantNotFound(t, s, "wf", "B")
}

// TestLockWaitsForHolder: a writer that finds the lock held waits for it
// rather than failing, when the holder lets go within LockTimeout.
func TestLockWaitsForHolder(t *testing.T) {
	s := seeded(t)
	holder := flock.New(filepath.Join(s.serverDir("wf"), lockOf(SessionFile("B"))))
	if err := holder.Lock(); err != nil {
		t.Fatal(err)
	}
	time.AfterFunc(200*time.Millisecond, func() { holder.Unlock() })
	start := time.Now()
	mustPut(t, s, Record{Token: tok("B"), Server: "wf", Session: "B"})
	if took := time.Since(start); took < 150*time.Millisecond {
		t.Errorf("Put took %v while the lock was held for 200ms: it did not wait", took)
	}
}

// TestSessionsDoNotQueue: a writer of one session does not wait for a
// writer of another (issue 25: distinct sessions used to queue behind one
// lock per server).
func TestSessionsDoNotQueue(t *testing.T) {
	s := seeded(t)
	// A writer queued behind A's lock would wait the whole 30 s (A never
	// lets go) and fail; one that did not queue is done in far less, even
	// on a loaded CI machine.
	s.LockTimeout = 30 * time.Second
	// Two sessions in different shards.
	other := ""
	for i := 0; other == ""; i++ {
		if id := fmt.Sprintf("B%d", i); lockOf(SessionFile(id)) != lockOf(SessionFile("A")) {
			other = id
		}
	}
	holder := flock.New(filepath.Join(s.serverDir("wf"), lockOf(SessionFile("A"))))
	if err := holder.Lock(); err != nil {
		t.Fatal(err)
	}
	defer holder.Unlock()
	start := time.Now()
	if err := s.Update("wf", other, "x", false, func(h token.Holding) (token.Holding, bool) {
		h["session_token"] = token.Live{Values: token.Held{tok("O")}, Default: tok("O")}
		return h, true
	}); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("a write of session %s waited %v behind session A's lock", other, took)
	}
}

func TestLockFileNotRegular(t *testing.T) {
	s := seeded(t)
	p := filepath.Join(s.serverDir("wf"), currentLock)
	os.Remove(p)
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Put(Record{Token: tok("B"), Server: "wf"}) }()
	select {
	case err := <-done:
		wantRefused(t, "Put with a FIFO lock", err, p, "not a regular file")
	case <-time.After(3 * time.Second):
		t.Fatal("Put hung on a FIFO lock file")
	}
}

func TestReadOnlyServerDir(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root writes into a read-only dir anyway; test/reliability covers this as an unprivileged user")
	}
	s := seeded(t)
	dir := s.serverDir("wf")
	os.Chmod(dir, 0o500)
	defer os.Chmod(dir, 0o700)
	err := s.Put(Record{Token: tok("B"), Server: "wf", Session: "B"})
	wantRefused(t, "Put", err, dir, "permission denied")
	if got := mustGet(t, s, "wf", ""); got.Token != tok("A") {
		t.Errorf("current = %.20q", got.Token)
	}
}
