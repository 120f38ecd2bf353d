package reliability

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/interceptor-dev/interceptor/internal/state"
)

// crashToken is the token of iteration i: long and self-identifying, so a
// torn read or a mix of two writes cannot pass for a good one.
func crashToken(i int) string {
	return fmt.Sprintf("crash-%06d-", i) + mkToken("crash"+strconv.Itoa(i))
}

// crashIndex returns i for exactly crashToken(i), else -1.
func crashIndex(tok string) int {
	if len(tok) < 13 || !strings.HasPrefix(tok, "crash-") {
		return -1
	}
	i, err := strconv.Atoi(tok[6:12])
	if err != nil || crashToken(i) != tok {
		return -1
	}
	return i
}

// TestCrashConsistency SIGKILLs writers (capture, and token set) at random
// points while readers keep reading, through the store's reader and through
// `token show --reveal`. Every read sees the previous token or the new one,
// complete; never nothing, a torn token or an older one. A killed writer
// never blocks the next one. Leftover temp files are counted, and must never
// be read as tokens.
func TestCrashConsistency(t *testing.T) {
	iters := pick(150, 3000)
	parent := privateDir(t, false) // a real disk: the kill lands in fsyncs
	dir := filepath.Join(parent, "state")
	const session = "crash-session"
	c := clientNamed(t, "codex")
	capArgs := hookArgs("capture", dir)
	setArgs := []string{"token", "set", "--state-dir", dir, "--server", server, "--session", session}

	hookOK(t, run(t, c.post(t, session, crashToken(0)), runOpts{}, capArgs...), 0)

	// Calibrate: how long does an unkilled write take here?
	var cal []time.Duration
	for i := 1; i <= 10; i++ {
		r := run(t, c.post(t, session, crashToken(i)), runOpts{}, capArgs...)
		hookOK(t, r, 0)
		cal = append(cal, r.took)
	}
	slices.Sort(cal)
	window := cal[len(cal)/2] * 3 / 2

	var landed, landedCur atomic.Int64 // index known to be on disk (session, current)
	var attempted atomic.Int64         // highest index any writer has started
	landed.Store(10)
	landedCur.Store(10)
	attempted.Store(10)
	var stop atomic.Bool
	var reads, showReads, badReads atomic.Int64
	var mu sync.Mutex
	var firstBad []string
	bad := func(format string, args ...any) {
		badReads.Add(1)
		mu.Lock()
		if len(firstBad) < 10 {
			firstBad = append(firstBad, fmt.Sprintf(format, args...))
		}
		mu.Unlock()
	}
	check := func(who string, tok string, err error, floor, ceil int64) {
		switch {
		case err != nil:
			bad("%s: %v", who, err)
		case crashIndex(tok) < 0:
			bad("%s: torn or foreign token %.40q (%d bytes)", who, tok, len(tok))
		case int64(crashIndex(tok)) < floor:
			bad("%s: read token %d after token %d had landed", who, crashIndex(tok), floor)
		case int64(crashIndex(tok)) > ceil:
			bad("%s: read token %d before it was written", who, crashIndex(tok))
		}
	}

	var wg sync.WaitGroup
	st := state.New(dir)
	for r := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				for _, sess := range []string{session, ""} {
					floor := landed.Load()
					if sess == "" {
						floor = landedCur.Load()
					}
					rec, err := st.Get(server, sess)
					check(fmt.Sprintf("reader %d (session %q)", r, sess), rec.Token, err, floor, attempted.Load())
					reads.Add(1)
				}
			}
		}()
	}
	wg.Add(1)
	go func() { // a human running `token show --reveal` now and then
		defer wg.Done()
		for !stop.Load() {
			floor := landed.Load()
			res, err := runErr(nil, runOpts{}, "token", "show", "--state-dir", dir, "--server", server, "--session", session, "--reveal")
			if err != nil {
				bad("token show: %v", err)
				continue
			}
			tok := ""
			for _, l := range strings.Split(res.stdout, "\n") {
				if v, ok := strings.CutPrefix(l, "session_token: "); ok {
					tok = v
				}
			}
			var e error
			if res.code != 0 {
				e = errors.New(strings.TrimSpace(res.stderr))
			}
			check("token show", tok, e, floor, attempted.Load())
			showReads.Add(1)
			time.Sleep(5 * time.Millisecond)
		}
	}()

	rng := rand.New(rand.NewPCG(1, uint64(iters)))
	var killed, finished, keptOld, tookNew, split, unkilledChecks int
	var maxUnkilled time.Duration
	prev, prevCur := int64(10), int64(10)
	for i := 11; i < 11+iters; i++ {
		tok := crashToken(i)
		attempted.Store(int64(i))
		var stdin []byte
		args := capArgs
		if i%3 == 0 {
			stdin, args = []byte(tok+"\n"), setArgs
		} else {
			stdin = c.post(t, session, tok)
		}
		if i%25 == 0 {
			// An unkilled write between crashes: it must land at once, so
			// no crash left anything (a lock) in the way.
			r := run(t, stdin, runOpts{}, args...)
			if r.code != 0 || r.stdout != "" || (args[0] != "token" && r.stderr != "") {
				t.Fatalf("unkilled write after crashes failed\n%s", r)
			}
			maxUnkilled = max(maxUnkilled, r.took)
			unkilledChecks++
		} else {
			delay := time.Duration(rng.Int64N(int64(window)))
			r, err := runErr(stdin, runOpts{started: func(p *os.Process) {
				time.Sleep(delay)
				p.Signal(syscall.SIGKILL)
			}}, args...)
			if err != nil {
				t.Fatal(err)
			}
			if r.killed {
				killed++
			} else {
				finished++
			}
		}
		now := storeGet(t, dir, session)
		idx := int64(crashIndex(now))
		switch idx {
		case int64(i):
			tookNew++
		case prev:
			keptOld++
		default:
			t.Fatalf("iteration %d: after the kill the session holds token %d; want %d (old) or %d (new)", i, idx, prev, i)
		}
		// Put renames the session file, then current: a kill between the two
		// leaves current one write behind (each file whole). Counted.
		cur := int64(crashIndex(storeGet(t, dir, "")))
		switch {
		case cur == int64(i) && idx != int64(i):
			t.Fatalf("iteration %d: current has the new token, the session file %d: current was renamed first", i, idx)
		case cur != prevCur && cur != int64(i):
			t.Fatalf("iteration %d: current holds token %d; want %d (old) or %d (new)", i, cur, prevCur, i)
		case cur != idx:
			split++
		}
		prev, prevCur = idx, cur
		landed.Store(idx)
		landedCur.Store(cur)
	}
	stop.Store(true)
	wg.Wait()
	for _, b := range firstBad {
		t.Error(b)
	}
	if n := badReads.Load(); n > 0 {
		t.Errorf("%d bad reads", n)
	}

	// Leftover temp files: counted, never listed as tokens.
	temps := countFiles(dir, ".tmp-")
	recs, errs := state.New(dir).List("")
	if len(errs) != 0 || len(recs) != 2 {
		t.Errorf("after the crashes List found %d records and errors %v; want the session and current", len(recs), errs)
	}
	r := run(t, nil, runOpts{}, "token", "show", "--state-dir", dir, "--all", "--reveal")
	if r.code != 0 || strings.Count(r.stdout, "session_token: crash-") != 2 {
		t.Errorf("token show --all after the crashes\n%s", r)
	}
	t.Logf("%d writes (capture and token set) on a real disk, SIGKILLed at random within %v: %d killed, %d finished first, %d unkilled checks (max %v); after each: %d kept the old token, %d had the new one; (after %d of the %d iterations, current was still behind the session file), 0 torn; readers: %d store reads + %d `token show --reveal`, %d bad; %d .tmp-* files left, none listed as tokens",
		iters, window.Round(time.Microsecond), killed, finished, unkilledChecks, maxUnkilled.Round(time.Millisecond), keptOld, tookNew, split, iters, reads.Load(), showReads.Load(), badReads.Load(), temps)
}
