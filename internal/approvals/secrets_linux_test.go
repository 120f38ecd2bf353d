//go:build linux

package approvals

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	"github.com/interceptor-dev/interceptor/internal/state"
)

// opened returns the names of the files in dir that fn opens (inotify
// IN_OPEN), the dir itself as ".".
func opened(t *testing.T, dir string, fn func()) []string {
	t.Helper()
	fd, err := syscall.InotifyInit1(syscall.IN_CLOEXEC | syscall.IN_NONBLOCK)
	if err != nil {
		t.Skipf("no inotify: %v", err)
	}
	defer syscall.Close(fd)
	if _, err := syscall.InotifyAddWatch(fd, dir, syscall.IN_OPEN); err != nil {
		t.Fatal(err)
	}
	fn()
	var names []string
	buf := make([]byte, 64<<10)
	for {
		n, err := syscall.Read(fd, buf)
		if n <= 0 || err != nil {
			return names
		}
		for off := 0; off+syscall.SizeofInotifyEvent <= n; {
			ev := (*syscall.InotifyEvent)(unsafe.Pointer(&buf[off]))
			name := strings.TrimRight(string(buf[off+syscall.SizeofInotifyEvent:off+syscall.SizeofInotifyEvent+int(ev.Len)]), "\x00")
			if name == "" {
				name = "."
			}
			names = append(names, name)
			off += syscall.SizeofInotifyEvent + int(ev.Len)
		}
	}
}

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
	got := opened(t, filepath.Join(dir, "tokens", "wf"), func() { sec = LoadSecrets(st, "A", "") })
	for _, name := range got {
		if name != state.SessionFile("A") && name != "current.json" {
			t.Errorf("LoadSecrets for session A opened %s (opened %v)", name, got)
		}
	}
	if len(sec.Held) != 1 || sec.Held[0] != "tok-A-0123456789abcdef" || len(sec.Others) != 1 || sec.Others[0] != "tok-D-0123456789abcdef" {
		t.Errorf("secrets: held %q, others %q", sec.Held, sec.Others)
	}
}
