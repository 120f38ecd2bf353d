package install

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

func hookBinPath(bin string) string {
	p, _ := HookBin(bin)
	return p
}

func TestHookBin(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "interceptor")
	hook := filepath.Join(dir, HookBinName)
	mustWrite(t, bin, "#!/bin/sh\n", 0o755)
	if got := hookBinPath(bin); got != bin {
		t.Fatalf("no hook binary beside: %q, want %q", got, bin)
	}
	if err := os.Mkdir(hook, 0o755); err != nil {
		t.Fatal(err)
	}
	if got := hookBinPath(bin); got != bin {
		t.Fatalf("a directory named %s beside: %q, want %q", HookBinName, got, bin)
	}
	if err := os.Remove(hook); err != nil {
		t.Fatal(err)
	}
	mustWrite(t, hook, "#!/bin/sh\n", 0o644)
	if got := hookBinPath(bin); runtime.GOOS != "windows" && got != bin {
		t.Fatalf("a hook binary that is not executable: %q, want %q", got, bin)
	}
	if err := os.Chmod(hook, 0o755); err != nil {
		t.Fatal(err)
	}
	if got := hookBinPath(bin); got != hook {
		t.Fatalf("the hook binary beside: %q, want %q", got, hook)
	}
}

// TestInstallWritesHookBin: with a hook binary, every hook install writes
// runs it (approve and the plugin shim too, never the interceptor binary
// itself); installing over hooks that ran interceptor gives what a fresh
// install gives, and uninstall knows the hooks as interceptor's.
func TestInstallWritesHookBin(t *testing.T) {
	hookBin := filepath.Join(filepath.Dir(testBin), HookBinName)
	plainBin := regexp.MustCompile(regexp.QuoteMeta(testBin) + `($|[^-])`)
	for _, client := range Clients() {
		t.Run(client, func(t *testing.T) {
			o := opts(client, Project)
			o.Approve.On = true
			if _, err := Install(testEnv(t), o); err != nil {
				o.Approve.On = false // a client without the approve hook
			}
			fresh := testEnv(t)
			o.HookBin = hookBin
			if _, err := Install(fresh, o); err != nil {
				t.Fatal(err)
			}
			path := mustPath(t, fresh, client)
			want := mustRead(t, path)
			if !regexp.MustCompile(regexp.QuoteMeta(hookBin)).MatchString(want) || plainBin.MatchString(want) {
				t.Fatalf("hooks with %s:\n%s", hookBin, want)
			}

			over := testEnv(t)
			old := o
			old.HookBin = ""
			if _, err := Install(over, old); err != nil {
				t.Fatal(err)
			}
			if !plainBin.MatchString(mustRead(t, mustPath(t, over, client))) {
				t.Fatalf("hooks without a hook binary do not run %s", testBin)
			}
			res, err := Install(over, o)
			if err != nil || !res.Changed {
				t.Fatalf("install over the interceptor hooks: %+v %v", res, err)
			}
			if got := mustRead(t, mustPath(t, over, client)); got != want {
				t.Fatalf("installed over the interceptor hooks:\n%s\nwant as a fresh install:\n%s", got, want)
			}

			res, err = Uninstall(fresh, o)
			if err != nil || !res.Changed || exists(path) {
				t.Fatalf("uninstall: %+v %v; the file stays: %v", res, err, exists(path))
			}
		})
	}
}

// A hook binary from another build beside interceptor is not used, and
// install says why: one tiny Go program built at two commits of a git
// repository stands for two releases (debug/buildinfo reads the
// vcs.revision of each without running them).
func TestHookBinOtherBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("builds three programs")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	src, dir := t.TempDir(), t.TempDir()
	run := func(name string, args ...string) {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir = src
		cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=", "GOTOOLCHAIN=local",
			"GIT_CONFIG_GLOBAL=/dev/null", "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
			"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s %v: %v\n%s", name, args, err, b)
		}
	}
	commit := func(msg string) {
		t.Helper()
		mustWrite(t, filepath.Join(src, "main.go"), "package main\n\n// "+msg+"\nfunc main() {}\n", 0o644)
		run("git", "add", ".")
		run("git", "commit", "-qm", msg)
	}
	bin := filepath.Join(dir, "interceptor")
	hook := filepath.Join(dir, HookBinName)
	mustWrite(t, filepath.Join(src, "go.mod"), "module example.com/m\n\ngo 1.22\n", 0o644)
	run("git", "init", "-q")
	commit("one")
	run("go", "build", "-buildvcs=true", "-o", bin, ".")
	run("go", "build", "-buildvcs=true", "-o", hook, ".")
	if got, warn := HookBin(bin); got != hook || warn != "" {
		t.Fatalf("the same build beside: %q %q, want %q", got, warn, hook)
	}
	commit("two")
	run("go", "build", "-buildvcs=true", "-o", hook, ".")
	got, warn := HookBin(bin)
	if got != bin || !strings.Contains(warn, "is not used: it is another build (") || !strings.Contains(warn, "the hooks run "+bin) {
		t.Fatalf("a hook binary of another commit beside: %q %q, want %q and why", got, warn, bin)
	}
	mustWrite(t, hook, "#!/bin/sh\n", 0o755)
	got, warn = HookBin(bin)
	if got != bin || !strings.Contains(warn, "not a Go binary") {
		t.Fatalf("a hook binary that is not Go beside a Go interceptor: %q %q", got, warn)
	}
}
