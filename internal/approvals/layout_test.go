package approvals

import (
	"errors"
	"github.com/interceptor-dev/interceptor/internal/hooks"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// legacy writes a record where the one-dir layout kept it:
// approvals/<id>.json.
func legacy(t *testing.T, q *Store, r Request) Request {
	t.Helper()
	if err := os.MkdirAll(q.Dir(), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(q.StateDir, 0o700); err != nil {
		t.Fatal(err)
	}
	id, _ := newID(r.Created)
	r.ID = id
	if err := os.WriteFile(filepath.Join(q.Dir(), id+".json"), []byte(r.JSON()+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return r
}

func names(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

// TestMigratesTheOneDirLayout: records of the one-dir layout are moved on
// first use, open ones to open/, the rest to history/, and read as before.
func TestMigratesTheOneDirLayout(t *testing.T) {
	q := newStore(t)
	now := time.Now()
	pend := legacy(t, q, Request{Tool: "p", Status: Pending, Created: now, Deadline: now.Add(time.Hour), Input: "{}"})
	done := legacy(t, q, Request{Tool: "d", Status: Allowed, Created: now, DecidedBy: "x", DecidedAt: now, Input: "{}"})
	parked := legacy(t, q, Request{Tool: "h", Kind: KindInput, Mode: ModePark, Status: Answered, Answer: "yes", Session: "S", Created: now, Input: "{}"})

	rs, err := q.List(Filter{Pending: true})
	if err != nil || len(rs) != 1 || rs[0].ID != pend.ID {
		t.Fatalf("pending after migration: %+v %v", rs, err)
	}
	if got := names(t, filepath.Join(q.Dir(), "open")); !slices.Equal(got, sortedNames(pend.ID, parked.ID)) {
		t.Errorf("open/ holds %v", got)
	}
	if got := names(t, filepath.Join(q.Dir(), "history")); !slices.Equal(got, []string{done.ID + ".json"}) {
		t.Errorf("history/ holds %v", got)
	}
	for _, n := range names(t, q.Dir()) {
		if strings.HasSuffix(n, ".json") || n == stagingDir {
			t.Errorf("left in approvals/: %s", n)
		}
	}
	if got, err := q.Get(done.ID); err != nil || got.Status != Allowed {
		t.Errorf("decided record after migration: %+v %v", got, err)
	}
	// The parked answer is still delivered, once.
	got, err := q.TakeAnswers(func(r Request) bool { return r.Session == "S" }, "test")
	if err != nil || len(got) != 1 || got[0].ID != parked.ID {
		t.Fatalf("take answers after migration: %+v %v", got, err)
	}
	if all, _ := q.List(Filter{}); len(all) != 3 {
		t.Errorf("list --all after migration: %d records", len(all))
	}
}

func sortedNames(ids ...string) []string {
	var out []string
	for _, id := range ids {
		out = append(out, id+".json")
	}
	slices.Sort(out)
	return out
}

// TestPendingReadsNoHistory: pending, the prompt hook's delivery and a
// history page never open a decided record they do not return. A decided
// record that cannot be read stands for the whole history here: the old
// one-dir queue read every record on each pending, so one broke them all.
func TestPendingReadsNoHistory(t *testing.T) {
	q := newStore(t)
	old := enqueue(t, q, "old")
	if _, err := q.Decide(old.ID, hooks.Decision{By: "t"}); err != nil {
		t.Fatal(err)
	}
	var newer []string
	for i := 0; i < 3; i++ {
		r := enqueue(t, q, "newer")
		if _, err := q.Decide(r.ID, hooks.Decision{By: "t"}); err != nil {
			t.Fatal(err)
		}
		newer = append(newer, r.ID)
	}
	live := enqueue(t, q, "live")
	// The oldest decided record turns unreadable.
	path := filepath.Join(q.Dir(), "history", old.ID+".json")
	if err := os.WriteFile(path, []byte("{torn"), 0o600); err != nil {
		t.Fatal(err)
	}
	if rs, err := q.List(Filter{Pending: true}); err != nil || len(rs) != 1 || rs[0].ID != live.ID {
		t.Fatalf("pending with an unreadable decided record: %+v %v", rs, err)
	}
	if _, err := q.TakeAnswers(func(Request) bool { return true }, "t"); err != nil {
		t.Fatalf("delivery read the history: %v", err)
	}
	page, err := q.History(2, "")
	if err != nil || len(page.Requests) != 2 || page.Requests[0].ID != newer[2] || page.Requests[1].ID != newer[1] || page.Next != newer[1] {
		t.Fatalf("history page: %+v %v", page, err)
	}
	// The next page reaches the unreadable one, and says so.
	if _, err := q.History(2, page.Next); err == nil || !strings.Contains(err.Error(), old.ID) {
		t.Fatalf("second page: %v", err)
	}
	if rs, err := q.List(Filter{Limit: 2}); err != nil || len(rs) != 2 || rs[0].ID != newer[2] || rs[1].ID != live.ID {
		t.Fatalf("list --all --limit 2: %+v %v", rs, err)
	}
}

// TestStaleAndLeftoversLeaveOpen: pending moves a request whose waiter is
// gone to the history as expired, and a decided record a killed writer left
// in open/ (between write's two renames) reads as decided and moves on too.
func TestStaleAndLeftoversLeaveOpen(t *testing.T) {
	q := newStore(t)
	now := time.Now()
	stale, err := q.Enqueue(Request{Tool: "gone", Deadline: now.Add(-time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	left := enqueue(t, q, "left")
	// What a writer killed after its first rename leaves: a decided record
	// in open/.
	r := left
	r.Status, r.DecidedBy, r.DecidedAt = Allowed, "t", now
	if err := q.locked(func() error {
		data, _ := encode(r)
		return os.WriteFile(q.openPath(r.ID), data, 0o600)
	}); err != nil {
		t.Fatal(err)
	}
	if got, err := q.Get(left.ID); err != nil || got.Status != Allowed {
		t.Fatalf("leftover reads %+v %v", got, err)
	}
	if _, err := q.Decide(left.ID, hooks.Decision{Allow: false}); !errors.Is(err, ErrDecided) {
		t.Fatalf("leftover decided again: %v", err)
	}
	if rs, err := q.Pending(); err != nil || len(rs) != 0 {
		t.Fatalf("pending: %+v %v", rs, err)
	}
	if got := names(t, filepath.Join(q.Dir(), "open")); len(got) != 0 {
		t.Errorf("open/ still holds %v", got)
	}
	got, err := q.Get(stale.ID)
	if err != nil || got.Status != Expired || !got.DecidedAt.Equal(stale.Deadline) {
		t.Errorf("stale request: %+v %v", got, err)
	}
	if got, _ := q.Get(left.ID); got.Status != Allowed {
		t.Errorf("leftover after retire: %+v", got)
	}
}

// TestQueueDirsChecked: open/ and history/ are held to the queue dir's
// rules (a 0755 one is refused), and a history/ removed by hand is made
// again without hiding what is open.
func TestQueueDirsChecked(t *testing.T) {
	q := newStore(t)
	live := enqueue(t, q, "live")
	for _, d := range []string{"open", "history"} {
		dir := filepath.Join(q.Dir(), d)
		if err := os.Chmod(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if _, err := q.Pending(); err == nil || !strings.Contains(err.Error(), d) {
			t.Errorf("pending with %s/ open to others: %v", d, err)
		}
		if _, err := q.Enqueue(Request{Tool: "x"}); err == nil {
			t.Errorf("enqueue with %s/ open to others accepted", d)
		}
		os.Chmod(dir, 0o700)
	}
	if err := os.RemoveAll(filepath.Join(q.Dir(), "history")); err != nil {
		t.Fatal(err)
	}
	if rs, err := q.Pending(); err != nil || len(rs) != 1 || rs[0].ID != live.ID {
		t.Fatalf("pending without history/: %+v %v", rs, err)
	}
	if _, err := q.Decide(live.ID, hooks.Decision{By: "t"}); err != nil {
		t.Fatal(err)
	}
	if got, err := q.Get(live.ID); err != nil || got.Status != Denied {
		t.Fatalf("decided after history/ came back: %+v %v", got, err)
	}
}
