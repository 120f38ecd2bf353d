package install

import (
	"github.com/interceptor-dev/interceptor/internal/hooks"
	"path/filepath"
	"testing"
)

// FindApproveHooks finds the approve hook at either scope, only once
// install --approve put it there, and says when Codex would skip it.
func TestFindApproveHooks(t *testing.T) {
	for _, client := range []string{"codex", "gemini", "opencode", "claude-code"} {
		env := testEnv(t)
		// Token hooks alone are no approve route.
		if _, err := Install(env, opts(client, User)); err != nil {
			t.Fatal(err)
		}
		if got, err := FindApproveHooks(env, client); err != nil || len(got) != 0 {
			t.Errorf("%s with no approve hook: %+v, %v", client, got, err)
		}
		o := opts(client, Project)
		o.Approve.On = true
		if _, err := Install(env, o); err != nil {
			t.Fatal(err)
		}
		got, err := FindApproveHooks(env, client)
		if err != nil || len(got) != 1 || got[0].Scope != Project {
			t.Fatalf("%s with a project approve hook: %+v, %v", client, got, err)
		}
		if untrusted := got[0].Skipped != ""; untrusted != (client == "codex") {
			t.Errorf("%s: skipped %q (Codex skips hooks it has not trusted; the others run them)", client, got[0].Skipped)
		}
		if client == "codex" {
			o.Trust = true
			if _, err := Install(env, o); err != nil {
				t.Fatal(err)
			}
			if got, _ := FindApproveHooks(env, client); len(got) != 1 || got[0].Skipped != "" {
				t.Errorf("codex after --trust: %+v", got)
			}
		}
	}
}

func TestEnvFromLookup(t *testing.T) {
	vars := map[string]string{"HOME": "/h", "CODEX_HOME": "/c", "XDG_CONFIG_HOME": "rel"}
	env, err := EnvFromLookup(func(k string) string { return vars[k] }, "/p/")
	if err != nil || env.Home != "/h" || env.Project != filepath.Clean("/p") {
		t.Fatalf("%+v, %v", env, err)
	}
	// $CODEX_HOME moves Codex's dir; a relative $XDG_CONFIG_HOME is not
	// used (XDG's rule).
	if got := env.Resolve(hooks.CodexClient.User); got != "/c/hooks.json" {
		t.Errorf("codex hooks at %s", got)
	}
	if got := env.Resolve(hooks.OpenCodeClient.User); got != "/h/.config/opencode/plugin/interceptor.ts" {
		t.Errorf("opencode shim at %s", got)
	}
	if _, err := EnvFromLookup(func(string) string { return "" }, "/p"); err == nil {
		t.Error("no HOME: no error")
	}
}
