//go:build unix

package privfs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// checkOwnerMode refuses a file or dir open to group or others, or owned by
// another user.
func checkOwnerMode(what, path string, fi fs.FileInfo, fix string) error {
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		return fmt.Errorf("%s %s has mode %04o, open to group or others; run: chmod %s %s", what, path, perm, fix, path)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		if uid := os.Geteuid(); int(st.Uid) != uid {
			return fmt.Errorf("%s %s is owned by uid %d, not by you (uid %d); refusing to use it", what, path, st.Uid, uid)
		}
	}
	return nil
}

// OpenFile opens a private file (what names it in errors, e.g. "token
// file") for reading without following a symlink and
// without blocking on a FIFO, then checks it is a private regular file.
func OpenFile(path, what string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) {
			return nil, fmt.Errorf("%s %s is a symlink; refusing to follow it", what, path)
		}
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fs.ErrNotExist
		}
		return nil, fmt.Errorf("%s %s: %w", what, path, err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s %s: %w", what, path, err)
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, notRegular(what, path, fi)
	}
	if err := checkOwnerMode(what, path, fi, "600"); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// openNonblocking opens path for reading, following links; O_NONBLOCK
// keeps the open (and a read) from blocking on a FIFO.
func openNonblocking(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
}

// noFollow keeps an open from following a symlink.
const noFollow = syscall.O_NOFOLLOW
