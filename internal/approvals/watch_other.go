//go:build !linux

package approvals

import (
	"context"
	"time"
)

// Without inotify, waits poll: 50 ms keeps the wake well under 100 ms.
const defaultPoll = fallbackPoll

type watcher struct{}

// WatchUnavailable says why waits poll when this system could watch: here
// waits always poll (inotify is Linux's), so nothing is amiss.
func WatchUnavailable() error { return nil }

func (s *Store) watch() (*watcher, error) { return watchDir(s.openDir()) }

func watchDir(string) (*watcher, error) { return &watcher{}, nil }

func (w *watcher) wait(ctx context.Context, poll time.Duration) error {
	return sleep(ctx, min(poll, fallbackPoll))
}

func (w *watcher) close() {}

// recordWatcher waits for one record: without inotify, a poll.
type recordWatcher struct{ watcher }

func watchRecord() *recordWatcher { return &recordWatcher{} }

func (w *recordWatcher) arm(string) {}
