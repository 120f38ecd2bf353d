//go:build linux

package testfiles

import (
	"strings"
	"syscall"
	"testing"
	"unsafe"
)

// Opened returns the names of the files in dir that fn opens (inotify
// IN_OPEN), the dir itself as ".".
func Opened(t *testing.T, dir string, fn func()) []string {
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
