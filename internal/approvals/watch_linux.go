//go:build linux

package approvals

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"
)

// With inotify a wait wakes on the rename that publishes a record; the poll
// only guards against a lost event (queue overflow).
const defaultPoll = time.Second

// watcher wakes on changes of the queue dir.
type watcher struct {
	f *os.File // the inotify fd, in Go's poller (deadlines work)
}

func (s *Store) watch() (*watcher, error) { return watchDir(s.openDir()) }

// inotifyInit makes an inotify instance; tests make it fail as a user's
// exhausted limit does.
var inotifyInit = func() (int, error) { return syscall.InotifyInit1(syscall.IN_CLOEXEC | syscall.IN_NONBLOCK) }

// WatchUnavailable says why waits on the queue would poll instead of
// waking on the file system, or nil (also where waits always poll). An
// inotify instance is per process and limited per user
// (fs.inotify.max_user_instances, often 128, shared with editors and
// browsers); when none is left, each waiter re-reads its record every
// 50 ms instead, and nothing else says so.
func WatchUnavailable() error {
	fd, err := inotifyInit()
	if err != nil {
		if errors.Is(err, syscall.EMFILE) {
			return fmt.Errorf("inotify: this user has no instance left (fs.inotify.max_user_instances; raise it with sysctl): %w", err)
		}
		return fmt.Errorf("inotify: %w", err)
	}
	syscall.Close(fd)
	return nil
}

func watchDir(dir string) (*watcher, error) {
	fd, err := inotifyInit()
	if err != nil {
		return &watcher{}, nil // no inotify (limits): fall back to polling
	}
	// Records appear and change only by rename (IN_MOVED_TO); removals
	// matter to nobody waiting.
	if _, err := syscall.InotifyAddWatch(fd, dir, syscall.IN_MOVED_TO|syscall.IN_CLOSE_WRITE|syscall.IN_CREATE); err != nil {
		syscall.Close(fd)
		if errors.Is(err, syscall.ENOENT) {
			return nil, err
		}
		return &watcher{}, nil
	}
	return &watcher{f: os.NewFile(uintptr(fd), "inotify")}, nil
}

// wait returns after a change, after poll, or with ctx's error.
func (w *watcher) wait(ctx context.Context, poll time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if w.f == nil {
		return sleep(ctx, min(poll, fallbackPoll))
	}
	deadline := time.Now().Add(poll)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	w.f.SetReadDeadline(deadline)
	stop := context.AfterFunc(ctx, func() { w.f.SetReadDeadline(time.Unix(1, 0)) })
	defer stop()
	var buf [4096]byte
	_, err := w.f.Read(buf[:]) // the events' content does not matter: re-read
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err != nil && !errors.Is(err, os.ErrDeadlineExceeded) {
		// A broken watch: keep going on the poll alone.
		w.f.Close()
		w.f = nil
	}
	return nil
}

// recordWatcher wakes when one record changes. A record changes by a
// rename over its file, or moves to history/: either way its inode loses a
// link (IN_ATTRIB) or moves (IN_MOVE_SELF), which wakes only the watches on
// that file. The waiter arms the watch on the file's current inode before
// each read (arm); reading files wakes nobody.
type recordWatcher struct {
	watcher
	fd int // the inotify fd, for inotify_add_watch; -1: none (poll)
}

func watchRecord() *recordWatcher {
	fd, err := inotifyInit()
	if err != nil {
		return &recordWatcher{fd: -1} // no inotify (limits): poll
	}
	return &recordWatcher{watcher: watcher{f: os.NewFile(uintptr(fd), "inotify")}, fd: fd}
}

// arm watches the file at path now. The watch on an inode that was
// replaced ends by itself; a path that does not exist (the record moved to
// history/) arms nothing, and the read that follows sees why.
func (w *recordWatcher) arm(path string) {
	if w.f == nil {
		return
	}
	const events = syscall.IN_ATTRIB | syscall.IN_DELETE_SELF | syscall.IN_MOVE_SELF | syscall.IN_MODIFY | syscall.IN_CLOSE_WRITE
	syscall.InotifyAddWatch(w.fd, path, events)
}

// close stops the watch in the background: closing an inotify instance
// waits for the kernel's RCU grace period (5 to 25 ms measured), which a
// woken waiter should not spend before it answers.
func (w *watcher) close() {
	if w.f != nil {
		go w.f.Close()
	}
}
