package state

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/interceptor-dev/interceptor/internal/token"
)

// TestHistory: each session keeps its own tokens newest first, bounded, so a
// stand-in for an older token can still be resolved.
func TestHistory(t *testing.T) {
	s := newStore(t)
	for i := range 3 {
		mustPut(t, s, Record{Token: tok(fmt.Sprint("a", i)), Server: "wf", Session: "A"})
		mustPut(t, s, Record{Token: tok(fmt.Sprint("b", i)), Server: "wf", Session: "B"})
	}
	a := mustGet(t, s, "wf", "A").Held()
	if want := (token.Held{tok("a2"), tok("a1"), tok("a0")}); !slices.Equal(a, want) {
		t.Fatalf("A holds %d tokens %v, want a2 a1 a0", len(a), short(a))
	}
	// The current token is the last writer's, with that session's history.
	if cur := mustGet(t, s, "wf", "").Held(); !slices.Equal(cur, token.Held{tok("b2"), tok("b1"), tok("b0")}) {
		t.Fatalf("current holds %v", short(cur))
	}
	for i := 3; i < token.MaxHeld+5; i++ {
		mustPut(t, s, Record{Token: tok(fmt.Sprint("a", i)), Server: "wf", Session: "A"})
	}
	a = mustGet(t, s, "wf", "A").Held()
	if len(a) != token.MaxHeld || a[0] != tok(fmt.Sprint("a", token.MaxHeld+4)) {
		t.Fatalf("A holds %d tokens, newest %q", len(a), a[0][:12])
	}
	// Deleting the session forgets its history too.
	if err := s.Delete("wf", "A"); err != nil {
		t.Fatal(err)
	}
	wantNotFound(t, s, "wf", "A")
	mustPut(t, s, Record{Token: tok("fresh"), Server: "wf", Session: "A"})
	if a := mustGet(t, s, "wf", "A").Held(); len(a) != 1 {
		t.Fatalf("a new session after Delete inherited %d tokens", len(a))
	}
}

// TestHistoryConcurrentWriters: writers racing on one session lose none of
// each other's tokens from the history (the read-modify-write is checked
// under the lock).
func TestHistoryConcurrentWriters(t *testing.T) {
	s := newStore(t)
	const writers = 24
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for i := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- s.Put(Record{Token: tok(fmt.Sprint("w", i)), Server: "wf", Session: "S"})
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	held := mustGet(t, s, "wf", "S").Held()
	for i := range writers {
		if !slices.Contains(held, tok(fmt.Sprint("w", i))) {
			t.Errorf("token of writer %d lost from the history (%d held)", i, len(held))
		}
	}
}

func TestLongSessionRefused(t *testing.T) {
	s := newStore(t)
	long := strings.Repeat("s", MaxSessionLen+1)
	if err := s.Put(Record{Token: tok("x"), Server: "wf", Session: long}); err == nil || !strings.Contains(err.Error(), "session id is") {
		t.Fatalf("Put with a %d-byte session = %v", len(long), err)
	}
	if _, err := s.Get("wf", long); err == nil || !strings.Contains(err.Error(), "session id is") {
		t.Fatalf("Get with a %d-byte session = %v", len(long), err)
	}
	// The longest accepted id is stored and read back.
	ok := strings.Repeat("s", MaxSessionLen)
	mustPut(t, s, Record{Token: tok("y"), Server: "wf", Session: ok})
	if got := mustGet(t, s, "wf", ok); got.Token != tok("y") {
		t.Fatalf("got %q", got.Token)
	}
}

func short(h token.Held) []string {
	out := make([]string, len(h))
	for i, t := range h {
		out[i] = t[4:8]
	}
	return out
}
