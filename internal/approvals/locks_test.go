package approvals

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/interceptor-dev/interceptor/internal/hooks"
	"github.com/interceptor-dev/interceptor/internal/privfs"
)

// TestNoQueueWideLock: adding a request takes no lock, and a change of one
// request waits only for that request's lock (issue 29 item 11: every
// enqueue and decision queued behind approvals/.lock, and a burst of 300
// hooks was denied for it). The queue lock held whole (an older version's
// writer, a migration) still keeps every change out.
func TestNoQueueWideLock(t *testing.T) {
	q := newStore(t)
	q.LockTimeout = 200 * time.Millisecond
	a, b := enqueue(t, q, "a"), enqueue(t, q, "b")

	// One request's lock held: the other is decided at once, and a new
	// request goes in.
	unlock, err := privfs.LockRemoved(q.recordLockPath(a.ID), "test", time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := q.Decide(b.ID, hooks.Decision{Allow: true, By: "t"}); err != nil {
		t.Fatalf("deciding b while a is locked: %v", err)
	}
	if _, err := q.Decide(a.ID, hooks.Decision{Allow: true, By: "t"}); err == nil || !strings.Contains(err.Error(), "still held") {
		t.Fatalf("deciding a while its lock is held: %v", err)
	}
	unlock()
	if _, err := q.Decide(a.ID, hooks.Decision{Allow: true, By: "t"}); err != nil {
		t.Fatalf("deciding a after: %v", err)
	}

	// The whole queue locked: requests still go in; changes wait.
	unlock, err = privfs.Lock(filepath.Join(q.Dir(), lockName), "test", time.Second)
	if err != nil {
		t.Fatal(err)
	}
	// The lock stays held throughout: an Enqueue that waited for it would
	// give up with "still held", so the error alone proves it did not wait
	// (a 200 ms wall-clock bound here is what a loaded CI machine breaks).
	c, err := q.Enqueue(Request{Tool: "c", Deadline: time.Now().Add(time.Minute)})
	if err != nil {
		t.Fatalf("enqueue while the queue lock is held: %v", err)
	}
	if _, err := q.Decide(c.ID, hooks.Decision{By: "t"}); err == nil || !strings.Contains(err.Error(), "still held") {
		t.Fatalf("a decision while the queue lock is held whole: %v", err)
	}
	unlock()
	if got, err := q.Get(c.ID); err != nil || got.Status != Pending {
		t.Fatalf("c after the refused decision: %+v %v", got, err)
	}
	// Nothing is left behind: no record lock, no temp file.
	entries, _ := os.ReadDir(q.Dir())
	for _, e := range entries {
		if n := e.Name(); n != openDir && n != historyDir && n != lockName {
			t.Errorf("left in the queue dir: %s", n)
		}
	}
}

// TestEnqueueNeverReplaces: a new request whose id is taken goes in under
// another id, never over the record there (the link that publishes it
// refuses an existing name).
func TestEnqueueNeverReplaces(t *testing.T) {
	q := newStore(t)
	if err := q.ensure(); err != nil {
		t.Fatal(err)
	}
	a := enqueue(t, q, "a")
	tmp, err := q.stage([]byte("{}"))
	if err != nil {
		t.Fatal(err)
	}
	defer os.Remove(tmp)
	if err := q.publish(tmp, a.ID); !errors.Is(err, errIDTaken) {
		t.Fatalf("publishing over an open record: %v", err)
	}
	if _, err := q.Decide(a.ID, hooks.Decision{By: "t"}); err != nil {
		t.Fatal(err)
	}
	if err := q.publish(tmp, a.ID); !errors.Is(err, errIDTaken) {
		t.Fatalf("publishing over a record in history: %v", err)
	}
	if got, err := q.Get(a.ID); err != nil || got.Status != Denied || got.Tool != "a" {
		t.Fatalf("a after: %+v %v", got, err)
	}
}

// TestPruneSweepsLeftovers: a killed writer's temp file (old enough) and a
// record lock nobody holds are removed by Prune; a held lock is not.
func TestPruneSweepsLeftovers(t *testing.T) {
	q := newStore(t)
	a, b := enqueue(t, q, "a"), enqueue(t, q, "b")
	old := filepath.Join(q.Dir(), tempPrefix+"killed")
	young := filepath.Join(q.Dir(), tempPrefix+"writing")
	for _, p := range []string{old, young, q.recordLockPath(a.ID)} {
		if err := os.WriteFile(p, nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	past := time.Now().Add(-2 * leftoverAge)
	os.Chtimes(old, past, past)
	unlock, err := privfs.LockRemoved(q.recordLockPath(b.ID), "test", time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	if n := q.sweep(time.Now()); n != 2 {
		t.Errorf("swept %d, want 2", n)
	}
	for p, want := range map[string]bool{old: false, young: true, q.recordLockPath(a.ID): false, q.recordLockPath(b.ID): true} {
		if _, err := os.Lstat(p); (err == nil) != want {
			t.Errorf("%s: exists %v, want %v", filepath.Base(p), err == nil, want)
		}
	}
}
