package approvals

import (
	"context"
	"time"
)

// fallbackPoll is the wait between re-reads when the queue cannot be watched.
const fallbackPoll = 50 * time.Millisecond

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
