package install

import (
	"strings"
	"testing"

	"github.com/interceptor-dev/interceptor/internal/hooks"
	"github.com/tidwall/gjson"
)

func TestDroidSettings(t *testing.T) {
	env := testEnv(t)
	o := opts("droid", User)
	o.Hook.Redact = true
	res, err := Install(env, o)
	if err != nil {
		t.Fatal(err)
	}
	doc := mustRead(t, res.Path)
	if !strings.HasSuffix(res.Path, "/.factory/settings.json") || gjson.Get(doc, "hooks.PreToolUse.0.matcher").Str != "^wf___" ||
		gjson.Get(doc, "hooks.PreToolUse.0.hooks.0.timeout").Int() != int64(hooks.DroidClient.Timeout) {
		t.Errorf("%s:\n%s", res.Path, doc)
	}
	if strings.Contains(doc, "--redact") || !strings.Contains(strings.Join(res.Notes, "\n"), "Droid cannot rewrite") {
		t.Errorf("--redact: %s %q", doc, res.Notes)
	}
}
