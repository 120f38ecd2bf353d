package watch

import (
	"context"
	"io"
	"path/filepath"
	"testing"
	"time"

	"github.com/interceptor-dev/interceptor/internal/approvals"
)

// TestApprovalsWatchRawTerminal: in raw mode Ctrl-C reaches watch as a key
// (it quits; termio's TestCRLF: every newline is written as CRLF).
func TestApprovalsWatchRawTerminal(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	done := make(chan error, 1)
	go func() {
		done <- Run(context.Background(), approvals.New(filepath.Join(t.TempDir(), "state")), pr, io.Discard)
	}()
	pw.Write([]byte{3}) // and stdin stays open
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Ctrl-C did not quit watch")
	}
}
