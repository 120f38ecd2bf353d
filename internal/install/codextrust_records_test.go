package install

import (
	"path/filepath"
	"testing"
	"time"
)

// With the records CodexTrustRecords gives appended to config.toml, doctor
// (which checks Codex's own trust rule) finds the installed hooks trusted.
func TestCodexTrustRecords(t *testing.T) {
	env := testEnv(t)
	env.CodexHome = filepath.Join(env.Home, "codex-home")
	bin := filepath.Join(env.Home, "bin", "interceptor")
	mustWrite(t, bin, "#!/bin/sh\n", 0o755)
	o := opts("codex", User)
	o.Bin = bin
	res, err := Install(env, o)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := CodexTrustRecords(res.Path)
	if err != nil {
		t.Fatal(err)
	}
	mustWrite(t, filepath.Join(env.CodexHome, "config.toml"), "model = \"x\"\n\n"+recs, 0o600)
	rep := Doctor(env, "", time.Now())
	if !hasFinding(rep, "codex", OK, "PreToolUse hook") || !hasFinding(rep, "codex", OK, "PostToolUse hook") || hasFinding(rep, "codex", Fail, "trusted") {
		t.Fatalf("hooks not trusted with the records:\n%s\n%+v", recs, findingsOf(rep, "codex"))
	}
}
