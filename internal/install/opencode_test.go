package install

import (
	"strings"
	"testing"

	"github.com/interceptor-dev/interceptor/internal/hooks"
	"github.com/interceptor-dev/interceptor/recipes"
)

// shimLine is the line of a shim that starts with prefix.
func shimLine(t *testing.T, doc, prefix string) string {
	t.Helper()
	for _, l := range strings.Split(doc, "\n") {
		if strings.HasPrefix(l, prefix) {
			return l
		}
	}
	t.Fatalf("no %q line in the shim:\n%s", prefix, doc)
	return ""
}

// TestOpenCodeDeliver: install --deliver puts the human tools server in the
// shim's DELIVER_ARGS (with the state dir) and leaves the token servers'
// lines alone; a token install keeps DELIVER_ARGS; uninstall takes each out,
// and the file goes with the last server of either kind.
func TestOpenCodeDeliver(t *testing.T) {
	env := testEnv(t)
	human := opts("opencode", Project)
	human.Server, human.Deliver, human.Hook.StateDir = "human", true, "/var/state"
	res, err := Install(env, human)
	if err != nil {
		t.Fatal(err)
	}
	doc := mustRead(t, res.Path)
	for prefix, want := range map[string]string{
		shimDeliverArgs: `["--server", "human", "--state-dir", "/var/state"]`,
		shimArgs:        `[]`, shimCaptureArgs: `[]`, shimApproveArgs: `[]`,
		shimBin: `"` + testBin + `"`,
	} {
		if got := shimLine(t, doc, prefix); got != prefix+" "+want {
			t.Errorf("got %s, want %s %s", got, prefix, want)
		}
	}
	// The token server joins; DELIVER_ARGS stays.
	wf := opts("opencode", Project)
	wf.Hook.Redact = true
	if _, err := Install(env, wf); err != nil {
		t.Fatal(err)
	}
	doc = mustRead(t, res.Path)
	if shimLine(t, doc, shimArgs) != shimArgs+` ["--server", "wf"]` || shimLine(t, doc, shimCaptureArgs) != shimCaptureArgs+` ["--redact"]` ||
		shimLine(t, doc, shimDeliverArgs) != shimDeliverArgs+` ["--server", "human", "--state-dir", "/var/state"]` {
		t.Fatalf("after the token install:\n%s", doc)
	}
	// A second human tools server; installing one again changes nothing.
	human2 := human
	human2.Server = "asks"
	for _, o := range []Options{human2, human2, human} {
		if _, err := Install(env, o); err != nil {
			t.Fatal(err)
		}
	}
	doc = mustRead(t, res.Path)
	if got := shimLine(t, doc, shimDeliverArgs); got != shimDeliverArgs+` ["--server", "human", "--server", "asks", "--state-dir", "/var/state"]` {
		t.Fatalf("two human tools servers: %s", got)
	}
	// Uninstall: the token server, then the human tools servers.
	if _, err := Uninstall(env, wf); err != nil {
		t.Fatal(err)
	}
	doc = mustRead(t, res.Path)
	if shimLine(t, doc, shimArgs) != shimArgs+` []` || shimLine(t, doc, shimCaptureArgs) != shimCaptureArgs+` []` ||
		!strings.Contains(shimLine(t, doc, shimDeliverArgs), `"asks"`) {
		t.Fatalf("after uninstalling wf:\n%s", doc)
	}
	if _, err := Uninstall(env, human); err != nil {
		t.Fatal(err)
	}
	if got := shimLine(t, mustRead(t, res.Path), shimDeliverArgs); got != shimDeliverArgs+` ["--server", "asks", "--state-dir", "/var/state"]` {
		t.Fatalf("after uninstalling human: %s", got)
	}
	if r, err := Uninstall(env, human2); err != nil || !r.Removed || exists(res.Path) {
		t.Fatalf("the last server's uninstall: %+v %v", r, err)
	}
	// --deliver with --redact or --approve is refused, as for the other clients.
	bad := human
	bad.Hook.Redact = true
	if _, err := Install(env, bad); err == nil || !strings.Contains(err.Error(), "--deliver installs only") {
		t.Fatalf("--deliver --redact: %v", err)
	}
}

// TestKiloShimNamesKilo: the shim install writes for Kilo names Kilo's
// config file and plugin dirs in its comments; its code is OpenCode's,
// --client opencode included.
func TestKiloShimNamesKilo(t *testing.T) {
	env := testEnv(t)
	res, err := Install(env, opts("kilo", Project))
	if err != nil {
		t.Fatal(err)
	}
	doc := mustRead(t, res.Path)
	for _, want := range []string{"// interceptor plugin shim for Kilo CLI", "name in kilo.json", "copy to .kilo/plugin/interceptor.ts", "~/.config/kilo/plugin/interceptor.ts"} {
		if !strings.Contains(doc, want) {
			t.Errorf("the Kilo shim lacks %q", want)
		}
	}
	for _, l := range strings.Split(doc, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "//") && (strings.Contains(l, "opencode.json") || strings.Contains(l, "opencode/plugin")) {
			t.Errorf("a comment of the Kilo shim names OpenCode's files: %s", l)
		}
	}
	// Code lines: the recipe's, but for the constants install fills in.
	code := func(s string) []string {
		var out []string
		for _, l := range strings.Split(s, "\n") {
			if !strings.HasPrefix(strings.TrimSpace(l), "//") && !strings.HasPrefix(l, "const ") {
				out = append(out, l)
			}
		}
		return out
	}
	if a, b := code(doc), code(recipes.OpenCodeShim); strings.Join(a, "\n") != strings.Join(b, "\n") {
		t.Errorf("the Kilo shim's code differs from the recipe's")
	}
	if !strings.Contains(doc, `"--client", "opencode"`) {
		t.Errorf("the Kilo shim does not call interceptor with --client opencode")
	}
	// install reads it back as its shim: a second server joins it.
	o := opts("kilo", Project)
	o.Server = "wf2"
	if _, err := Install(env, o); err != nil {
		t.Fatal(err)
	}
	if got := shimLine(t, mustRead(t, res.Path), shimArgs); got != shimArgs+` ["--server", "wf", "--server", "wf2"]` {
		t.Fatalf("second Kilo server: %s", got)
	}
	// --deliver as for OpenCode (Kilo's chat.message: e2e TestHumanToolsKilo).
	o.Server, o.Deliver = "human", true
	if _, err := Install(env, o); err != nil {
		t.Fatal(err)
	}
	if got := shimLine(t, mustRead(t, res.Path), shimDeliverArgs); got != shimDeliverArgs+` ["--server", "human"]` {
		t.Fatalf("Kilo --deliver: %s", got)
	}
	// The OpenCode shim's comments are the recipe's.
	oc, err := Install(env, opts("opencode", Project))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(mustRead(t, oc.Path), shimHeader+hooks.OpenCodeClient.Display+".\n") {
		t.Fatalf("the OpenCode shim's header changed:\n%s", mustRead(t, oc.Path)[:200])
	}
}

// TestOpenCodeUninstallLastServer: when the last server goes, the shim goes,
// even though the second install kept install's own first shim as the
// backup (only a hand-copied recipe is put back: TestOpenCodeRestoresHandCopiedShim).
func TestOpenCodeUninstallLastServer(t *testing.T) {
	env := testEnv(t)
	a, b := opts("opencode", Project), opts("opencode", Project)
	b.Server = "wf2"
	res, err := Install(env, a)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Install(env, b); err != nil {
		t.Fatal(err)
	}
	for _, o := range []Options{a, b} {
		if _, err := Uninstall(env, o); err != nil {
			t.Fatal(err)
		}
	}
	if exists(res.Path) {
		t.Fatalf("the shim outlived its last server:\n%s", mustRead(t, res.Path))
	}
}
