package doctor

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/interceptor-dev/interceptor/internal/install"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// Claude Code sends a failed call to PostToolUseFailure, not PostToolUse
// (2.1.330, observed): install writes capture there too (never with
// --redact: that event has no result to rewrite), doctor counts it apart
// from the PostToolUse one and warns when a file from before lacks it.
func TestClaudePostToolUseFailureCapture(t *testing.T) {
	env := testEnv(t)
	o := opts("claude-code", install.User)
	o.Hook.Redact = true
	o.Bin = filepath.Join(env.Home, "bin", "interceptor")
	res := mustInstall(t, env, o)
	path := res.Path
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	cmd := gjson.Get(doc, "hooks.PostToolUseFailure.0.hooks.0.command").Str
	if cmd != o.Bin+" capture --client claude-code --server wf" {
		t.Fatalf("PostToolUseFailure hook %q", cmd)
	}
	if m := gjson.Get(doc, "hooks.PostToolUseFailure.0.matcher").Str; m != gjson.Get(doc, "hooks.PostToolUse.0.matcher").Str || m == "" {
		t.Errorf("matcher %q", m)
	}
	mustWrite(t, o.Bin, "#!/bin/sh\n", 0o755)
	rep := Run(env, "", time.Now())
	if hasFinding(rep, "claude-code", Warn, "capture hooks (in") || hasFinding(rep, "claude-code", Warn, "no PostToolUseFailure") {
		t.Fatalf("findings: %+v", findingsOf(rep, "claude-code"))
	}
	// A settings file installed before this event was wired.
	old, _ := sjson.Delete(doc, "hooks.PostToolUseFailure")
	mustWrite(t, path, old, 0o644)
	rep = Run(env, "", time.Now())
	if !hasFinding(rep, "claude-code", Warn, "no PostToolUseFailure capture hook") {
		t.Fatalf("no warning for the missing failure hook: %+v", findingsOf(rep, "claude-code"))
	}
}
