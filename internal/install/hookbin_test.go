package install

import (
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"testing"
)

func TestHookBin(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "interceptor")
	hook := filepath.Join(dir, HookBinName)
	mustWrite(t, bin, "#!/bin/sh\n", 0o755)
	if got := HookBin(bin); got != bin {
		t.Fatalf("no hook binary beside: %q, want %q", got, bin)
	}
	if err := os.Mkdir(hook, 0o755); err != nil {
		t.Fatal(err)
	}
	if got := HookBin(bin); got != bin {
		t.Fatalf("a directory named %s beside: %q, want %q", HookBinName, got, bin)
	}
	if err := os.Remove(hook); err != nil {
		t.Fatal(err)
	}
	mustWrite(t, hook, "#!/bin/sh\n", 0o644)
	if got := HookBin(bin); runtime.GOOS != "windows" && got != bin {
		t.Fatalf("a hook binary that is not executable: %q, want %q", got, bin)
	}
	if err := os.Chmod(hook, 0o755); err != nil {
		t.Fatal(err)
	}
	if got := HookBin(bin); got != hook {
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
