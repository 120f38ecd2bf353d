//go:build !linux

package approvals

import (
	"context"
	"time"
)

// Without inotify, waits poll: 50 ms keeps the wake well under 100 ms.
const defaultPoll = fallbackPoll

type watcher struct{}

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
