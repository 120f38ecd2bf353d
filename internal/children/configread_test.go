//go:build unix

package children

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
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
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			switch kind {
			case "deep":
				n := 4_000_000
				if err := os.WriteFile(path, []byte(`{"hooks": {}, "x": `+strings.Repeat("[", n)+strings.Repeat("]", n)+`}`), 0o644); err != nil {
					t.Fatal(err)
				}
			case "fifo":
				if err := syscall.Mkfifo(path, 0o644); err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { // unblocks a reader left waiting
					if f, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
						f.Close()
					}
				})
			case "zero":
				if err := os.Symlink("/dev/zero", path); err != nil {
					t.Fatal(err)
				}
			}
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
