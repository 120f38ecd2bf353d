package privfs

import (
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestHeldOnlyReads: asking whether a lock is held closes nothing opened
// for writing, so a watch of the dir (a long poll's) is not woken by its
// own probe.
func TestHeldOnlyReads(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "runner.lock")
	unlock, ok, err := TryLock(path, "runner")
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	defer unlock()
	fd, err := syscall.InotifyInit1(syscall.IN_CLOEXEC | syscall.IN_NONBLOCK)
	if err != nil {
		t.Skip("no inotify:", err)
	}
	defer syscall.Close(fd)
	if _, err := syscall.InotifyAddWatch(fd, dir, syscall.IN_CLOSE_WRITE|syscall.IN_MODIFY|syscall.IN_CREATE|syscall.IN_ATTRIB); err != nil {
		t.Skip("no inotify watch:", err)
	}
	for range 10 {
		if !Held(path) {
			t.Fatal("not held")
		}
	}
	time.Sleep(20 * time.Millisecond)
	buf := make([]byte, 4096)
	if n, _ := syscall.Read(fd, buf); n > 0 {
		t.Fatalf("Held woke a watch of the dir (%d bytes of events)", n)
	}
}
