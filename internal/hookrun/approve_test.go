package hookrun

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/interceptor-dev/interceptor/internal/approvals"
)

// syncBuf is a bytes.Buffer safe to read while a hook writes it.
type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) { s.mu.Lock(); defer s.mu.Unlock(); return s.b.Write(p) }
func (s *syncBuf) String() string              { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

// TestApproveStdinWatchdog: a writer that never closes stdin gets a deny
// after the read deadline, not a hook that waits forever.
func TestApproveStdinWatchdog(t *testing.T) {
	old := readDeadline
	readDeadline = 200 * time.Millisecond
	defer func() { readDeadline = old }()
	pr, pw := io.Pipe()
	defer pw.Close()
	pw2 := make(chan struct{})
	go func() { pw.Write([]byte(`{"session_id":"s",`)); close(pw2) }()
	var out, errb syncBuf
	exited := make(chan int, 1)
	io := &IO{In: pr, Out: &out, Err: &errb, Exit: func(c int) { exited <- c }}
	f := &ApproveFlags{Client: "codex", StateDir: t.TempDir(), Rules: approvals.Rules{Timeout: time.Minute, OnTimeout: "deny"}}
	go func() {
		if err := Approve(io, f); err != nil {
			fmt.Fprintf(&errb, "interceptor: %s\n", OneLine(err.Error()))
		}
	}()
	select {
	case c := <-exited:
		if c != 0 {
			t.Fatalf("exit %d", c)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("approve still waits for stdin")
	}
	<-pw2
	if !strings.Contains(out.String(), `"permissionDecision":"deny"`) || !strings.Contains(out.String(), "gave up reading the event on stdin after 200ms") {
		t.Fatalf("stdout %q, want a deny", out.String())
	}
	if strings.Count(errb.String(), "\n") != 1 {
		t.Fatalf("stderr %q, want one line", errb.String())
	}
}
