package install

import (
	"os"
	"strings"
	"testing"

	"github.com/interceptor-dev/interceptor/internal/hooks"
	"github.com/tidwall/gjson"
)

// shadow installs the approve, inject and capture hooks of server wf for
// client at user scope, then adds an empty list named event after the one
// install wrote: the file the client reads has no hooks for event.
func shadow(t *testing.T, env Env, client, event, next string) string {
	t.Helper()
	o := opts(client, User)
	o.Approve.On = true
	res, err := Install(env, o)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(res.Path)
	if err != nil {
		t.Fatal(err)
	}
	// Install wrote event's list, then next's: an empty event list between
	// them comes last of its name.
	out := strings.Replace(string(doc), `"`+next+`"`, `"`+event+`": [], "`+next+`"`, 1)
	if out == string(doc) {
		t.Fatalf("no %q in\n%s", next, doc)
	}
	if err := os.WriteFile(res.Path, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	return res.Path
}

// TestShadowedDuplicateIsNotInstalled: JSON.parse keeps the last member of
// a name, so Gemini CLI runs no BeforeTool hook of a settings.json whose
// second "BeforeTool" is empty (issue 22, item 3). Install reads it as the
// client does: the approve hook is not found, and installing again writes
// the hooks where Gemini CLI reads them instead of reporting nothing to do.
func TestShadowedDuplicateIsNotInstalled(t *testing.T) {
	env := testEnv(t)
	path := shadow(t, env, "gemini", "BeforeTool", "AfterTool")
	if found, err := FindApproveHooks(env, "gemini"); err != nil || len(found) != 0 {
		t.Fatalf("FindApproveHooks = %v, %v; want none (the list Gemini CLI reads is empty)", found, err)
	}
	hooks, err := FindHooks(path, []byte(mustRead(t, path)), mustClient(t, "gemini"))
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hooks {
		if h.Event == "BeforeTool" {
			t.Fatalf("found %s hook %q in the shadowed list", h.Event, h.Raw)
		}
	}
	o := opts("gemini", User)
	o.Approve.On = true
	res, err := Install(env, o)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Changed {
		t.Fatal("install found nothing to change")
	}
	// Read as JSON.parse reads it: the last BeforeTool has approve, then inject.
	read := string(standardJSON([]byte(mustRead(t, path))))
	cmds := gjson.Get(read, "hooks.BeforeTool.0.hooks.#.command").Array()
	if len(cmds) != 2 || !strings.Contains(cmds[0].Str, " approve ") || !strings.Contains(cmds[1].Str, " inject ") {
		t.Fatalf("the BeforeTool list Gemini CLI reads holds %v:\n%s", cmds, mustRead(t, path))
	}
	if found, err := FindApproveHooks(env, "gemini"); err != nil || len(found) != 1 {
		t.Fatalf("after install: FindApproveHooks = %v, %v", found, err)
	}
}

// TestPlainReadsTheLastDuplicate: a hook object's fields are read the way
// the client reads them too (gjson alone would take the first "timeout").
func TestPlainReadsTheLastDuplicate(t *testing.T) {
	doc := []byte(`{"hooks":{"BeforeTool":[{"matcher":"x","hooks":[{"type":"command","command":"/b/interceptor approve","timeout":600000,"timeout":1}]}]}}`)
	hooks, err := FindHooks("settings.json", doc, mustClient(t, "gemini"))
	if err != nil || len(hooks) != 1 {
		t.Fatalf("FindHooks = %v, %v", hooks, err)
	}
	if got := hooks[0].Timeout.Raw; got != "1" {
		t.Fatalf("timeout read as %s, want the last one, 1", got)
	}
	if got := gjson.GetBytes(standardJSON(doc), "hooks.BeforeTool.0.hooks.0.timeout").Raw; got != "1" {
		t.Fatalf("standardJSON keeps timeout %s, want 1", got)
	}
}

// TestCodexRefusesDuplicateKeys: Codex reads hooks.json into serde structs,
// which refuse a repeated field: it runs none of the file's hooks. Install
// and the readers refuse the file, naming the key.
func TestCodexRefusesDuplicateKeys(t *testing.T) {
	env := testEnv(t)
	path := shadow(t, env, "codex", "PreToolUse", "PostToolUse")
	_, err := FindApproveHooks(env, "codex")
	if err == nil || !strings.Contains(err.Error(), `repeats the key "PreToolUse" in hooks`) || !strings.Contains(err.Error(), path) {
		t.Fatalf("FindApproveHooks: %v", err)
	}
	o := opts("codex", User)
	o.Approve.On = true
	if _, err := Install(env, o); err == nil || !strings.Contains(err.Error(), "Codex does not accept") {
		t.Fatalf("install: %v", err)
	}
	doc := `{"hooks":{"PreToolUse":[{"matcher":"a","matcher":"b","hooks":[]}]}}`
	if _, err := FindHooks("hooks.json", []byte(doc), mustClient(t, "codex")); err == nil || !strings.Contains(err.Error(), `"matcher" in hooks.PreToolUse[0]`) {
		t.Fatalf("a repeated matcher: %v", err)
	}
}

func mustClient(t *testing.T, name string) *hooks.Client {
	t.Helper()
	c, ok := hooks.FindClient(name)
	if !ok {
		t.Fatalf("no client %s", name)
	}
	return c
}
