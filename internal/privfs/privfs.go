// Package privfs holds the checks that keep a per-user private directory
// private: the token store and the approval queue both refuse a dir or file
// that is a symlink, open to group or others, or owned by someone else, and
// read files without following links or blocking on a FIFO.
package privfs

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// ReadFile reads a private file of at most max bytes through OpenFile. A
// missing file is fs.ErrNotExist, unwrapped.
func ReadFile(path, what string, max int) ([]byte, error) {
	f, err := OpenFile(path, what)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, int64(max)+1))
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", what, path, err)
	}
	if len(data) > max {
		return nil, fmt.Errorf("%s %s: larger than %d bytes", what, path, max)
	}
	return data, nil
}

// CheckDir refuses a state dir that is a symlink, not a directory, reachable
// by group or others, or owned by someone else: any of those would let
// another user read or plant tokens. A missing dir is fs.ErrNotExist.
func CheckDir(path string) error {
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

// CheckLockFile refuses a lock path that is a symlink or not a regular file,
// so taking the lock can never create or truncate a file elsewhere.
func CheckLockFile(path string) error {
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
