package privfs

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
)

// TempPrefix starts the name of every temp file Prepare writes, unless
// WriteOptions.Temp names another: whoever lists a dir of such files
// (state's gc and inspection) knows a leftover by it.
const TempPrefix = ".tmp-"

// WriteOptions say how Prepare writes a file.
type WriteOptions struct {
	// Mode is the file's permissions, set whatever the umask (0: 0600).
	Mode fs.FileMode
	// Sync flushes the data to disk before the file is put in place, for
	// a record that must outlive a power loss (an approval, a child); the
	// token store does without (state.go says why).
	Sync bool
	// Temp starts the temp file's name ("": TempPrefix).
	Temp string
}

// Replacement is a file's new content, written in full to a temp file
// beside it (in its dir, so that the rename that puts it in place is
// atomic), not in place yet. Commit puts it there; Discard drops it.
type Replacement struct {
	tmp, path, what string
	o               WriteOptions
}

// WriteFile replaces path with data: a reader sees the old file or the new
// one, never a torn or empty one, and a symlink at path is replaced, not
// followed. what names the file in errors ("token file").
func WriteFile(path, what string, data []byte, o WriteOptions) error {
	r, err := Prepare(path, what, data, o)
	if err != nil {
		return err
	}
	return r.Commit()
}

// Prepare writes data to a new temp file in path's dir, with o's mode,
// closed (and synced with o.Sync), ready to replace path. A caller that
// must check something under a lock first writes before it takes the
// lock, and commits under it.
func Prepare(path, what string, data []byte, o WriteOptions) (*Replacement, error) {
	r := &Replacement{path: path, what: what, o: o}
	if err := r.write(data); err != nil {
		return nil, err
	}
	return r, nil
}

func (r *Replacement) write(data []byte) error {
	dir := filepath.Dir(r.path)
	f, err := os.CreateTemp(dir, cmp.Or(r.o.Temp, TempPrefix)+"*")
	if err != nil {
		return fmt.Errorf("%s %s: %w", r.what, r.path, err)
	}
	r.tmp = f.Name()
	fail := func(err error) error {
		f.Close()
		os.Remove(r.tmp)
		return fmt.Errorf("%s %s: %w", r.what, r.path, err)
	}
	// CreateTemp makes it 0600 less the umask; the mode asked for is set
	// exactly (Windows has no such bits).
	mode := r.o.Mode
	if mode == 0 {
		mode = 0o600
	}
	if err := f.Chmod(mode); err != nil && runtime.GOOS != "windows" && !errors.Is(err, errors.ErrUnsupported) {
		return fail(err)
	}
	if _, err := f.Write(data); err != nil {
		return fail(err)
	}
	if r.o.Sync {
		if err := f.Sync(); err != nil {
			return fail(err)
		}
	}
	if err := f.Close(); err != nil {
		os.Remove(r.tmp)
		return fmt.Errorf("%s %s: %w", r.what, r.path, err)
	}
	return nil
}

// Also is a Replacement with the same content for another file, path, of
// the same dir: a hard link to r's temp file where the file system has
// them (no second write), else a second copy of data.
func (r *Replacement) Also(path string, data []byte) (*Replacement, error) {
	also := &Replacement{tmp: r.tmp + ".also", path: path, what: r.what, o: r.o}
	if err := os.Link(r.tmp, also.tmp); err == nil {
		return also, nil
	}
	if err := also.write(data); err != nil {
		return nil, err
	}
	return also, nil
}

// Commit puts the new content in place: the temp file is renamed over
// the file. A failed Commit discards it.
func (r *Replacement) Commit() error {
	if err := os.Rename(r.tmp, r.path); err != nil {
		r.Discard()
		return fmt.Errorf("%s %s: %w", r.what, r.path, err)
	}
	r.tmp = "" // in place: nothing left to discard
	return nil
}

// Discard removes the temp file, if it is not in place already.
func (r *Replacement) Discard() {
	if r.tmp != "" {
		os.Remove(r.tmp)
		r.tmp = ""
	}
}

// Rename moves the file or dir from to to by one rename: a reader finds it
// whole at one path or the other. Both must be in the same file system (a
// move between two dirs of one private dir); what names it in the error.
func Rename(from, to, what string) error {
	if err := os.Rename(from, to); err != nil {
		return fmt.Errorf("moving %s %s to %s: %w", what, from, to, err)
	}
	return nil
}
