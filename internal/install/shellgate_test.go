package install

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestDoctorWarnsUngatedShell: with approvals on, a child agent's shell can
// run `interceptor approvals allow` and decide its own requests (issue 12.3);
// install says so and doctor warns until an approve hook covers the shell.
func TestDoctorWarnsUngatedShell(t *testing.T) {
	env := testEnv(t)
	o := opts("claude-code", User)
	o.Approve = ApproveOptions{On: true, Timeout: 5 * time.Minute}
	res, err := Install(env, o)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(res.Notes, "\n"), `shell tool Bash can still run`) {
		t.Errorf("install --approve says nothing of the shell: %q", res.Notes)
	}
	const warn = "shell tool (Bash) is not gated"
	if rep := Doctor(env, "", time.Now()); !hasFinding(rep, "claude-code", Warn, warn) {
		t.Fatalf("no warning: %+v", findingsOf(rep, "claude-code"))
	}

	// The same approve command in a group whose matcher covers Bash.
	path := filepath.Join(env.Home, ".claude", "settings.json")
	doc := mustRead(t, path)
	cmd := strings.Split(strings.Split(doc, `"command": "`)[1], `"`)[0]
	for _, c := range []struct {
		matcher string
		gated   bool
	}{{"^Bash$", true}, {"Bash|Write", true}, {"^mcp__wf__", false}} {
		env := testEnv(t)
		mustWrite(t, filepath.Join(env.Home, ".claude", "settings.json"), doc, 0o644) // the server's hooks, as installed above
		extra := `{"hooks":{"PreToolUse":[{"matcher":"` + c.matcher + `","hooks":[{"type":"command","command":"` + cmd + `","timeout":330}]}]}}`
		if !strings.Contains(cmd, " approve ") {
			t.Fatalf("not the approve command: %q", cmd)
		}
		mustWrite(t, filepath.Join(env.Home, ".claude", "settings.local.json"), extra, 0o644)
		env.Project = env.Home // doctor reads the project's .claude/settings.local.json
		rep := Doctor(env, "", time.Now())
		if got := hasFinding(rep, "claude-code", Warn, warn); got == c.gated {
			t.Errorf("matcher %q: warning %v, want %v: %+v", c.matcher, got, !c.gated, findingsOf(rep, "claude-code"))
		}
	}
}
