package approvals

import (
	"context"
	"time"
)

// DirWatcher wakes on changes of one directory: files created, renamed in,
// or closed after writing (inotify on Linux, a poll elsewhere). Other
// packages with file-based state (interceptor children's event logs) wait
// on it the way the queue's waiters do.
type DirWatcher struct{ w *watcher }

// WatchDir starts watching dir, which must exist.
func WatchDir(dir string) (*DirWatcher, error) {
	w, err := watchDir(dir)
	if err != nil {
		return nil, err
	}
	return &DirWatcher{w: w}, nil
}

// Wait returns after a change, after poll at the latest, or with ctx's
// error. Re-read what you wait for after it returns: events carry nothing.
func (d *DirWatcher) Wait(ctx context.Context, poll time.Duration) error {
	return d.w.wait(ctx, poll)
}

// Close stops the watch.
func (d *DirWatcher) Close() { d.w.close() }
