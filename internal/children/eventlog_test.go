package children

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"
)

// TestEventsFindsTheirLine: reading from any seq, with a limit or not,
// with the remembered offset or by bisection, gives the events a whole
// read gives, past lines that are not events (earlier versions appended
// onto torn tails) and long lines, and not a torn tail.
func TestEventsFindsTheirLine(t *testing.T) {
	s, _ := testStore(t)
	chat := deadRunnerChat(t, s, "big", RunnerInfo{RunnerPID: 1 << 22, Started: time.Now()})
	var b strings.Builder
	const n = 3000
	for i := 0; i < n; i++ {
		text := fmt.Sprint("event ", i)
		if i%701 == 5 {
			text = strings.Repeat("long ", 20000) // lines longer than a read
		}
		line, err := Event{Seq: i, Time: time.Now(), Event: fmt.Sprintf(`{"type":"content","text":%q}`, text)}.JSON()
		if err != nil {
			t.Fatal(err)
		}
		b.WriteString(line + "\n")
		if i%997 == 3 {
			b.WriteString(`{"seq":99999,"ti{"seq":` + fmt.Sprint(i) + "\n") // garbage
		}
	}
	b.WriteString(`{"seq":3000,"time":"torn`) // a torn tail
	if err := os.WriteFile(chat.path(eventsFile), []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	if total, err := chat.Total(); err != nil || total != n {
		t.Fatalf("total %d %v", total, err)
	}
	check := func(from, limit int) {
		t.Helper()
		evs, err := chat.Events(from, limit)
		if err != nil {
			t.Fatal(err)
		}
		want := max(min(n-from, limit), 0)
		if limit == 0 {
			want = max(n-from, 0)
		}
		if len(evs) != want {
			t.Fatalf("Events(%d, %d): %d events, want %d", from, limit, len(evs), want)
		}
		for i, e := range evs {
			if e.Seq != from+i || !strings.Contains(e.Event, `"event `+fmt.Sprint(from+i)+`"`) && !strings.Contains(e.Event, "long long") {
				t.Fatalf("Events(%d, %d)[%d] = seq %d %.60s", from, limit, i, e.Seq, e.Event)
			}
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 200; i++ {
		check(rng.IntN(n+5), rng.IntN(4))
	}
	// Paging on, as a long poll does: each read starts where the last one
	// stopped.
	for from := 0; from < n; from += 7 {
		check(from, 7)
	}
	check(n, 0)
	check(0, 0)
	// The next append cuts the torn tail off and goes on from the last seq.
	if seq, err := chat.Append(`{"type":"content","text":"next"}`); err != nil || seq != n {
		t.Fatalf("append after a torn tail: seq %d %v", seq, err)
	}
	if evs, err := chat.Events(n-1, 0); err != nil || len(evs) != 2 || evs[1].Seq != n || !strings.Contains(evs[1].Event, "next") {
		t.Fatalf("after the append: %+v %v", evs, err)
	}
}
