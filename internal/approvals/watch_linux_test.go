//go:build linux

package approvals

import (
	"errors"
	"os"
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
