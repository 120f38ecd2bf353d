//go:build unix

package testfiles

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// HostileConfig makes path (its dir made) a config file no reader may take
// whole: kind "fifo" (a reader left blocked on it gets EOF when the test
// ends), "zero" (a symlink to /dev/zero), or "deep" (JSONC nested 4 million
// levels, behind a comment holding a quote that a count taking it for a
// string's start would let hide the nesting).
func HostileConfig(t testing.TB, path, kind string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	switch kind {
	case "fifo":
		if err := syscall.Mkfifo(path, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if f, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
				f.Close()
			}
		})
	case "zero":
		if err := os.Symlink("/dev/zero", path); err != nil {
			t.Fatal(err)
		}
	case "deep":
		Write(t, path, DeepJSONC(4_000_000), 0o644)
	default:
		t.Fatalf("HostileConfig: unknown kind %q", kind)
	}
}

// DeepJSONC is a settings object with a member nested n levels deep,
// between comments that hold a quote each.
func DeepJSONC(n int) string {
	return "{\n  \"hooks\": {},\n  // \"quoted\n  \"ui\": " + strings.Repeat("[", n) + strings.Repeat("]", n) + " /* \" */\n}\n"
}
