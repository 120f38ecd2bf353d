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
func checkOwnerMode(string, string, fs.FileInfo, string) error { return nil }

func OpenFile(path, what string) (*os.File, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fs.ErrNotExist
		}
		return nil, fmt.Errorf("%s %s: %w", what, path, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, notRegular(what, path, fi)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", what, path, err)
	}
	return f, nil
}

// openNonblocking opens path for reading, following links.
func openNonblocking(path string) (*os.File, error) { return os.Open(path) }

// noFollow: Windows opens have no such flag; links are checked by Lstat.
const noFollow = 0
