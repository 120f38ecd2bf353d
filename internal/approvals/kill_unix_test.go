//go:build unix

package approvals

import (
	"errors"
	"github.com/interceptor-dev/interceptor/internal/hooks"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const killHelperEnv = "APPROVALS_KILL_HELPER"

// TestHelperQueueWriter is the process TestSIGKILLLeavesWholeRecords kills:
// it queues and decides requests as fast as it can.
func TestHelperQueueWriter(t *testing.T) {
	dir := os.Getenv(killHelperEnv)
	if dir == "" {
		t.Skip("helper process only")
	}
	q := New(dir)
	for i := 0; ; i++ {
		r, err := q.Enqueue(Request{Tool: "k", Input: `{"i":1}`, Deadline: time.Now().Add(time.Hour)})
		if err != nil {
			t.Fatal(err)
		}
		if i%2 == 0 {
			q.Decide(r.ID, hooks.Decision{Allow: true, By: "helper"})
		}
	}
}

// TestSIGKILLLeavesWholeRecords: a writer killed at any point (between the
// rename into open/ and the one into history/ included) leaves every record
// whole, in one place, decided at most once; the queue goes on working.
func TestSIGKILLLeavesWholeRecords(t *testing.T) {
	if testing.Short() {
		t.Skip("kills processes")
	}
	q := newStore(t)
	if err := q.ensure(); err != nil {
		t.Fatal(err)
	}
	for round := 0; round < 12; round++ {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperQueueWriter$")
		cmd.Env = append(os.Environ(), killHelperEnv+"="+q.StateDir)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(30+round*7) * time.Millisecond)
		cmd.Process.Kill()
		cmd.Wait()
	}
	seen := map[string]string{}
	for _, d := range []string{"open", "history"} {
		entries, err := os.ReadDir(filepath.Join(q.Dir(), d))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			id, ok := strings.CutSuffix(e.Name(), ".json")
			if !ok {
				continue // a killed writer's temp file: never read as a record
			}
			if prev, dup := seen[id]; dup {
				t.Errorf("%s is in %s/ and %s/", id, prev, d)
			}
			seen[id] = d
			if _, err := readRequest(filepath.Join(q.Dir(), d, e.Name())); err != nil {
				t.Errorf("torn record: %v", err)
			}
		}
	}
	if len(seen) == 0 {
		t.Fatal("the helper wrote nothing")
	}
	rs, err := q.Pending()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		if _, err := q.Decide(r.ID, hooks.Decision{By: "t"}); err != nil {
			t.Errorf("decide %s after the kills: %v", r.ID, err)
		}
	}
	all, err := q.List(Filter{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range all {
		if r.Status == Pending {
			t.Errorf("%s still pending", r.ID)
		}
		if _, err := q.Decide(r.ID, hooks.Decision{Allow: true, By: "again"}); !errors.Is(err, ErrDecided) {
			t.Errorf("%s decided twice: %v", r.ID, err)
		}
	}
	t.Logf("%d records after 12 kills", len(all))
}
