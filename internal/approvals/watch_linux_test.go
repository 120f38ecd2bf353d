//go:build linux

package approvals

import (
	"context"
	"errors"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/interceptor-dev/interceptor/internal/hooks"
)

// TestWaiterWakesForItsOwnRecordOnly: the watch a waiter sets on its
// record stays silent while other requests are queued, decided and
// answered, and fires when its own record is decided (issue 29 item 11:
// every waiter watched open/ and re-read on each change, 300 waiters on
// each of 300 decisions).
func TestWaiterWakesForItsOwnRecordOnly(t *testing.T) {
	q := newStore(t)
	mine := enqueue(t, q, "mine")
	w := watchRecord()
	defer w.close()
	if w.f == nil {
		t.Skip("no inotify here")
	}
	w.arm(q.openPath(mine.ID))
	for range 20 {
		other := enqueue(t, q, "other")
		if _, err := q.Decide(other.ID, hooks.Decision{Allow: true, By: "t"}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := q.Get(mine.ID); err != nil { // reading wakes nobody
		t.Fatal(err)
	}
	var buf [4096]byte
	w.f.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
	if n, err := w.f.Read(buf[:]); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("the waiter woke for other requests: %d bytes of events, %v", n, err)
	}
	if _, err := q.Decide(mine.ID, hooks.Decision{Allow: true, By: "t"}); err != nil {
		t.Fatal(err)
	}
	w.f.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := w.f.Read(buf[:]); err != nil {
		t.Fatalf("the waiter did not wake for its own decision: %v", err)
	}
}

// TestNoInotifyLeft: with the user's inotify instances used up, the queue
// says why (WatchUnavailable, which doctor and the long-running commands
// print), and a waiter still sees its decision, by polling.
func TestNoInotifyLeft(t *testing.T) {
	if err := WatchUnavailable(); err != nil {
		t.Skipf("no inotify here: %v", err)
	}
	orig := inotifyInit
	t.Cleanup(func() { inotifyInit = orig })
	inotifyInit = func() (int, error) { return -1, syscall.EMFILE }

	err := WatchUnavailable()
	if err == nil || !errors.Is(err, syscall.EMFILE) || !strings.Contains(err.Error(), "max_user_instances") {
		t.Fatalf("WatchUnavailable with no instance left: %v", err)
	}
	q := newStore(t)
	q.Poll = time.Hour // the fallback polls every 50 ms whatever Poll says
	r := enqueue(t, q, "t")
	allowLater(t, q, r.ID, 100*time.Millisecond)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if got, err := q.Wait(ctx, r.ID); err != nil || got.Status != Allowed {
		t.Fatalf("wait without inotify: %+v %v", got, err)
	}
}
