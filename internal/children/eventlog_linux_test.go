//go:build linux

package children

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/interceptor-dev/interceptor/internal/privfs"
	"github.com/tidwall/gjson"
)

// fsizeEnv runs a helper (or a runner) under RLIMIT_FSIZE of that many
// bytes: a write past it is cut short, the rest fails with EFBIG (Go
// ignores SIGXFSZ), as on a full disk.
const fsizeEnv = "CHILDREN_TEST_FSIZE"

func init() {
	helperMain = func() bool {
		if v := os.Getenv(fsizeEnv); v != "" {
			n, _ := strconv.ParseUint(v, 10, 64)
			if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: n, Max: n}); err != nil {
				fmt.Fprintln(os.Stderr, "setrlimit:", err)
				os.Exit(3)
			}
		}
		if len(os.Args) != 4 || os.Args[1] != "append-limited" {
			return false // a runner (TestMain goes on) or the tests
		}
		chat, err := New(os.Args[2]).Chat(os.Args[3])
		if err == nil {
			_, err = chat.Append(`{"type":"content","text":"` + strings.Repeat("x", 4096) + `"}`)
		}
		fmt.Println(err)
		os.Exit(0)
		return true
	}
}

// appendLimited appends one 4 KiB event to chat from a process whose file
// size limit is limit: the write is cut short. It returns the error the
// append reported.
func appendLimited(t *testing.T, s *Store, chat *Chat, limit int64) string {
	t.Helper()
	exe, _ := os.Executable()
	cmd := exec.Command(exe, "append-limited", s.StateDir, chat.ID)
	cmd.Env = append(os.Environ(), fsizeEnv+"="+strconv.FormatInt(limit, 10))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("helper: %v: %s", err, out)
	}
	return strings.TrimSpace(string(out))
}

// TestTornAppendKeepsTheLogReadable: an append cut short by a file size
// limit leaves a partial line; the next append used to land on it, and from
// then on every read failed ("event log line 2 is not valid JSON"). Now the
// next append cuts the torn tail off first, and the chat still ends failed
// exactly once.
func TestTornAppendKeepsTheLogReadable(t *testing.T) {
	s, q := testStore(t)
	chat := deadRunnerChat(t, s, "torn", RunnerInfo{RunnerPID: 1 << 22, Started: time.Now()})
	if _, err := chat.Append(`{"type":"start","chat":"x"}`); err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(chat.path(eventsFile))
	if got := appendLimited(t, s, chat, st.Size()+100); !strings.Contains(got, "file too large") {
		t.Fatalf("the limited append reported %q, want EFBIG", got)
	}
	if now, _ := os.Stat(chat.path(eventsFile)); now.Size() != st.Size()+100 {
		t.Fatalf("the log is %d bytes, want a torn write to %d", now.Size(), st.Size()+100)
	}
	// Later appends, and the chat's end (its runner is gone), from here.
	if _, err := chat.Append(`{"type":"content","text":"after"}`); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		if st, err := chat.State(); err != nil || st != Failed {
			t.Fatalf("state: %s %v", st, err)
		}
	}
	evs, err := chat.Events(0, 0)
	if err != nil {
		t.Fatalf("the log is unreadable after a torn write: %v", err)
	}
	var types []string
	for i, e := range evs {
		if e.Seq != i {
			t.Errorf("event %d has seq %d", i, e.Seq)
		}
		types = append(types, gjson.Get(e.Event, "type").Str)
	}
	if got := strings.Join(types, " "); got != "start content complete" {
		t.Errorf("events: %s (one complete, the torn one gone)", got)
	}
	out, err := pollJSON(t.Context(), s, q, PollRequest{ChatID: chat.ID})
	if err != nil || gjson.Get(out, "status").Str != "failed" || gjson.Get(out, "total_events").Int() != 3 {
		t.Fatalf("poll: %s %v", out, err)
	}
}

// TestRunnerEndsAChatItCannotRecord: a runner whose log hits a file size
// limit mid-chat ends the client, and the chat ends failed exactly once,
// saying why, with every event readable.
func TestRunnerEndsAChatItCannotRecord(t *testing.T) {
	s, q := testStore(t)
	pathDir, _ := fakeClaude(t, "claude-code-chat1.jsonl")
	c := newChild(t, s, "limited", pathDir, map[string]string{"FAKE_SLEEP": "30"})
	t.Setenv(fsizeEnv, "6000")
	chat, err := s.StartChat(c.ID, "hello")
	if err != nil {
		t.Fatal(err)
	}
	os.Unsetenv(fsizeEnv)
	evs, statuses := pollUntilDone(t, s, q, chat.ID)
	checkSeqs(t, evs)
	completes := 0
	for _, e := range evs {
		if e.Get("event.type").Str == "complete" {
			completes++
			if e.Get("event.status").Str != "failed" || !strings.Contains(e.Get("event.error").Str, "could not be recorded") {
				t.Errorf("the end says %s", e.Raw)
			}
		}
	}
	t.Logf("%d events; the end: %s", len(evs), evs[len(evs)-1].Raw)
	if completes != 1 || statuses[len(statuses)-1] != "failed" {
		t.Fatalf("%d complete events, statuses %v", completes, statuses)
	}
	// The child takes its next chat.
	next, err := s.StartChat(c.ID, "again")
	if err != nil {
		t.Fatalf("the next chat: %v", err)
	}
	if st, err := s.Cancel(next.ID); err != nil || st != Failed {
		t.Fatalf("cancel: %s %v", st, err)
	}
}

// TestIdleLongPollSleeps: a long poll on a running chat with nothing new
// waits without working. It used to spin a core: each loop's check of the
// runner opened its lock file read-write, and closing it woke the poll's
// own watch of the chat dir (52,655 wakes in an idle 10 s poll).
func TestIdleLongPollSleeps(t *testing.T) {
	s, q := testStore(t)
	chat := deadRunnerChat(t, s, "idle", RunnerInfo{RunnerPID: os.Getpid(), Started: time.Now()})
	unlock, ok, err := privfs.TryLock(chat.path(runnerLock), "runner")
	if !ok || err != nil {
		t.Fatalf("runner lock: %v %v", ok, err)
	}
	defer unlock()
	if _, err := chat.Append(`{"type":"start"}`); err != nil {
		t.Fatal(err)
	}
	cpu := func() time.Duration {
		var ru syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	const wait = 1500 * time.Millisecond
	before, start := cpu(), time.Now()
	out, err := pollJSON(t.Context(), s, q, PollRequest{ChatID: chat.ID, FromSeq: 1, Wait: wait})
	used, took := cpu()-before, time.Since(start)
	if err != nil || gjson.Get(out, "status").Str != "running" || gjson.Get(out, "events.#").Int() != 0 {
		t.Fatalf("poll: %s %v", out, err)
	}
	t.Logf("idle poll of %s used %s of CPU", took.Round(time.Millisecond), used)
	if took < wait {
		t.Errorf("the poll returned after %s, before its wait", took)
	}
	if used > wait/10 {
		t.Errorf("an idle poll of %s used %s of CPU: it spins", took.Round(time.Millisecond), used)
	}
}
