package install

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestInstallCodexTrust(t *testing.T) {
	env := testEnv(t)
	config := filepath.Join(env.Home, ".codex", "config.toml")
	mine := "model = \"o3\"\n\n[hooks.state.\"/elsewhere/hooks.json:pre_tool_use:0:0\"]\ntrusted_hash = \"sha256:00\"\n"
	mustWrite(t, config, mine, 0o600)
	o := opts("codex", User)
	o.Trust = true
	res, err := Install(env, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Trust) != 0 || !strings.Contains(strings.Join(res.Notes, "\n"), "recorded the hooks as trusted in "+config) {
		t.Errorf("result %+v", res)
	}
	after := mustRead(t, config)
	if !strings.HasPrefix(after, mine) {
		t.Fatalf("config.toml lost its own content:\n%s", after)
	}
	trusted := func() int {
		rep := Doctor(env, t.TempDir(), time.Now())
		n := 0
		for _, f := range findingsOf(rep, "codex") {
			if f.Level == OK && strings.Contains(f.Message, "is trusted by Codex") {
				n++
			}
		}
		return n
	}
	if n := trusted(); n != 2 {
		t.Fatalf("doctor sees %d trusted hooks, want 2: %q", n, findingsOf(Doctor(env, t.TempDir(), time.Now()), "codex"))
	}
	// Again: nothing changes.
	if res, err := Install(env, o); err != nil || res.Changed || mustRead(t, config) != after {
		t.Fatalf("second install: %+v %v", res, err)
	}
	// A changed hook (another binary) gets its record's hash replaced, in place.
	o.Bin = "/opt/interceptor"
	if _, err := Install(env, o); err != nil {
		t.Fatal(err)
	}
	if n := trusted(); n != 2 {
		t.Fatalf("after the change doctor sees %d trusted hooks, want 2", n)
	}
	if got := mustRead(t, config); strings.Count(got, "[hooks.state.") != 3 {
		t.Fatalf("records were added, not replaced:\n%s", got)
	}
	// Without --trust, nothing is recorded.
	env2 := testEnv(t)
	if _, err := Install(env2, opts("codex", User)); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(env2.Home, ".codex", "config.toml")); err == nil {
		t.Fatal("install without --trust wrote config.toml")
	}
	// --trust is Codex's only.
	o3 := opts("claude-code", User)
	o3.Trust = true
	if _, err := Install(testEnv(t), o3); err == nil || !strings.Contains(err.Error(), "--trust") {
		t.Errorf("claude-code --trust: %v", err)
	}
}
