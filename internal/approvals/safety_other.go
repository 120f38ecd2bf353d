//go:build !unix

package approvals

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// checkDir refuses a symlink or a non-directory. Windows has no Unix modes;
// the dir lives in the user's profile.
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
	return nil
}

func openFile(path string) (*os.File, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fs.ErrNotExist
		}
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("approval record %s is not a regular file", path)
	}
	return os.Open(path)
}

func checkLockFile(path string) error {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("lock file %s is not a regular file; refusing to use it", path)
	}
	return nil
}
