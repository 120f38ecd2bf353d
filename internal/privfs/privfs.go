// Package privfs holds the checks that keep a per-user private directory
// private: the token store and the approval queue both refuse a dir or file
// that is a symlink, open to group or others, or owned by someone else, and
// read files without following links or blocking on a FIFO. ReadRegular is
// the bounded reader of the files that are not private (the clients'
// configs): regular files only, never blocking, at most so many bytes.
//
// It is also the one way files are written, moved and locked: WriteFile
// and Prepare replace a file whole through a temp file beside it, Rename
// moves one (replace.go); Lock and Locked take a lock file in a blocking
// flock with a timeout, TryLock without waiting, and Held asks, read-only,
// whether someone holds one (lock.go).
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
	return readBounded(f, path, what, max)
}

// ReadRegular reads a file that need not be private, such as a client's
// config, following symlinks (a config may be a link into a dotfiles repo):
// only a regular file of at most max bytes, opened without blocking on a
// FIFO or device and checked on the open descriptor, so a link swapped in
// between the checks is refused too. A symlink to /dev/zero would otherwise
// grow the reader without bound, and a FIFO hang it. mode is the file's
// permissions; a missing file is an error for which errors.Is(err,
// fs.ErrNotExist) (and os.IsNotExist) holds. Every error names the file.
func ReadRegular(path, what string, max int) (data []byte, mode fs.FileMode, err error) {
	f, fi, err := openRegular(path, what)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	if fi.Size() > int64(max) {
		return nil, 0, tooLarge(what, path, max)
	}
	data, err = readBounded(f, path, what, max)
	return data, fi.Mode().Perm(), err
}

// openRegular opens path, following links, for ReadRegular: a path that
// is not a regular file is refused before it is opened (opening a device
// can act on it), and again on the descriptor, which openNonblocking keeps
// from blocking on a FIFO swapped in between.
func openRegular(path, what string) (*os.File, fs.FileInfo, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, nil, notRegular(what, path, fi)
	}
	f, err := openNonblocking(path)
	if err != nil {
		return nil, nil, err
	}
	if fi, err = f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		if err != nil {
			return nil, nil, fmt.Errorf("%s %s: %w", what, path, err)
		}
		return nil, nil, notRegular(what, path, fi)
	}
	return f, fi, nil
}

// readBounded reads f, which is path, whole; more than max bytes is an
// error.
func readBounded(f *os.File, path, what string, max int) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(f, int64(max)+1))
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", what, path, err)
	}
	if len(data) > max {
		return nil, tooLarge(what, path, max)
	}
	return data, nil
}

func tooLarge(what, path string, max int) error {
	return fmt.Errorf("%s %s is larger than %d bytes; refusing to read it", what, path, max)
}

// notRegular refuses a file of another type, saying which.
func notRegular(what, path string, fi fs.FileInfo) error {
	kind := fi.Mode().Type().String()
	switch t := fi.Mode().Type(); {
	case t&fs.ModeNamedPipe != 0:
		kind = "a FIFO"
	case t&fs.ModeDevice != 0:
		kind = "a device"
	case t&fs.ModeSocket != 0:
		kind = "a socket"
	case t&fs.ModeDir != 0:
		kind = "a directory"
	}
	return fmt.Errorf("%s %s is not a regular file (%s); refusing to read it", what, path, kind)
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
