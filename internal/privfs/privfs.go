// Package privfs holds the checks that keep a per-user private directory
// private: the token store and the approval queue both refuse a dir or file
// that is a symlink, open to group or others, or owned by someone else, and
// read files without following links or blocking on a FIFO.
package privfs

import (
	"fmt"
	"io"
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
