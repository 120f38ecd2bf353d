package install

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/interceptor-dev/interceptor/internal/hooks"
)

func TestClineScripts(t *testing.T) {
	env := testEnv(t)
	pre, _ := ConfigPath(env, "cline", User)
	post := scripts{&hooks.ClineClient, "PostToolUse"}.path(env, User)
	o := opts("cline", User)
	if _, err := Install(env, o); err != nil {
		t.Fatal(err)
	}
	if got := mustRead(t, post); !strings.HasSuffix(got, "\nexec "+testBin+" capture --client cline --server wf\n") {
		t.Fatalf("PostToolUse script:\n%s", got)
	}
	for _, p := range []string{pre, post} {
		if fi, err := os.Stat(p); err != nil || runtime.GOOS != "windows" && fi.Mode().Perm() != 0o755 {
			t.Fatalf("%s: %v %v, want an executable file", p, fi, err)
		}
	}
	// A second server joins the same scripts, with the options given now.
	o2 := opts("cline", User)
	o2.Server, o2.Hook.StateDir = "wf2", "/tmp/st"
	res, err := Install(env, o2)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(res.Notes, "\n"), "serves wf too") {
		t.Errorf("notes %q", res.Notes)
	}
	if got := mustRead(t, pre); !strings.HasSuffix(got, "\nexec "+testBin+" inject --client cline --server wf --server wf2 --state-dir /tmp/st\n") {
		t.Fatalf("PreToolUse script:\n%s", got)
	}
	// Uninstalling one server keeps the other's hooks.
	if _, err := Uninstall(env, o); err != nil {
		t.Fatal(err)
	}
	if got := mustRead(t, post); !strings.HasSuffix(got, "\nexec "+testBin+" capture --client cline --server wf2 --state-dir /tmp/st\n") {
		t.Fatalf("after uninstalling wf:\n%s", got)
	}
	if _, err := Uninstall(env, o2); err != nil {
		t.Fatal(err)
	}
	if exists(pre) || exists(post) {
		t.Fatal("uninstall left a script")
	}
}

func TestClineKeepsTheUsersOwnHook(t *testing.T) {
	env := testEnv(t)
	post := scripts{&hooks.ClineClient, "PostToolUse"}.path(env, Project)
	mine := "#!/bin/sh\necho '{}'\n"
	mustWrite(t, post, mine, 0o755)
	_, err := Install(env, opts("cline", Project))
	if err == nil || !strings.Contains(err.Error(), post+" is your own Cline hook") {
		t.Fatalf("install over the user's hook: %v", err)
	}
	if pre, _ := ConfigPath(env, "cline", Project); exists(pre) {
		t.Fatal("a refused install wrote the PreToolUse script")
	}
	if mustRead(t, post) != mine || exists(post+BackupSuffix) {
		t.Fatal("the user's hook was touched")
	}
	if _, err := Uninstall(env, opts("cline", Project)); err == nil {
		t.Fatal("uninstall went through the user's hook")
	}
	if mustRead(t, post) != mine {
		t.Fatal("uninstall touched the user's hook")
	}
}

// One pair of scripts serves every server of a scope, so its --not-server
// list is theirs together: a server joining keeps the refusals of those
// already served, and a served server is never refused (its own tools
// would get no token).
func TestClineScriptsShareRefusals(t *testing.T) {
	env := testEnv(t)
	mustWrite(t, filepath.Join(env.Home, ".cline", "data", "settings", "cline_mcp_settings.json"), `{"mcpServers":{"wf":{},"wf__admin":{},"other":{}}}`, 0o600)
	pre, _ := ConfigPath(env, "cline", User)
	if _, err := Install(env, opts("cline", User)); err != nil {
		t.Fatal(err)
	}
	o := opts("cline", User)
	o.Server = "other"
	if _, err := Install(env, o); err != nil {
		t.Fatal(err)
	}
	if got := mustRead(t, pre); !strings.HasSuffix(got, "\nexec "+testBin+" inject --client cline --server wf --server other --not-server wf__admin\n") {
		t.Fatalf("a joining server dropped wf's refusal:\n%s", got)
	}
	o.Server = "wf__admin"
	res, err := Install(env, o)
	if err != nil {
		t.Fatal(err)
	}
	if got := mustRead(t, pre); !strings.HasSuffix(got, "\nexec "+testBin+" inject --client cline --server wf --server other --server wf__admin\n") {
		t.Fatalf("the scripts refuse a server they serve:\n%s", got)
	}
	if !strings.Contains(strings.Join(res.Notes, "\n"), "collide under Cline") {
		t.Errorf("notes %q", res.Notes)
	}
}
