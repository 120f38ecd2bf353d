//go:build unix

package privfs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gofrs/flock"
)

// TestTryLock: a second try while the lock is held fails, without an
// error, once the probe window has passed; once let go, a try gets it. Lock waits for a TryLock holder.
func TestTryLock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "runner.lock")
	unlock, ok, err := TryLock(path, "runner")
	if err != nil || !ok {
		t.Fatalf("first try: %v %v", ok, err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("lock file: %v, %v", fi.Mode(), err)
	}
	start := time.Now()
	if _, ok, err := TryLock(path, "runner"); ok || err != nil {
		t.Fatalf("second try while held: %v %v", ok, err)
	}
	if took := time.Since(start); took > time.Second {
		t.Errorf("a try waited %s", took)
	}
	if err := Locked(path, "runner", 50*time.Millisecond, func() error { return nil }); err == nil {
		t.Fatal("Lock took a lock TryLock holds")
	}
	unlock()
	unlock2, ok, err := TryLock(path, "runner")
	if err != nil || !ok {
		t.Fatalf("after the first let go: %v %v", ok, err)
	}
	unlock2()
}

// TestTryLockWaitsOutAProbe: a Held probe (a shared lock for an instant)
// does not make a runner starting at that moment give up as if another
// runner held the chat. Here the probe's lock is held for 20 ms, far longer
// than Held holds it.
func TestTryLockWaitsOutAProbe(t *testing.T) {
	path := filepath.Join(t.TempDir(), "runner.lock")
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	probe := flock.New(path, flock.SetFlag(os.O_RDONLY))
	if ok, err := probe.TryRLock(); !ok || err != nil {
		t.Fatal(ok, err)
	}
	go func() {
		time.Sleep(20 * time.Millisecond)
		probe.Unlock()
	}()
	unlock, ok, err := TryLock(path, "runner")
	if err != nil || !ok {
		t.Fatalf("a try during a probe: %v %v", ok, err)
	}
	unlock()
}

// TestTryLockRefusesALink: a symlink where the lock file goes is refused,
// its target not created.
func TestTryLockRefusesALink(t *testing.T) {
	dir := t.TempDir()
	target, link := filepath.Join(dir, "elsewhere"), filepath.Join(dir, "runner.lock")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := TryLock(link, "runner"); ok || err == nil || !strings.Contains(err.Error(), "is not a regular file") {
		t.Fatalf("TryLock on a link: %v %v", ok, err)
	}
	if _, err := os.Lstat(target); !os.IsNotExist(err) {
		t.Errorf("the link's target was created: %v", err)
	}
	if Held(link) {
		t.Error("Held followed a link")
	}
}

// TestHeld: a lock held here (by another descriptor) or by another
// process is held; a missing file, a free one, and a dead holder's are
// not. Held never creates the file.
func TestHeld(t *testing.T) {
	path := filepath.Join(t.TempDir(), "runner.lock")
	if Held(path) {
		t.Fatal("a missing lock file is held")
	}
	if _, err := os.Lstat(path); !os.IsNotExist(err) {
		t.Fatalf("Held created the lock file: %v", err)
	}
	unlock, ok, err := TryLock(path, "runner")
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	if !Held(path) {
		t.Error("a lock held in this process is not held")
	}
	unlock()
	if Held(path) {
		t.Error("a free lock is held")
	}
	// Held's own probe lets go: a try after it gets the lock.
	if unlock, ok, err := TryLock(path, "runner"); err != nil || !ok {
		t.Errorf("a try after Held: %v %v", ok, err)
	} else {
		unlock()
	}

	kill := holdElsewhere(t, path)
	if !Held(path) {
		t.Error("a lock another process holds is not held")
	}
	kill()
	if Held(path) {
		t.Error("a dead holder's lock is held")
	}
}

// TestRename: a file moves whole; a failed move names what and where.
func TestRename(t *testing.T) {
	dir := t.TempDir()
	from, to := filepath.Join(dir, "a.json"), filepath.Join(dir, "sub", "a.json")
	if err := os.WriteFile(from, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	err := Rename(from, to, "approval record")
	if err == nil || !strings.HasPrefix(err.Error(), "moving approval record "+from+" to "+to+": ") {
		t.Fatalf("a move into a missing dir: %v", err)
	}
	if err := os.Mkdir(filepath.Dir(to), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := Rename(from, to, "approval record"); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(to); err != nil || string(b) != "x" {
		t.Fatalf("moved: %q %v", b, err)
	}
	if _, err := os.Lstat(from); !os.IsNotExist(err) {
		t.Errorf("the old name is still there: %v", err)
	}
}
