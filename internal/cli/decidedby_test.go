package cli

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/interceptor-dev/interceptor/internal/approvals"
	"github.com/tidwall/gjson"
)

// checkDecider: decided_by names the deciding process (this one: the
// commands run in the test process) from what the kernel says, via the
// path it took, and never $USER.
func checkDecider(t *testing.T, r approvals.Request, via string) {
	t.Helper()
	want := fmt.Sprintf("%s (uid %d, pid %d, parent %d", via, os.Getuid(), os.Getpid(), os.Getppid())
	if !strings.HasPrefix(r.DecidedBy, want) || strings.Contains(r.DecidedBy, "forged") {
		t.Errorf("%s: decided_by %q, want it to start %q and not name $USER", r.ID, r.DecidedBy, want)
	}
	if exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", os.Getppid())); err == nil && !strings.Contains(r.DecidedBy, exe+": ") {
		t.Errorf("%s: decided_by %q lacks the parent's executable %s", r.ID, r.DecidedBy, exe)
	}
}

// TestDecidedByFactsWatch: approvals watch records the kernel's facts for
// an allow, a deny and a typed answer.
func TestDecidedByFactsWatch(t *testing.T) {
	t.Setenv("USER", "forged-supervisor")
	q := approvals.New(filepath.Join(t.TempDir(), "state"))
	pw, out, waitFor, done := startWatch(t, q)
	waitFor("watching for approval requests")
	r1, _ := q.Enqueue(approvals.Request{Tool: "mcp__wf__one", Input: `{}`, Deadline: time.Now().Add(time.Minute)})
	waitFor("[a]llow [d]eny")
	pw.Write([]byte("a"))
	waitFor(r1.ID + " allowed")
	r2, _ := q.Enqueue(approvals.Request{Tool: "mcp__wf__two", Input: `{}`, Deadline: time.Now().Add(time.Minute)})
	waitFor("new: " + r2.ID)
	for deadline := time.Now().Add(5 * time.Second); strings.Count(out.String(), "[a]llow [d]eny") < 2; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("watch does not ask about %s:\n%s", r2.ID, out.String())
		}
	}
	pw.Write([]byte("d\r"))
	waitFor(r2.ID + " denied")
	r3, _ := q.Enqueue(approvals.Request{Kind: approvals.KindInput, Mode: approvals.ModeHold, Tool: "ask_user", Input: `{}`, Deadline: time.Now().Add(time.Minute)})
	waitFor(r3.ID + " ask_user asks")
	pw.Write([]byte("yes\r"))
	waitFor(r3.ID + " answered")
	pw.Write([]byte("q"))
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{r1.ID, r2.ID, r3.ID} {
		r, _ := q.Get(id)
		checkDecider(t, r, "watch")
	}
}

// TestDecidedByFactsMCPSupervisor: `interceptor mcp --role supervisor`
// records the kernel's facts for respond's allow and answer.
func TestDecidedByFactsMCPSupervisor(t *testing.T) {
	t.Setenv("USER", "forged-supervisor")
	dir := filepath.Join(t.TempDir(), "state")
	q := approvals.New(dir)
	appr, _ := q.Enqueue(approvals.Request{Tool: "Bash", Input: `{}`, Deadline: time.Now().Add(time.Minute)})
	input, _ := q.Enqueue(approvals.Request{Kind: approvals.KindInput, Mode: approvals.ModePark, Tool: "ask_user", Input: `{}`, Deadline: time.Now().Add(time.Minute)})
	lines := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"respond","arguments":{"id":"` + appr.ID + `","allow":true}}}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"respond","arguments":{"id":"` + input.ID + `","answer":"yes"}}}` + "\n"
	inR, inW := io.Pipe()
	var out syncBuf
	var errb bytes.Buffer
	code := make(chan int, 1)
	go func() {
		code <- run([]string{"mcp", "--role", "supervisor", "--state-dir", dir}, &IO{In: inR, Out: &out, Err: &errb})
	}()
	io.WriteString(inW, lines)
	for deadline := time.Now().Add(5 * time.Second); strings.Count(out.String(), "\n") < 2 && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	inW.Close()
	if c := <-code; c != 0 {
		t.Fatalf("mcp exited %d: %s", c, errb.String())
	}
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		if r := gjson.Parse(l); r.Get("result.isError").Bool() || !r.Get("result").Exists() {
			t.Fatalf("respond: %s", l)
		}
	}
	for _, id := range []string{appr.ID, input.ID} {
		r, _ := q.Get(id)
		if r.Status != approvals.Allowed && r.Status != approvals.Answered {
			t.Fatalf("%s not decided: %+v", id, r)
		}
		checkDecider(t, r, "mcp supervisor")
	}
}
