package doctor

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/interceptor-dev/interceptor/internal/install"
	"github.com/tidwall/gjson"
)

func TestDoctorFindings(t *testing.T) {
	env := testEnv(t)
	path := filepath.Join(env.Project, ".claude", "settings.json")
	mustWrite(t, path, `{"hooks":{"PreToolUse":[{"matcher":"mcp__.*","hooks":[{"type":"command","command":"rewrite-args.sh"}]}]}}`, 0o644)
	o := opts("claude-code", install.User)
	o.Bin = filepath.Join(env.Home, "bin", "interceptor") // does not exist
	if _, err := install.Install(env, o); err != nil {
		t.Fatal(err)
	}
	rep := Run(env, "", time.Now())
	if rep.OK || !hasFinding(rep, "claude-code", Fail, "does not exist") {
		t.Fatalf("missing binary not reported: %+v", findingsOf(rep, "claude-code"))
	}
	if !hasFinding(rep, "claude-code", Warn, `"rewrite-args.sh" also fires on wf's tools`) {
		t.Fatalf("race not reported: %+v", findingsOf(rep, "claude-code"))
	}
	if !hasFinding(rep, "gemini", Info, "no config found") {
		t.Fatalf("absent client not reported: %+v", findingsOf(rep, "gemini"))
	}
	mustWrite(t, o.Bin, "#!/bin/sh\n", 0o755)
	rep = Run(env, "", time.Now())
	if !rep.OK {
		t.Fatalf("doctor fails with the binary in place: %+v", findingsOf(rep, "claude-code"))
	}
	if b, err := json.Marshal(rep); err != nil || !gjson.ValidBytes(b) {
		t.Fatal("report does not marshal")
	}
	mustWrite(t, path, "{ // no\n}", 0o644)
	if rep = Run(env, "", time.Now()); rep.OK || !hasFinding(rep, "claude-code", Fail, "comments") {
		t.Fatalf("JSONC not reported: %+v", findingsOf(rep, "claude-code"))
	}
}
func TestDoctorFromTheHomeDir(t *testing.T) {
	env := testEnv(t)
	env.Project = env.Home
	if _, err := install.Install(env, opts("claude-code", install.User)); err != nil {
		t.Fatal(err)
	}
	rep := Run(env, "", time.Now())
	if hasFinding(rep, "claude-code", Warn, "hooks (in") || len(rep.Clients[0].Configs) != 1 {
		t.Fatalf("the user's file read twice: %+v", rep.Clients[0])
	}
}

func TestDoctorApproveTimeouts(t *testing.T) {
	bin := ""
	hook := func(cmd, timeout string) string {
		h := `{"type":"command","command":"` + bin + ` ` + cmd + `"`
		if timeout != "" {
			h += `,"timeout":` + timeout
		}
		return h + `}`
	}
	grouped := func(event, approveTimeout string) string {
		return `{"hooks":{"` + event + `":[{"matcher":"^mcp__wf__","hooks":[` + hook("approve --client x --timeout 5m", approveTimeout) + `,` +
			hook("inject --client x --server wf", "10") + `]}]}}`
	}
	for _, c := range []struct {
		client, doc, level, msg string
	}{
		{"claude-code", grouped("PreToolUse", "60"), Fail, "kills it after 60s and runs the tool UNAPPROVED: set \"timeout\": 330"},
		{"claude-code", grouped("PreToolUse", ""), Fail, "sets no timeout, so Claude Code kills it after its default 1m0s"},
		{"claude-code", grouped("PreToolUse", "330"), OK, "timeout (330s) covers its --timeout 5m0s"},
		{"claude-code", grouped("PreToolUse", `"330"`), Fail, "is not a number"},
		{"codex", grouped("PreToolUse", "329"), Fail, "Codex kills it after 329s"},
		{"codex", grouped("PreToolUse", ""), OK, "Codex's default 10m0s covers"},
		{"gemini", grouped("BeforeTool", "330"), Fail, "Gemini CLI kills it after 330ms"},
		{"gemini", grouped("BeforeTool", ""), Fail, "Gemini CLI kills it after its default 1m0s"},
		{"gemini", grouped("BeforeTool", "330000"), OK, "timeout (330000ms) covers"},
		{"cursor", `{"version":1,"hooks":{"preToolUse":[{"command":"` + bin + ` approve --client cursor"},{"command":"` + bin + ` inject --client cursor --server wf"}]}}`, Warn, "Cursor's default is not documented"},
		{"cursor", `{"version":1,"hooks":{"preToolUse":[{"command":"` + bin + ` approve --client cursor --timeout=20m","timeout":600}]}}`, Fail, "waits up to 20m0s (--timeout) but Cursor kills it after 600s"},
	} {
		t.Run(c.client+"/"+c.msg, func(t *testing.T) {
			env := testEnv(t)
			bin = filepath.Join(env.Home, "bin", "interceptor")
			mustWrite(t, bin, "#!/bin/sh\n", 0o755)
			c.doc = strings.ReplaceAll(c.doc, `"command":" `, `"command":"`+bin+` `)
			path, err := install.ConfigPath(env, c.client, install.Project)
			if err != nil {
				t.Fatal(err)
			}
			mustWrite(t, path, c.doc, 0o644)
			rep := Run(env, "", time.Now())
			if !hasFinding(rep, c.client, c.level, c.msg) {
				t.Fatalf("want %s %q in %+v", c.level, c.msg, findingsOf(rep, c.client))
			}
			if c.level == Fail && rep.OK {
				t.Fatal("report OK with a fail finding")
			}
			if c.level != Fail && hasFinding(rep, c.client, Fail, "approve hook") {
				t.Fatalf("a fail finding on the approve hook: %+v", findingsOf(rep, c.client))
			}
		})
	}
	// approve refuses INTERCEPTOR_TIMEOUT (its --timeout never comes from
	// the environment), so doctor reads the default 5m, which Codex's 10m
	// covers.
	env := testEnv(t)
	bin = filepath.Join(env.Home, "bin", "interceptor")
	mustWrite(t, bin, "#!/bin/sh\n", 0o755)
	mustWrite(t, filepath.Join(env.Project, ".codex", "hooks.json"), strings.ReplaceAll(`{"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":"B approve --client codex"}]}]}}`, "B", bin), 0o644)
	t.Setenv("INTERCEPTOR_TIMEOUT", "15m")
	if rep := Run(env, "", time.Now()); !hasFinding(rep, "codex", OK, "Codex's default 10m0s covers its --timeout 5m0s") {
		t.Fatalf("INTERCEPTOR_TIMEOUT read as approve's --timeout: %+v", findingsOf(rep, "codex"))
	}
}
