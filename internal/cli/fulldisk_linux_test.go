//go:build linux

package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/interceptor-dev/interceptor/internal/approvals"
	"github.com/tidwall/gjson"
)

// fileLimitEnv runs TestHelperUnderFileLimit: RLIMIT_FSIZE|JSON args. A
// write past the limit fails with EFBIG (Go ignores SIGXFSZ), as a write
// to a full disk fails with ENOSPC; a pipe (stdout) is not limited.
const fileLimitEnv = "FULLDISK_TEST_RUN"

// TestHelperUnderFileLimit runs the interceptor command line it is given
// under a file size limit, with the test's stdin, stdout and stderr.
func TestHelperUnderFileLimit(t *testing.T) {
	v := os.Getenv(fileLimitEnv)
	if v == "" {
		t.Skip("helper process only")
	}
	limit, argv, _ := strings.Cut(v, "|")
	n, _ := strconv.ParseUint(limit, 10, 64)
	var args []string
	if err := json.Unmarshal([]byte(argv), &args); err != nil {
		fmt.Fprintln(os.Stderr, "helper args:", err)
		os.Exit(3)
	}
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: n, Max: n}); err != nil {
		fmt.Fprintln(os.Stderr, "setrlimit:", err)
		os.Exit(3)
	}
	os.Exit(run(args, &IO{In: os.Stdin, Out: os.Stdout, Err: os.Stderr, Exit: os.Exit}))
}

// underFileLimit runs interceptor args in a process that cannot write a
// file past limit bytes.
func underFileLimit(t *testing.T, limit int, stdin []byte, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	a, _ := json.Marshal(args)
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperUnderFileLimit$", "-test.count=1")
	cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%d|%s", fileLimitEnv, limit, a))
	cmd.Stdin = bytes.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

// TestApprovalsFailClosedOnAFullDisk: when the queue cannot be written,
// nothing runs unasked (a held promise of issue 22's review, which filled a
// small tmpfs; here a file size limit makes the writes fail the same way).
//   - The approve hook that cannot queue its request denies the call, in
//     the client's shape, exit 0, one stderr line; no request is left.
//   - One that queued its request but cannot record its expiry denies, even
//     with --on-timeout allow.
//   - A supervisor's allow that cannot be written is reported and not
//     applied: the request stays pending, and the waiting hook denies at
//     its timeout.
func TestApprovalsFailClosedOnAFullDisk(t *testing.T) {
	payload := fixtureFile(t, "claude-code.PreToolUse.text.json")
	deny := `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"interceptor approve failed, so the call is denied: `
	pending := func(dir string) []approvals.Request {
		rs, err := approvals.New(dir).List(approvals.Filter{})
		if err != nil {
			t.Fatalf("the queue after the full disk: %v", err)
		}
		return rs
	}

	t.Run("queue", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "state")
		out, errs, code := underFileLimit(t, 0, payload, "approve", "--state-dir", dir, "--timeout", "30s", "--on-timeout", "allow")
		if code != 0 || !strings.HasPrefix(out, deny) || !strings.Contains(out, "file too large") || strings.Count(out, "\n") != 1 {
			t.Fatalf("approve with no room to queue: exit %d, stdout %q; want a deny naming the write error", code, out)
		}
		if strings.Count(errs, "\n") != 1 || !strings.Contains(errs, "(call denied)") {
			t.Errorf("stderr %q, want one line saying the call was denied", errs)
		}
		t.Logf("approve: %s", out)
		if rs := pending(dir); len(rs) != 0 {
			t.Errorf("a request that could not be written is in the queue: %+v", rs)
		}
		if left, _ := os.ReadDir(filepath.Join(dir, "approvals", "open")); len(left) != 0 {
			t.Errorf("the failed write left %v in open/", left)
		}
	})

	t.Run("expiry", func(t *testing.T) {
		// The pending record fits, the expired one (decided_by, decided_at)
		// does not: measure the pending one first.
		probe := filepath.Join(t.TempDir(), "state")
		wait := startApprove(t, probe, payload, "--timeout", "30s")
		id := pendingIDs(t, probe, 1)[0]
		fi, err := os.Stat(filepath.Join(probe, "approvals", "open", id+".json"))
		if err != nil {
			t.Fatal(err)
		}
		cli(t, "approvals", "deny", id, "--state-dir", probe)
		wait()
		limit := int(fi.Size()) + 16 // room for a longer pid in origin
		dir := filepath.Join(t.TempDir(), "state")
		start := time.Now()
		out, errs, code := underFileLimit(t, limit, payload, "approve", "--state-dir", dir, "--timeout", "1s", "--on-timeout", "allow")
		if code != 0 || !strings.HasPrefix(out, deny) || !strings.Contains(out, "file too large") {
			t.Fatalf("approve that cannot record its expiry: exit %d, stdout %q, stderr %q; want a deny", code, out, errs)
		}
		if d := time.Since(start); d < time.Second {
			t.Errorf("the hook answered after %s, before its timeout: its request was not queued, so this checks nothing", d)
		}
		t.Logf("approve (limit %d bytes): %s", limit, out)
		rs := pending(dir)
		if len(rs) != 1 || rs[0].Status != approvals.Pending {
			t.Errorf("the queue holds %+v; want the one request, still pending (its expiry was not written)", rs)
		}
	})

	t.Run("decision", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "state")
		wait := startApprove(t, dir, payload, "--timeout", "3s")
		id := pendingIDs(t, dir, 1)[0]
		out, errs, code := underFileLimit(t, 0, nil, "approvals", "allow", id, "--state-dir", dir)
		if code != 1 || !strings.Contains(out+errs, "file too large") {
			t.Errorf("approvals allow with no room: exit %d, %q %q; want exit 1 naming the write error", code, out, errs)
		}
		if r, err := approvals.New(dir).Get(id); err != nil || r.Status != approvals.Pending {
			t.Errorf("after an allow that could not be written the request is %s (%v); want pending", r.Status, err)
		}
		t.Logf("approvals allow: exit %d, %s", code, strings.TrimSpace(out+errs))
		hook, _, code := wait()
		if code != 0 || gjson.Get(hook, "hookSpecificOutput.permissionDecision").Str != "deny" || !strings.Contains(hook, "no supervisor decided") {
			t.Fatalf("the waiting hook answered %q; want a deny at its timeout", hook)
		}
	})
}
