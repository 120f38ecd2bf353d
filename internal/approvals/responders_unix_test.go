//go:build unix

package approvals

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/interceptor-dev/interceptor/internal/hooks"
)

const responderEnv = "APPROVALS_RESPONDER" // state dir|request id|responder number|start (unix ns)

// TestHelperResponder is one process of TestThirtyRespondersDecideOnce: it
// waits for the common start, decides the request (even numbers allow, odd
// deny), and prints what the queue said.
func TestHelperResponder(t *testing.T) {
	v := os.Getenv(responderEnv)
	if v == "" {
		t.Skip("helper process only")
	}
	f := strings.Split(v, "|")
	n, _ := strconv.Atoi(f[2])
	at, _ := strconv.ParseInt(f[3], 10, 64)
	time.Sleep(time.Until(time.Unix(0, at)))
	q := New(f[0])
	q.LockTimeout = 20 * time.Second // 30 processes on 2 cores: wait for the lock, never give up on it
	_, err := q.Decide(f[1], hooks.Decision{Allow: n%2 == 0, Reason: fmt.Sprint("responder ", n), By: fmt.Sprint("responder ", n)})
	switch {
	case err == nil:
		fmt.Println("RESULT won")
	case errors.Is(err, ErrDecided):
		fmt.Println("RESULT already decided")
	default:
		fmt.Println("RESULT error:", err)
	}
}

// TestThirtyRespondersDecideOnce: 30 processes decide one pending request
// at the same moment, half allowing, half denying. Exactly one decision is
// recorded; the other 29 are told the request was decided already; the
// waiting hook sees the one recorded; and the record is whole, in history/
// only (issue 22: a held promise of the review, which ran 30 concurrent
// responders).
func TestThirtyRespondersDecideOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("starts 30 processes")
	}
	const responders = 30
	q := newStore(t)
	r := enqueue(t, q, "mcp__wf__next_step")
	waited := make(chan Request, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		got, err := q.Wait(ctx, r.ID)
		if err != nil {
			t.Error(err)
		}
		waited <- got
	}()
	startAt := time.Now().Add(1500 * time.Millisecond).UnixNano() // after every process has started
	outs := make([]string, responders)
	var wg sync.WaitGroup
	for i := range responders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(os.Args[0], "-test.run=^TestHelperResponder$", "-test.count=1")
			cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s|%s|%d|%d", responderEnv, q.StateDir, r.ID, i, startAt))
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Errorf("responder %d: %v\n%s", i, err, out)
			}
			outs[i] = string(out)
		}()
	}
	wg.Wait()
	winner := -1
	for i, out := range outs {
		switch {
		case strings.Contains(out, "RESULT won"):
			if winner >= 0 {
				t.Errorf("responders %d and %d both decided the request", winner, i)
			}
			winner = i
		case strings.Contains(out, "RESULT already decided"):
		default:
			t.Errorf("responder %d: %s", i, out)
		}
	}
	if winner < 0 {
		t.Fatal("no responder decided the request")
	}
	want := map[bool]Status{true: Allowed, false: Denied}[winner%2 == 0]
	got, err := q.Get(r.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != want || got.DecidedBy != fmt.Sprint("responder ", winner) || got.Reason != fmt.Sprint("responder ", winner) {
		t.Errorf("recorded %s by %q (%q); the winner was responder %d (%s)", got.Status, got.DecidedBy, got.Reason, winner, want)
	}
	select {
	case w := <-waited:
		if w.Status != got.Status || w.DecidedBy != got.DecidedBy {
			t.Errorf("the waiting hook saw %s by %q, the record says %s by %q", w.Status, w.DecidedBy, got.Status, got.DecidedBy)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the waiting hook never saw the decision")
	}
	if _, err := os.Stat(filepath.Join(q.Dir(), "open", r.ID+".json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the decided request is still in open/ (%v)", err)
	}
	if _, err := readRequest(filepath.Join(q.Dir(), "history", r.ID+".json")); err != nil {
		t.Errorf("the record in history/: %v", err)
	}
}
