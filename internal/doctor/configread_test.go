//go:build unix

package doctor

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/interceptor-dev/interceptor/internal/testfiles"
)

// TestDoctorBoundsItsReads: a settings file nested 4 million levels deep
// killed doctor with a stack overflow, a FIFO hung it, a link to /dev/zero
// grew it without bound (issue 22, items 4 and 5). Each is now one failing
// finding naming the file.
func TestDoctorBoundsItsReads(t *testing.T) {
	for kind, want := range map[string]string{
		"deep": "is not valid JSON (nested deeper than 512 levels)",
		"fifo": "is not a regular file (a FIFO); refusing to read it",
		"zero": "is not a regular file (a device); refusing to read it",
	} {
		t.Run(kind, func(t *testing.T) {
			env := testEnv(t)
			path := filepath.Join(env.Home, ".claude", "settings.json")
			testfiles.HostileConfig(t, path, kind)
			done := make(chan Report, 1)
			go func() { done <- Run(env, "", time.Now()) }()
			select {
			case rep := <-done:
				if !hasFinding(rep, "claude-code", Fail, path) || !hasFinding(rep, "claude-code", Fail, want) {
					t.Fatalf("findings %+v", findingsOf(rep, "claude-code"))
				}
			case <-time.After(10 * time.Second):
				t.Fatal("doctor still running after 10s")
			}
		})
	}
}
