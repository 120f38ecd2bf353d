package approvals

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/interceptor-dev/interceptor/internal/privfs"
)

// How records are written, without one lock for the whole queue (a burst
// of 300 approve hooks on two cores queued behind it and 43 were denied:
// issue 29). See doc.go for the layout.
//
//   - A new request is written whole to a temp file in approvals/ (not
//     open/: its watchers must not wake for it), synced, and hard-linked
//     into open/ under its fresh id: a link never replaces a file, so even
//     a colliding id cannot overwrite another request. No lock is taken.
//   - A change of one record (a decision, an expiry, an answer) holds that
//     record's lock only (approvals/<id>.lock, removed by its holder), reads
//     the record under it, and writes the new one by rename. Two changes
//     of one record exclude each other (exactly one decision wins); changes
//     of two records do not wait for each other.
//   - Every change also holds approvals/.lock shared, which writers that
//     take it whole exclude: the one-dir layout's migration, and the
//     versions before this one, which changed every record under it
//     exclusively. A hook of an older binary still waiting during an
//     upgrade thus never races a decision of this one.

const tempPrefix = privfs.TempPrefix

// lockRecord runs fn holding request id's own lock (and the queue lock
// shared: see above). fn reads the record itself, under the lock.
func (s *Store) lockRecord(id string, fn func() error) error {
	unshare, err := privfs.LockShared(filepath.Join(s.Dir(), lockName), "approval queue", s.LockTimeout)
	if err != nil {
		return err
	}
	defer unshare()
	unlock, err := privfs.LockRemoved(s.recordLockPath(id), "approval request", s.LockTimeout)
	if err != nil {
		return err
	}
	defer unlock()
	return fn()
}

func (s *Store) recordLockPath(id string) string { return filepath.Join(s.Dir(), id+".lock") }

// locked runs fn holding the whole queue's lock exclusively: no change of
// any record runs meanwhile. Only the migration takes it.
func (s *Store) locked(fn func() error) error {
	return privfs.Locked(filepath.Join(s.Dir(), lockName), "approval queue", s.LockTimeout, fn)
}

// stage writes data to a new temp file in the queue dir (synced: a record
// must outlive a power loss) and returns its path. The queue dir, open/
// and history/ are one file system, so a rename or link from it is atomic.
func (s *Store) stage(data []byte) (string, error) {
	f, err := os.CreateTemp(s.Dir(), tempPrefix+"*")
	if err != nil {
		return "", fmt.Errorf("approval record: %w", err)
	}
	fail := func(err error) (string, error) {
		f.Close()
		os.Remove(f.Name())
		return "", fmt.Errorf("approval record %s: %w", f.Name(), err)
	}
	// CreateTemp makes it 0600 less the umask: set it exactly.
	if err := f.Chmod(0o600); err != nil && runtime.GOOS != "windows" {
		return fail(err)
	}
	if _, err := f.Write(data); err != nil {
		return fail(err)
	}
	if err := f.Sync(); err != nil {
		return fail(err)
	}
	if err := f.Close(); err != nil {
		os.Remove(f.Name())
		return "", fmt.Errorf("approval record %s: %w", f.Name(), err)
	}
	return f.Name(), nil
}

// errIDTaken: a new request's id names a record there is already.
var errIDTaken = errors.New("approval id taken")

// publish puts a new request's staged record in open/ under id, never
// over another record: errIDTaken when id is in open/ or history/.
func (s *Store) publish(tmp, id string) error {
	if _, err := os.Lstat(s.historyPath(id)); err == nil {
		return errIDTaken
	}
	err := os.Link(tmp, s.openPath(id))
	switch {
	case err == nil:
		os.Remove(tmp)
		return nil
	case errors.Is(err, fs.ErrExist):
		return errIDTaken
	}
	// A file system without hard links: a rename, after a look. Only two
	// processes making the same id in the same microsecond (48 random
	// bits each) could meet between the look and the rename.
	if _, lerr := os.Lstat(s.openPath(id)); lerr == nil {
		return errIDTaken
	}
	return privfs.Rename(tmp, s.openPath(id), "approval record")
}

// write stores a changed record (the caller holds its lock): a temp file
// renamed over open/<id>.json, then, for a request no longer open, that
// file renamed into history/. Each step is one rename, so a reader finds
// the record whole in one of the two dirs; the first wakes the waiters (the
// record's own waiter watches its file, views watch open/). A writer killed
// between the two leaves a closed record in open/, which reads right and is
// moved on by the next Pending (retire).
func (s *Store) write(r Request) error {
	data, err := encode(r)
	if err != nil {
		return err
	}
	tmp, err := s.stage(data)
	if err != nil {
		return err
	}
	if err := privfs.Rename(tmp, s.openPath(r.ID), "approval record"); err != nil {
		os.Remove(tmp)
		return err
	}
	if !r.open() {
		// The change is made: a record that cannot move stays in open/,
		// read right, and retire tries again.
		privfs.Rename(s.openPath(r.ID), s.historyPath(r.ID), "approval record")
	}
	return nil
}

// leftoverAge is how old a temp file in the queue dir must be before
// Prune takes it for a killed writer's: a live writer's lives for
// milliseconds.
const leftoverAge = time.Hour

// sweep removes what killed processes left in the queue dir: temp files of
// writers (older than leftoverAge) and record locks nobody holds. It
// returns how many went.
func (s *Store) sweep(now time.Time) int {
	entries, err := os.ReadDir(s.Dir())
	if err != nil {
		return 0
	}
	n := 0
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, tempPrefix) && e.Type().IsRegular() {
			if fi, err := e.Info(); err == nil && now.Sub(fi.ModTime()) > leftoverAge && os.Remove(filepath.Join(s.Dir(), name)) == nil {
				n++
			}
			continue
		}
		if id, ok := strings.CutSuffix(name, ".lock"); ok && validID(id) {
			// Taken and let go: the holder's unlock removes the file.
			if unlock, err := privfs.LockRemoved(s.recordLockPath(id), "approval request", 50*time.Millisecond); err == nil {
				unlock()
				n++
			}
		}
	}
	return n
}
