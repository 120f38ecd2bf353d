package install

import (
	"testing"

	"github.com/tidwall/gjson"
)

// TestCodexTrustHashUserPromptSubmit: Codex hashes a UserPromptSubmit hook
// without its group's matcher. Checked against Codex CLI 0.169.0 (codex
// exec, hooks.json in CODEX_HOME, its hooks.state record keyed
// "<hooks.json>:user_prompt_submit:0:0"): with this trusted_hash the hook
// ran, both when the group had no matcher and when it had "^zzz$" (which
// Codex ignores for this event); the hashes with "matcher" as null, "",
// "*" or "^zzz$" were skipped.
func TestCodexTrustHashUserPromptSubmit(t *testing.T) {
	const seen = "sha256:c9444cc0a085cc2a0fbaff3eff0ce39ee19b7b00c7f2d83e27f44f22cd438cf3"
	hook := gjson.Parse(`{"type":"command","command":"/tmp/cx/hook.sh","timeout":10}`)
	zzz, empty := "^zzz$", ""
	for name, m := range map[string]*string{"none": nil, zzz: &zzz, `""`: &empty} {
		if got, ok := codexHookHash("UserPromptSubmit", m, hook); !ok || got != seen {
			t.Errorf("matcher %s: hash %s %v, want %s", name, got, ok, seen)
		}
	}
	// Other events keep the matcher in the hash.
	a, _ := codexHookHash("SessionStart", nil, hook)
	b, _ := codexHookHash("SessionStart", &zzz, hook)
	if a == b {
		t.Error("SessionStart's hash ignores the matcher")
	}
	// Not checked against Codex: no hash.
	for _, ev := range []string{"Stop", "SessionEnd"} {
		if h, ok := codexHookHash(ev, nil, hook); ok {
			t.Errorf("%s got a hash %s", ev, h)
		}
	}
}

// TestInstallCodexDeliverTrust: install codex --deliver --trust records
// both deliver hooks (UserPromptSubmit, PostToolUse) as trusted.
func TestInstallCodexDeliverTrust(t *testing.T) {
	env := testEnv(t)
	o := opts("codex", User)
	o.Server, o.Deliver, o.Trust = "human", true, true
	if _, err := Install(env, o); err != nil {
		t.Fatal(err)
	}
	got := trustStates(t, env, "codex", User)
	if len(got) != 2 || got["UserPromptSubmit"] != "trusted" || got["PostToolUse"] != "trusted" {
		t.Fatalf("trust %v, want UserPromptSubmit and PostToolUse trusted", got)
	}
}
