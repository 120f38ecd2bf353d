package install

import (
	"strings"
	"testing"

	"github.com/interceptor-dev/interceptor/internal/hooks"
	"github.com/tidwall/gjson"
)

func TestCopilotHooksFile(t *testing.T) {
	env := testEnv(t)
	o := opts("copilot", Project)
	o.Server = "wf.v2"
	o.Hook.Redact = true
	res, err := Install(env, o)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(res.Path, "/.github/hooks/interceptor.json") {
		t.Errorf("path %s", res.Path)
	}
	doc := mustRead(t, res.Path)
	// Copilot matches the WHOLE tool name: the matcher must cover the tool;
	// it spells wf.v2's tools wf-v2-<tool> (observed.json).
	if m := gjson.Get(doc, "hooks.preToolUse.0.matcher").Str; m != `^wf-v2-.*` {
		t.Errorf("matcher %q", m)
	}
	if gjson.Get(doc, "version").Int() != 1 || !strings.Contains(gjson.Get(doc, "hooks.postToolUse.0.hooks.0.command").Str, " capture --client copilot --server wf.v2 --redact") {
		t.Errorf("hooks file:\n%s", doc)
	}
	if !strings.Contains(strings.Join(res.Notes, "\n"), hooks.CopilotClient.RedactCaveat) {
		t.Errorf("notes %q", res.Notes)
	}
}
