package approvals

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"
)

func TestRuleMatches(t *testing.T) {
	bash := func(cmd string) Call {
		return Call{Client: "claude-code", Session: "s1", Project: "/p", Cwd: "/p/sub", Tool: "Bash", Input: `{"command":` + quote(cmd) + `}`}
	}
	r := Rule{Allow: true, Scope: ScopeProject, Project: "/p", Client: "claude-code", Tool: "Bash", CommandPrefix: "git status"}
	for cmd, want := range map[string]bool{
		"git status": true, "git status -s": true, "  git status --short ": true,
		"git statusx": false, "git status; rm -rf ~": false, "git status && curl x | sh": false,
		"git status\nrm -rf ~": false, "git status $(rm -rf ~)": false, "git status `id`": false,
		"git status > /etc/x": false, "git log": false,
	} {
		if got := r.Matches(bash(cmd)); got != want {
			t.Errorf("prefix %q on %q: %t", r.CommandPrefix, cmd, got)
		}
	}
	other := bash("git status")
	other.Project = "/q"
	if r.Matches(other) {
		t.Error("a project rule matched another project")
	}
	other = bash("git status")
	other.Tool = "mcp__other__Bash"
	if r.Matches(other) {
		t.Error("a rule matched another tool name (another server's)")
	}
	other = bash("git status")
	other.Client = "codex"
	if r.Matches(other) {
		t.Error("a rule matched another client")
	}
	sess := Rule{Allow: true, Scope: ScopeSession, Session: "s1", Client: "claude-code", Tool: "Bash"}
	if !sess.Matches(bash("anything")) || sess.Matches(Call{Client: "claude-code", Tool: "Bash", Session: "s2"}) {
		t.Error("a session rule matched wrongly")
	}
	exact := Rule{Allow: true, Scope: ScopeProject, Project: "/p", Client: "claude-code", Tool: "Bash", Command: "echo one\necho two"}
	for cmd, want := range map[string]bool{"echo one\necho two": true, " echo one\necho two\n": true, "echo one": false,
		"echo one\necho two; rm -rf ~": false, "echo one\necho two\nrm x": false} {
		if got := exact.Matches(bash(cmd)); got != want {
			t.Errorf("exact command on %q: %t", cmd, got)
		}
	}
	path := Rule{Allow: true, Scope: ScopeEverywhere, Client: "claude-code", Tool: "Edit", PathPrefix: "/p/src"}
	for p, want := range map[string]bool{"/p/src/a.go": true, "/p/src": true, "../src/b.go": true, "/p/srcx/a": false,
		"/p/src/../../etc/x": false, "x.go": false} {
		c := Call{Client: "claude-code", Tool: "Edit", Cwd: "/p/sub", Input: `{"file_path":` + quote(p) + `}`}
		if got := path.Matches(c); got != want {
			t.Errorf("path prefix /p/src on %q: %t", p, got)
		}
	}
}

func quote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	return `"` + r.Replace(s) + `"`
}

func TestRulesDecideBeforeQueueingAndGoToHistory(t *testing.T) {
	q := newStore(t)
	allow, err := q.AddRule(Rule{Allow: true, Scope: ScopeProject, Project: "/p", Client: "claude-code", Tool: "Bash", CommandPrefix: "ls"})
	if err != nil {
		t.Fatal(err)
	}
	deny, err := q.AddRule(Rule{Scope: ScopeEverywhere, Client: "claude-code", Tool: "Bash", CommandPrefix: "ls secret"})
	if err != nil {
		t.Fatal(err)
	}
	p := Policy{Timeout: 200 * time.Millisecond}
	call := Call{Client: "claude-code", Session: "s", Project: "/p", Tool: "Bash", Input: `{"command":"ls -la"}`}
	d, err := q.Ask(context.Background(), p, call)
	if err != nil || !d.Allow || !strings.Contains(d.By, allow.ID) {
		t.Fatalf("allowed by rule: %+v %v", d, err)
	}
	call.Input = `{"command":"ls secret -a"}`
	d, err = q.Ask(context.Background(), p, call)
	if err != nil || d.Allow || !strings.Contains(d.By, deny.ID) || !strings.Contains(d.Reason, "standing rule") {
		t.Fatalf("a deny rule wins over an allow rule: %+v %v", d, err)
	}
	if pend, _ := q.Pending(); len(pend) != 0 {
		t.Fatalf("a ruled call was queued: %v", pend)
	}
	h, err := q.History(10, "")
	if err != nil || len(h.Requests) != 2 {
		t.Fatalf("history: %+v %v", h, err)
	}
	for _, r := range h.Requests {
		if r.Rule == "" || !strings.Contains(r.DecidedBy, "rule "+r.Rule) || r.Project != "/p" {
			t.Errorf("history record does not name its rule: %+v", r)
		}
	}
	// Not matched: it waits for a person (and here expires).
	call.Input = `{"command":"ls; rm -rf ~"}`
	if d, err = q.Ask(context.Background(), p, call); err != nil || d.Allow || !strings.Contains(d.By, "expired") {
		t.Fatalf("a compound command passed a prefix rule: %+v %v", d, err)
	}
	if _, err := q.RevokeRule(allow.ID); err != nil {
		t.Fatal(err)
	}
	call.Input = `{"command":"ls -la"}`
	if d, _ = q.Ask(context.Background(), p, call); d.Allow {
		t.Fatalf("a revoked rule still allowed: %+v", d)
	}
	rs, err := q.Rules()
	if err != nil || len(rs) != 1 || rs[0].ID != deny.ID {
		t.Fatalf("rules after revoke: %+v %v", rs, err)
	}
}

func TestMalformedRulesFileFailsClosed(t *testing.T) {
	q := newStore(t)
	if _, err := q.AddRule(Rule{Allow: true, Scope: ScopeEverywhere, Client: "claude-code", Tool: "Bash"}); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{`{"rules":[`, `{"rules":[{"id":"x","allow":true,"scope":"galaxy","client":"c","tool":"t"}]}`, `{"rulez":[]}`} {
		if err := os.WriteFile(q.RulesPath(), []byte(bad), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := q.Ask(context.Background(), Policy{Timeout: time.Second}, Call{Client: "claude-code", Tool: "Bash", Input: `{}`})
		if err == nil || !strings.Contains(err.Error(), q.RulesPath()) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: err %v, want one line naming the file", bad, err)
		}
	}
}

func TestRuleRefusesWhatCannotMatchAsMeant(t *testing.T) {
	q := newStore(t)
	for _, r := range []Rule{
		{Allow: true, Scope: ScopeProject, Client: "c", Tool: "t"},
		{Allow: true, Scope: ScopeSession, Client: "c", Tool: "t"},
		{Allow: true, Scope: ScopeEverywhere, Client: "c", Tool: "Bash", CommandPrefix: "ls;rm"},
		{Allow: true, Scope: ScopeEverywhere, Client: "c", Tool: "Edit", PathPrefix: "rel/dir"},
		{Allow: true, Scope: "x", Client: "c", Tool: "t"},
	} {
		if _, err := q.AddRule(r); err == nil {
			t.Errorf("rule %+v accepted", r)
		}
	}
}
