package install

import (
	"slices"
	"strings"
	"testing"

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
		if res, err := Uninstall(env, o); err != nil || !res.Changed || exists(res.Path) {
			t.Fatalf("%s uninstall: %+v %v", client, res, err)
		}
	}
	for _, client := range []string{"cursor", "copilot"} { // opencode, kilo: opencode_test.go
		o := opts(client, User)
		o.Server, o.Deliver = "human", true
		if _, err := Install(env, o); err == nil || !strings.Contains(err.Error(), "no turn-start hook") {
			t.Errorf("%s --deliver: %v", client, err)
		}
	}
}

// TestDeliverSupportedClients: the clients --deliver's refusal names as
// supported are exactly those whose install --deliver succeeds.
func TestDeliverSupportedClients(t *testing.T) {
	env := testEnv(t)
	o := opts("cursor", User)
	o.Server, o.Deliver = "human", true
	_, err := Install(env, o)
	if err == nil {
		t.Fatal("cursor --deliver installed")
	}
	_, list, ok := strings.Cut(err.Error(), "(supported: ")
	list, _, _ = strings.Cut(list, ";")
	supported := strings.Split(list, ", ")
	if !ok || len(supported) < 2 {
		t.Fatalf("refusal %q names no supported clients", err)
	}
	for _, client := range Clients() {
		o := opts(client, User)
		o.Server, o.Deliver = "human", true
		_, err := Install(env, o)
		if named := slices.Contains(supported, client); named != (err == nil) {
			t.Errorf("%s: named as supported %v, install --deliver: %v", client, named, err)
		}
	}
}
