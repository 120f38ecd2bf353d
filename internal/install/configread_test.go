//go:build unix

package install

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/interceptor-dev/interceptor/internal/testfiles"
)

// within runs fn and fails the test if it has not returned after d (a
// read blocked on a FIFO never would).
func within(t *testing.T, d time.Duration, what string, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); fn() }()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("%s: still running after %s", what, d)
	}
}

// largeConfig makes path a sparse regular file one byte over MaxConfig
// (no disk, no memory).
func largeConfig(t *testing.T, path string) {
	t.Helper()
	mustWrite(t, path, "", 0o644)
	if err := os.Truncate(path, MaxConfig+1); err != nil {
		t.Fatal(err)
	}
}

// TestConfigReadsAreBounded: a settings file that is a FIFO used to hang
// the reader, one that links to /dev/zero grew it past 2 GB (issue 22, item
// 5). Every reader (the approve route children check, install, MCP servers)
// now reads only a regular file of at most MaxConfig bytes and refuses the
// rest in one line naming the file.
func TestConfigReadsAreBounded(t *testing.T) {
	for kind, want := range map[string]string{
		"fifo":  "is not a regular file (a FIFO); refusing to read it",
		"zero":  "is not a regular file (a device); refusing to read it",
		"large": "is larger than 8388608 bytes; refusing to read it",
	} {
		t.Run(kind, func(t *testing.T) {
			env := testEnv(t)
			path := filepath.Join(env.Home, ".gemini", "settings.json")
			if kind == "large" {
				largeConfig(t, path)
			} else {
				testfiles.HostileConfig(t, path, kind)
			}
			check := func(what string, err error) {
				t.Helper()
				if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
					t.Errorf("%s: %v", what, err)
				}
			}
			within(t, 5*time.Second, "FindApproveHooks", func() {
				_, err := FindApproveHooks(env, "gemini")
				check("FindApproveHooks", err)
			})
			within(t, 5*time.Second, "Install", func() {
				_, err := Install(env, opts("gemini", User))
				check("Install", err)
			})
			within(t, 5*time.Second, "MCPServers", func() {
				c := mustClient(t, "gemini")
				_, problems := MCPServers(env, c)
				if len(problems) != 1 || !strings.Contains(problems[0], want) {
					t.Errorf("MCPServers problems: %q", problems)
				}
			})
		})
	}
}

// TestDeepConfigRefused: a project settings.json nested 4 million levels
// deep killed create and doctor with a goroutine stack overflow in hujson
// (issue 22, item 4). It is refused before parsing, in one line naming it.
func TestDeepConfigRefused(t *testing.T) {
	env := testEnv(t)
	path := filepath.Join(env.Project, ".gemini", "settings.json")
	testfiles.HostileConfig(t, path, "deep")
	want := path + " is not valid JSON (nested deeper than 512 levels)"
	if _, err := FindApproveHooks(env, "gemini"); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("FindApproveHooks: %v", err)
	}
	if _, err := Install(env, opts("gemini", Project)); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Install: %v", err)
	}
	if _, problems := MCPServers(env, mustClient(t, "gemini")); len(problems) != 1 || !strings.Contains(problems[0], path+": not valid JSON (nested deeper than 512 levels)") {
		t.Errorf("MCPServers problems: %q", problems)
	}
	// TOML (Codex's config.toml): go-toml refuses such nesting itself.
	toml := filepath.Join(env.Home, ".codex", "config.toml")
	mustWrite(t, toml, "a = "+strings.Repeat("[", 4_000_000)+strings.Repeat("]", 4_000_000)+"\n", 0o644)
	if _, problems := MCPServers(env, mustClient(t, "codex")); len(problems) != 1 || !strings.Contains(problems[0], "nested more than the maximum") {
		t.Errorf("MCPServers problems (TOML): %.200q", problems)
	}
	// Nesting a real config has is read as before.
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	mustWrite(t, path, testfiles.DeepJSONC(100), 0o644)
	if _, err := FindApproveHooks(env, "gemini"); err != nil {
		t.Errorf("100 levels: %v", err)
	}
}
