package doctor

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/interceptor-dev/interceptor/internal/install"
)

// TestDoctorWarnsUngatedShell: with approvals on, a child agent's shell can
// run `interceptor approvals allow` and decide its own requests (issue
// 12.3); doctor warns until an approve hook covers the shell, and
// --approve-shell is what covers it (where the client's shell can be gated).
func TestDoctorWarnsUngatedShell(t *testing.T) {
	for _, c := range []struct {
		client, warn string
	}{
		{"claude-code", "shell tool (Bash) is not gated"},
		{"codex", "shell tool (Bash) is not gated"},
		{"gemini", "shell tool (run_shell_command) is not gated"},
		{"opencode", "shell tool (bash) is not gated"},
		{"kilo", "shell tool (bash) is not gated"},
		{"cursor", "cannot gate Cursor's shell: it runs shell commands through its beforeShellExecution hook"},
	} {
		t.Run(c.client, func(t *testing.T) {
			env := testEnv(t)
			o := opts(c.client, install.User)
			o.Approve = install.ApproveOptions{On: true, Timeout: 10 * time.Minute}
			mustInstall(t, env, o)
			if rep := Run(env, "", time.Now()); !hasFinding(rep, c.client, Warn, c.warn) {
				t.Fatalf("no warning %q: %+v", c.warn, findingsOf(rep, c.client))
			}
			o.Approve.Shell = true
			_, err := install.Install(env, o)
			if c.client == "cursor" && err != nil {
				return // refused: install's TestApproveShellGate
			}
			if err != nil {
				t.Fatal(err)
			}
			if rep := Run(env, "", time.Now()); hasFinding(rep, c.client, Warn, "not gated") || hasFinding(rep, c.client, Fail, "approve") {
				t.Fatalf("doctor after --approve-shell: %+v", findingsOf(rep, c.client))
			}
		})
	}
}

// The doctor's view of hand-made approve hooks: a group whose matcher
// covers the shell gates it, one that does not (or whose --match does not)
// leaves it open.
func TestDoctorShellGateMatchers(t *testing.T) {
	env := testEnv(t)
	o := opts("claude-code", install.User)
	o.Approve = install.ApproveOptions{On: true, Timeout: 5 * time.Minute}
	if _, err := install.Install(env, o); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(env.Home, ".claude", "settings.json")
	doc := mustRead(t, path)
	cmd := strings.Split(strings.Split(doc, `"command": "`)[1], `"`)[0]
	if !strings.Contains(cmd, " approve ") {
		t.Fatalf("not the approve command: %q", cmd)
	}
	const warn = "shell tool (Bash) is not gated"
	for _, c := range []struct {
		matcher, match string
		gated          bool
	}{
		{"^Bash$", "", true},
		{"Bash|Write", "", true},
		{"", "", true},
		{"^mcp__wf__", "", false},
		{"^Bash$", " --match ^mcp__", false},
		{"^Bash$", " --match Bash", true},
	} {
		env := testEnv(t)
		mustWrite(t, filepath.Join(env.Home, ".claude", "settings.json"), doc, 0o644) // the server's hooks, as installed above
		extra := `{"hooks":{"PreToolUse":[{"matcher":"` + c.matcher + `","hooks":[{"type":"command","command":"` + cmd + c.match + `","timeout":330}]}]}}`
		mustWrite(t, filepath.Join(env.Home, ".claude", "settings.local.json"), extra, 0o644)
		env.Project = env.Home // doctor reads the project's .claude/settings.local.json
		rep := Run(env, "", time.Now())
		if got := hasFinding(rep, "claude-code", Warn, warn); got == c.gated {
			t.Errorf("matcher %q%s: warning %v, want %v: %+v", c.matcher, c.match, got, !c.gated, findingsOf(rep, "claude-code"))
		}
	}
}
