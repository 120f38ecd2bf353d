//go:build unix

package approvals

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// checkDir refuses a dir that is a symlink, not a directory, open to group
// or others, or owned by someone else: another user could read requests or
// plant decisions. The same rules as the token store's.
func checkDir(path string) error {
	fi, err := os.Lstat(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("state dir %s: %w", path, fs.ErrNotExist)
		}
		return fmt.Errorf("state dir %s: %w", path, err)
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return fmt.Errorf("state dir %s is a symlink; refusing to follow it", path)
	}
	if !fi.IsDir() {
		return fmt.Errorf("state dir %s is not a directory", path)
	}
	return checkOwnerMode("state dir", path, fi, "700")
}

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

// openFile opens a record without following a symlink or blocking on a
// FIFO, and checks it is a private regular file.
func openFile(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) {
			return nil, fmt.Errorf("approval record %s is a symlink; refusing to follow it", path)
		}
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fs.ErrNotExist
		}
		return nil, fmt.Errorf("approval record %s: %w", path, err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("approval record %s is not a regular file (%s)", path, fi.Mode().Type())
	}
	if err := checkOwnerMode("approval record", path, fi, "600"); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// checkLockFile refuses a lock path that is a symlink or not a regular file.
func checkLockFile(path string) error {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("lock file %s: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("lock file %s is not a regular file (%s); refusing to use it", path, fi.Mode().Type())
	}
	return nil
}
