//go:build windows

package privfs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// On Windows the per-user profile directory's ACL keeps other users out;
// Unix permission bits mean nothing there, so only links and types are checked.

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
	return nil
}

func OpenFile(path, what string) (*os.File, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fs.ErrNotExist
		}
		return nil, fmt.Errorf("%s %s: %w", what, path, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s %s is not a regular file (%s)", what, path, fi.Mode().Type())
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", what, path, err)
	}
	return f, nil
}

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
