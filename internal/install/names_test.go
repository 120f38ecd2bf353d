package install

import (
	"regexp"
	"testing"

	"github.com/tidwall/gjson"
)

// TestMatchersFollowClientSpelling: the round-1 failure. Codex spells a
// server "workflow-server" as mcp__workflow_server__ (observed with Codex
// 0.169.0, internal/hooks/testdata/names/observed.json); a matcher with the
// '-' never fired.
func TestMatchersFollowClientSpelling(t *testing.T) {
	for client, c := range map[string]struct{ matcher, tool, notTool string }{
		"claude-code": {`^mcp__workflow-server__`, "mcp__workflow-server__next_step", "mcp__workflow_server__next_step"},
		"codex":       {`^mcp__workflow_server__`, "mcp__workflow_server__next_step", "mcp__workflow-server__next_step"},
	} {
		env := testEnv(t)
		o := opts(client, User)
		o.Server = "workflow-server"
		res, err := Install(env, o)
		if err != nil {
			t.Fatal(err)
		}
		m := gjson.Get(mustRead(t, res.Path), "hooks.PreToolUse.0.matcher").Str
		if m != c.matcher {
			t.Errorf("%s matcher %q, want %q", client, m, c.matcher)
			continue
		}
		re := regexp.MustCompile(m)
		if !re.MatchString(c.tool) || re.MatchString(c.notTool) {
			t.Errorf("%s matcher %q must match %s and not %s", client, m, c.tool, c.notTool)
		}
	}
}
