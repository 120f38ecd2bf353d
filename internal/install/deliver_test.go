package install

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"
)

// TestInstallDeliver: --deliver writes deliver on the turn-start event and
// after the human server's tools (nothing else), doctor reads it as a human
// tools server, uninstall takes it out; clients without a turn-start hook
// are refused.
func TestInstallDeliver(t *testing.T) {
	env := testEnv(t)
	for client, want := range map[string][3]string{
		"claude-code": {"UserPromptSubmit", "PostToolUse", "^mcp__human__"},
		"codex":       {"UserPromptSubmit", "PostToolUse", "^mcp__human__"},
		"gemini":      {"BeforeAgent", "AfterTool", "^mcp_human_"},
	} {
		o := opts(client, User)
		o.Server, o.Deliver = "human", true
		res, err := Install(env, o)
		if err != nil {
			t.Fatalf("%s: %v", client, err)
		}
		doc := mustRead(t, res.Path)
		hooks := gjson.Get(doc, "hooks")
		if n := len(hooks.Map()); n != 2 {
			t.Fatalf("%s: %d hook events, want 2:\n%s", client, n, doc)
		}
		prompt, post := hooks.Get(want[0]+".0"), hooks.Get(want[1]+".0")
		cmd := testBin + " deliver --client " + client + " --server human"
		if prompt.Get("matcher").Exists() || prompt.Get("hooks.0.command").Str != cmd ||
			post.Get("matcher").Str != want[2] || post.Get("hooks.0.command").Str != cmd {
			t.Fatalf("%s hooks:\n%s", client, doc)
		}
		rep := Doctor(env, filepath.Join(env.Home, "state"), time.Now())
		if !hasFinding(rep, client, OK, `server "human": human tools deliver hooks installed`) {
			t.Fatalf("%s doctor: %+v", client, findingsOf(rep, client))
		}
		if res, err := Uninstall(env, o); err != nil || !res.Changed || exists(res.Path) {
			t.Fatalf("%s uninstall: %+v %v", client, res, err)
		}
	}
	for _, client := range []string{"opencode", "cursor"} {
		o := opts(client, User)
		o.Server, o.Deliver = "human", true
		if _, err := Install(env, o); err == nil || !strings.Contains(err.Error(), "no turn-start hook") {
			t.Errorf("%s --deliver: %v", client, err)
		}
	}
}
