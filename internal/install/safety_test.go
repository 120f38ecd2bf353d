package install

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// Issue 12.12: eight installs for different servers at once on one
// settings.json kept only one or two. Each read-modify-write holds a lock.
func TestConcurrentInstallsKeepEveryServer(t *testing.T) {
	for _, client := range []string{"claude-code", "gemini", "opencode"} {
		t.Run(client, func(t *testing.T) {
			env := testEnv(t)
			path, _ := ConfigPath(env, client, User)
			var wg sync.WaitGroup
			start := make(chan struct{})
			errs := make(chan error, 8)
			for i := range 8 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					o := opts(client, User)
					o.Server = fmt.Sprintf("server%d", i)
					<-start
					if _, err := Install(env, o); err != nil {
						errs <- err
					}
				}()
			}
			close(start)
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Fatal(err)
			}
			doc := mustRead(t, path)
			for i := range 8 {
				if !strings.Contains(doc, fmt.Sprintf("--server server%d", i)) && !strings.Contains(doc, fmt.Sprintf(`"server%d"`, i)) {
					t.Errorf("server%d lost:\n%s", i, doc)
				}
			}
		})
	}
}

// Issue 12.13: a settings.json that is a symlink to a missing file was
// replaced by a regular file. It is refused, with one line.
func TestDanglingSymlinkRefused(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symlinks")
	}
	env := testEnv(t)
	path, _ := ConfigPath(env, "claude-code", User)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(env.Home, "dotfiles", "claude-settings.json") // missing
	if err := os.Symlink(target, path); err != nil {
		t.Fatal(err)
	}
	for _, run := range []func(Env, Options) (*Result, error){Install, Uninstall} {
		_, err := run(env, opts("claude-code", User))
		if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), target) || strings.Contains(err.Error(), "\n") {
			t.Fatalf("err %v, want one line naming the link and its missing target", err)
		}
		if fi, err := os.Lstat(path); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Fatalf("the symlink was replaced: %v %v", fi, err)
		}
		if _, err := os.Stat(target); err == nil {
			t.Fatal("the missing target was created")
		}
	}
}

// Issue 12.13: an approve hook the user wrote by hand into the server's
// group is not install's: uninstall leaves it, install --approve adds its
// own instead of rewriting it.
func TestHandWrittenApproveLeftAlone(t *testing.T) {
	env := testEnv(t)
	path, _ := ConfigPath(env, "claude-code", User)
	if _, err := Install(env, opts("claude-code", User)); err != nil {
		t.Fatal(err)
	}
	mine := testBin + ` approve --client claude-code --deny '^mcp__wf__drop'`
	doc := mustRead(t, path)
	i := strings.Index(doc, "{\n            \"type\": \"command\",\n            \"command\": \""+testBin+" inject")
	if i < 0 {
		t.Fatalf("no inject hook to write in front of:\n%s", doc)
	}
	doc = doc[:i] + `{"type": "command", "command": "` + mine + `"},` + "\n            " + doc[i:]
	mustWrite(t, path, doc, 0o644)

	o := opts("claude-code", User)
	o.Approve.On = true
	if _, err := Install(env, o); err != nil {
		t.Fatal(err)
	}
	cmds, _ := preHooks(mustRead(t, path), "PreToolUse")
	if len(cmds) != 3 || cmds[0] != mine || !strings.HasPrefix(cmds[1], testBin+" approve --client claude-code") || cmds[1] == mine {
		t.Fatalf("install --approve took over the hand-written approve hook: %q", cmds)
	}
	if _, err := Uninstall(env, opts("claude-code", User)); err != nil {
		t.Fatal(err)
	}
	cmds, _ = preHooks(mustRead(t, path), "PreToolUse")
	if len(cmds) != 1 || cmds[0] != mine {
		t.Fatalf("uninstall did not leave exactly the hand-written approve hook: %q", cmds)
	}
}
