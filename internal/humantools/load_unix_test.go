//go:build unix

package humantools

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/interceptor-dev/interceptor/internal/testfiles"
)

// A human tools file is read only when it is a regular file: a FIFO hung
// the proxy's start.
func TestLoadRefusesAFIFO(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tools.json")
	testfiles.HostileConfig(t, path, "fifo")
	done := make(chan error, 1)
	go func() { _, err := Load(path); done <- err }()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("Load took a FIFO")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Load hung on a FIFO")
	}
}
