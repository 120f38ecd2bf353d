//go:build linux

package state

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

const putLimitedEnv = "STATE_TEST_PUT_LIMITED" // state dir|file size limit

// TestHelperPutLimited stores a new token for session A under a file size
// limit and prints what Put said.
func TestHelperPutLimited(t *testing.T) {
	v := os.Getenv(putLimitedEnv)
	if v == "" {
		t.Skip("helper process only")
	}
	dir, limit, _ := strings.Cut(v, "|")
	n, _ := strconv.ParseUint(limit, 10, 64)
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: n, Max: n}); err != nil {
		fmt.Println("setrlimit:", err)
		os.Exit(3)
	}
	fmt.Println("PUT:", New(dir).Put(Record{Token: tok("NEW-AND-MUCH-LONGER-" + strings.Repeat("x", 400)), Server: "wf", Session: "A"}))
}

// TestFullDiskKeepsTheOldToken: a capture that cannot write its token (a
// file size limit in a subprocess, as on a full disk: test/reliability's
// TestFullDisk fills a tmpfs, which needs root) fails with one line naming
// the file, leaves the session's and the current token whole and readable,
// and leaves no temp file; the next capture with room stores.
func TestFullDiskKeepsTheOldToken(t *testing.T) {
	s := seeded(t)
	dir := s.serverDir("wf")
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperPutLimited$", "-test.count=1")
	cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s|%d", putLimitedEnv, s.Dir, 200))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("helper: %v\n%s", err, out)
	}
	said := ""
	for _, l := range strings.Split(string(out), "\n") {
		if r, ok := strings.CutPrefix(l, "PUT: "); ok {
			said = r
		}
	}
	if !strings.Contains(said, "file too large") || !strings.Contains(said, dir) || strings.Contains(said, "NEW-AND") {
		t.Errorf("a capture on a full disk said %q; want one error naming the dir and the write error, without the token", said)
	}
	t.Logf("the capture said: %s", said)
	for _, session := range []string{"A", ""} {
		if got := mustGet(t, s, "wf", session); got.Token != tok("A") {
			t.Errorf("after the failed write, session %q holds %.30q, want the old token whole", session, got.Token)
		}
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), tempPrefix) {
			t.Errorf("the failed write left %s", filepath.Join(dir, e.Name()))
		}
	}
	mustPut(t, s, Record{Token: tok("B"), Server: "wf", Session: "A"})
	if got := mustGet(t, s, "wf", "A"); got.Token != tok("B") {
		t.Errorf("with room again: %.30q", got.Token)
	}
}
