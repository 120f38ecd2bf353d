package children

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/interceptor-dev/interceptor/internal/approvals"
	"github.com/interceptor-dev/interceptor/internal/humantools"
	"github.com/tidwall/gjson"
)

// TestDeadRunnerSettlesItsChatOnce: a chat whose runner died is settled by
// whoever looks first, once, however many look at the same moment: 16
// readers (polls and status checks) all see it failed, the log gets exactly
// one complete event saying the runner died, the chat's pending approval is
// denied (its hook must not wait out its timeout), and a parked human
// question stays for the next chat (a held promise of issue 22's review).
func TestDeadRunnerSettlesItsChatOnce(t *testing.T) {
	// The race is short: run it on several chats.
	for round := range 10 {
		settleDeadChat(t, fmt.Sprint("gone-", round))
	}
}

func settleDeadChat(t *testing.T, name string) {
	t.Helper()
	s, q := testStore(t)
	chat := deadRunnerChat(t, s, name, RunnerInfo{RunnerPID: 1 << 22, Started: time.Now()}) // above pid_max: never alive
	if _, err := chat.Append(`{"type":"start","chat":"x"}`); err != nil {
		t.Fatal(err)
	}
	ask, err := q.Enqueue(approvals.Request{Client: "claude-code", Tool: "mcp__wf__next_step", Input: `{}`, Deadline: time.Now().Add(time.Hour), Chat: chat.ID})
	if err != nil {
		t.Fatal(err)
	}
	park := humantools.Tool{Name: "request_access", Description: "d", Mode: approvals.ModePark}
	question, err := (&humantools.Asker{Queue: q, Chat: chat.ID}).Call(context.Background(), park, `{}`)
	if err != nil {
		t.Fatal(err)
	}

	const readers = 16
	statuses := make([]string, readers)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			if i%2 == 0 {
				out, err := pollJSON(context.Background(), s, q, PollRequest{ChatID: chat.ID})
				if err != nil {
					t.Errorf("poll %d: %v", i, err)
				}
				statuses[i] = gjson.Get(out, "status").Str
				return
			}
			st, err := chat.State()
			if err != nil {
				t.Errorf("state %d: %v", i, err)
			}
			statuses[i] = string(st)
		}()
	}
	close(start)
	wg.Wait()
	for i, st := range statuses {
		if st != string(Failed) {
			t.Errorf("%s: reader %d saw %q, want failed", name, i, st)
		}
	}
	evs, err := chat.Events(0, 0)
	if err != nil {
		t.Fatal(err)
	}
	completes := 0
	for _, e := range evs {
		if gjson.Get(e.Event, "type").Str == "complete" {
			completes++
			if gjson.Get(e.Event, "status").Str != "failed" || !strings.Contains(gjson.Get(e.Event, "error").Str, "died") {
				t.Errorf("%s: the chat's end says %s", name, e.Event)
			}
		}
	}
	if completes != 1 {
		t.Errorf("%s: %d complete events after %d readers found the runner dead, want exactly 1", name, completes, readers)
	}
	if got, _ := q.Get(ask.ID); got.Status != approvals.Denied || !strings.Contains(got.Reason, "died") {
		t.Errorf("%s: the dead chat's pending approval is %s (%q), want denied saying why", name, got.Status, got.Reason)
	}
	if got, _ := q.Get(question.ID); got.Status != approvals.Pending {
		t.Errorf("%s: the chat's parked question is %s, want still pending (its answer goes to the next chat)", name, got.Status)
	}
}
