package doctor

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/interceptor-dev/interceptor/internal/install"
)

// Doctor names each state of Codex's trust in a hook (install's TestTrust
// reads the records themselves).
func TestDoctorCodexTrust(t *testing.T) {
	env := testEnv(t)
	codexHome := filepath.Join(env.Home, "codex-home")
	env.Getenv = func(k string) string { return map[string]string{"CODEX_HOME": codexHome}[k] }
	o := opts("codex", install.User)
	o.Bin = filepath.Join(env.Home, "bin", "interceptor")
	mustWrite(t, o.Bin, "#!/bin/sh\n", 0o755)
	mustInstall(t, env, o)
	want := func(level, msg string) Report {
		t.Helper()
		rep := Run(env, "", time.Now())
		if !hasFinding(rep, "codex", level, msg) || rep.OK != (level != Fail) {
			t.Fatalf("want %s %q (report OK %v): %+v", level, msg, rep.OK, findingsOf(rep, "codex"))
		}
		return rep
	}
	want(Fail, "the PreToolUse hook in "+filepath.Join(codexHome, "hooks.json")+" is not trusted yet, so Codex skips it silently: start codex and run /hooks")
	o.Trust = true
	mustInstall(t, env, o)
	if rep := want(OK, "PreToolUse hook"); !hasFinding(rep, "codex", OK, "PostToolUse hook in") {
		t.Fatalf("PostToolUse's trust not seen: %+v", findingsOf(rep, "codex"))
	}
	config := filepath.Join(codexHome, "config.toml")
	trusted := mustRead(t, config)
	mustWrite(t, config, strings.ReplaceAll(trusted, "trusted_hash = ", "enabled = false\ntrusted_hash = "), 0o600)
	want(Fail, "is disabled in Codex")
	// A config.toml Codex would refuse (each record twice) is not read as
	// trust.
	mustWrite(t, config, trusted+"\n"+trusted, 0o600)
	if rep := want(Warn, "cannot tell whether Codex trusts the hooks in"); hasFinding(rep, "codex", OK, "trusted by Codex") {
		t.Fatalf("invalid config.toml read as trust: %+v", findingsOf(rep, "codex"))
	}
	mustWrite(t, config, trusted, 0o600)
	// A reinstall that changes the command invalidates the trust.
	o.Trust, o.Hook.Arg = false, "tok"
	mustInstall(t, env, o)
	want(Fail, "changed since Codex trusted it, so Codex skips it")
	// Project hooks load only in a trusted project.
	p := opts("codex", install.Project)
	p.Bin, p.Trust = o.Bin, true
	mustInstall(t, env, p)
	if rep := Run(env, "", time.Now()); !hasFinding(rep, "codex", Warn, "Codex loads "+filepath.Join(env.Project, ".codex", "hooks.json")+" only when the project is trusted") {
		t.Fatalf("untrusted project not reported: %+v", findingsOf(rep, "codex"))
	}
}
