//go:build unix

package children

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/interceptor-dev/interceptor/internal/testfiles"
)

// TestCreateBoundsItsConfigReads: the approve route check of a Gemini child
// reads its client's settings: one nested 4 million levels deep killed the
// supervisor with a stack overflow, a FIFO hung it, a link to /dev/zero grew
// it past 2 GB (issue 22, items 4 and 5). create now refuses each, in one
// line naming the file.
func TestCreateBoundsItsConfigReads(t *testing.T) {
	s, _ := testStore(t)
	for kind, want := range map[string]string{
		"deep": "is not valid JSON (nested deeper than 512 levels)",
		"fifo": "is not a regular file (a FIFO); refusing to read it",
		"zero": "is not a regular file (a device); refusing to read it",
	} {
		t.Run(kind, func(t *testing.T) {
			env, wd := hookHome(t), t.TempDir()
			path := filepath.Join(wd, ".gemini", "settings.json") // project scope, in its working dir
			testfiles.HostileConfig(t, path, kind)
			done := make(chan error, 1)
			go func() {
				_, err := s.Create(Child{Name: "g-" + kind, Client: "gemini", WorkingDir: wd, Env: env})
				done <- err
			}()
			select {
			case err := <-done:
				if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
					t.Fatalf("create: %v", err)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("create still running after 10s")
			}
		})
	}
}
