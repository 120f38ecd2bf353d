package doctor

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/interceptor-dev/interceptor/internal/install"
)

// Cline runs every file in its hook dirs named after the event, in any
// case, with or without a script extension: a user's own PreToolUse.sh runs
// beside interceptor's PreToolUse, and whichever sorts last decides the
// input. Install and doctor say so; files Cline does not run are not named.
func TestClineOtherHooksWarned(t *testing.T) {
	env := testEnv(t)
	runs := []string{
		filepath.Join(env.Home, ".cline", "hooks", "pretooluse.sh"),
		filepath.Join(env.Home, ".cline", "hooks", "PostToolUse.py"),
		filepath.Join(env.Home, "Documents", "Cline", "Hooks", "PRETOOLUSE.js"),
		filepath.Join(env.Project, ".cline", "hooks", "PreToolUse"),
	}
	idle := []string{
		filepath.Join(env.Home, ".cline", "hooks", "PreToolUse.SH"),
		filepath.Join(env.Home, ".cline", "hooks", "PreToolUse.txt"),
		filepath.Join(env.Home, ".cline", "hooks", "TaskStart.sh"),
	}
	for _, p := range append(append([]string{}, runs...), idle...) {
		mustWrite(t, p, "#!/bin/sh\necho '{}'\n", 0o755)
	}
	res, err := install.Install(env, opts("cline", install.User))
	if err != nil {
		t.Fatal(err)
	}
	notes := strings.Join(res.Notes, "\n")
	for _, p := range runs[:2] {
		if !strings.Contains(notes, p+" also runs on every ") {
			t.Errorf("install does not name %s: %q", p, res.Notes)
		}
	}
	rep := Run(env, t.TempDir(), time.Now())
	for _, p := range runs {
		if !hasFinding(rep, "cline", Warn, p+" also runs on every ") {
			t.Errorf("doctor does not name %s: %+v", p, findingsOf(rep, "cline"))
		}
	}
	for _, p := range idle {
		if hasFinding(rep, "cline", Warn, p) || strings.Contains(notes, p) {
			t.Errorf("%s, which Cline does not run, was named: %+v %q", p, findingsOf(rep, "cline"), res.Notes)
		}
	}
	if !hasFinding(rep, "cline", Warn, "PostToolUse.py also runs on every PostToolUse event") {
		t.Errorf("the event is not named: %+v", findingsOf(rep, "cline"))
	}
}
