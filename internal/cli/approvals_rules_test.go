package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/interceptor-dev/interceptor/internal/approvals"
	"github.com/tidwall/sjson"
)

// TestApprovalsRulesThroughTheHook: the approve hook records the session's
// cwd and project (the git root above it); a project rule made from that
// request lets the next identical call through with no request waiting,
// in history naming the rule; a call of another project still waits; a
// malformed rules file denies with one line naming it.
func TestApprovalsRulesThroughTheHook(t *testing.T) {
	t.Setenv("CLAUDE_PROJECT_DIR", "")
	dir := filepath.Join(t.TempDir(), "state")
	proj := filepath.Join(t.TempDir(), "proj")
	cwd := filepath.Join(proj, "sub")
	if err := os.MkdirAll(filepath.Join(proj, ".git"), 0o700); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(cwd, 0o700)
	payload := func(cwd string) []byte {
		p := string(fixtureFile(t, "claude-code.PreToolUse.text.json"))
		p, _ = sjson.Set(p, "tool_name", "Bash")
		p, _ = sjson.SetRaw(p, "tool_input", `{"command":"npm test","description":"Run the tests"}`)
		p, _ = sjson.Set(p, "cwd", cwd)
		return []byte(p)
	}
	wait := startApprove(t, dir, payload(cwd), "--client", "claude-code", "--timeout", "10s")
	id := pendingIDs(t, dir, 1)[0]
	r, err := approvals.New(dir).Get(id)
	if err != nil || r.Cwd != cwd || r.Project != proj {
		t.Fatalf("request %+v (%v): want cwd %s, project %s", r, err, cwd, proj)
	}
	out, code := cli(t, "approvals", "rules", "add", "--state-dir", dir, "--allow", "--from", id, "--scope", "project", "--command-prefix", "")
	if code != 0 || !strings.Contains(out, `always allow claude-code Bash command "npm test"`) || !strings.Contains(out, "in project "+proj) {
		t.Fatalf("rules add: %d %s", code, out)
	}
	ruleID := strings.TrimSuffix(strings.Fields(out)[1], ":")
	if out, code := cli(t, "approvals", "allow", "--state-dir", dir, id); code != 0 {
		t.Fatalf("allow: %s", out)
	}
	if stdout, _, _ := wait(); !strings.Contains(stdout, `"allow"`) {
		t.Fatalf("first call: %s", stdout)
	}

	// The next identical call: no request waits, the rule decides.
	stdout, stderr, code := startApprove(t, dir, payload(cwd), "--client", "claude-code", "--timeout", "10s")()
	if code != 0 || !strings.Contains(stdout, `"allow"`) {
		t.Fatalf("ruled call: %d %s %s", code, stdout, stderr)
	}
	h, _ := approvals.New(dir).History(1, "")
	if len(h.Requests) != 1 || h.Requests[0].Rule != ruleID || h.Requests[0].Status != approvals.Allowed {
		t.Fatalf("history: %+v", h.Requests)
	}
	if out, _ := cli(t, "approvals", "rules", "list", "--state-dir", dir); !strings.Contains(out, ruleID) {
		t.Fatalf("rules list: %s", out)
	}

	// Another project (no .git above it: its cwd) waits for a person.
	other := t.TempDir()
	wait = startApprove(t, dir, payload(other), "--client", "claude-code", "--timeout", "10s")
	id = pendingIDs(t, dir, 1)[0]
	cli(t, "approvals", "deny", "--state-dir", dir, id)
	if stdout, _, _ := wait(); !strings.Contains(stdout, `"deny"`) {
		t.Fatalf("other project: %s", stdout)
	}

	// A malformed rules file: denied, one line naming the file.
	os.WriteFile(approvals.New(dir).RulesPath(), []byte(`{"rules":[{"id":`), 0o600)
	stdout, stderr, code = startApprove(t, dir, payload(cwd), "--client", "claude-code", "--timeout", "10s")()
	if code != 0 || !strings.Contains(stdout, `"deny"`) || !strings.Contains(stdout, "rules.json") {
		t.Fatalf("malformed rules: %d %s %s", code, stdout, stderr)
	}
	if out, code := cli(t, "approvals", "rules", "revoke", "--state-dir", dir, ruleID); code == 0 || strings.Count(strings.TrimSpace(out), "\n") > 0 {
		t.Fatalf("revoke over a malformed file: %d %q (want a one-line failure)", code, out)
	}
}
