package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/interceptor-dev/interceptor/internal/hooks"
)

// install --redact's help names exactly the clients that can hide the
// token from the model (hooks.Client.RewritesResult).
func TestRedactHelpNamesTheClients(t *testing.T) {
	usage := newInstallCmd(&IO{}, runInstall).Flags().Lookup("redact").Usage
	named, _, _ := strings.Cut(usage, ";")
	for _, c := range hooks.Clients {
		if strings.Contains(named, c.Display) != c.RewritesResult {
			t.Errorf("--redact's help %q: %s named: %v, rewrites results: %v", usage, c.Display, !c.RewritesResult, c.RewritesResult)
		}
	}
}

// TestHelpFollowsTheClients: a client added to the descriptions shows up
// in every help that lists clients, which a list written by hand would
// not: the root's, install's (its config files), capture's and --redact's
// (it rewrites results), clear's (its session end), children's (it runs
// headless), mcp's create tool, approve's (install writes it, and where
// new arguments do not reach the call) and deliver's (its turn-start
// event); mcp's names the client permit answers.
func TestHelpFollowsTheClients(t *testing.T) {
	tenth := hooks.ClaudeCodeClient
	tenth.Name, tenth.Display, tenth.SessionEnd = "tenth", "Tenth Agent", "TenthEnd"
	tenth.PromptEvent, tenth.NewInputCaveat = "TenthPrompt", "Tenth Agent drops new input on its TenthTool event"
	tenth.User = hooks.Path{Root: hooks.HomeDir, Rel: ".tenth/hooks.json"}
	saved := hooks.Clients
	hooks.Clients = append(append([]*hooks.Client{}, saved...), &tenth)
	t.Cleanup(func() { hooks.Clients = saved })

	help := func(args ...string) string {
		t.Helper()
		var out, errb bytes.Buffer
		if code := run(append(args, "--help"), &IO{In: strings.NewReader(""), Out: &out, Err: &errb}); code != 0 {
			t.Fatalf("%v --help: exit %d: %s", args, code, errb.String())
		}
		return strings.Join(strings.Fields(out.String()), " ")
	}
	for _, c := range []struct {
		args []string
		want []string
	}{
		{nil, []string{"Tenth Agent", "opencode, tenth)"}},
		{[]string{"install"}, []string{"tenth ~/.tenth/hooks.json, <project>/.claude/settings.json", "OpenCode and Tenth Agent; the others cannot rewrite"}},
		{[]string{"capture"}, []string{"Kilo CLI, OpenCode and Tenth Agent)"}},
		{[]string{"clear"}, []string{"Claude Code SessionEnd, Tenth Agent TenthEnd"}},
		{[]string{"children", "create"}, []string{"claude-code|codex|gemini|opencode|tenth", "Claude Code and Tenth Agent: an MCP config file"}},
		{[]string{"approve"}, []string{"OpenCode and Tenth Agent.", "Tenth Agent drops new input on its TenthTool event"}},
		{[]string{"deliver"}, []string{"Gemini CLI BeforeAgent", "Tenth Agent TenthPrompt"}},
		{[]string{"mcp"}, []string{"permit, for " + hooks.PermitClient.Display + "'s --permission-prompt-tool"}},
	} {
		got := help(c.args...)
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("interceptor %v --help lacks %q:\n%s", c.args, w, got)
			}
		}
	}
}

// install reads its flags and client into the options it runs with,
// without touching a config: a test's runF sees them.
func TestInstallOptionsFromFlags(t *testing.T) {
	dir := t.TempDir()
	var got *installRun
	cmd := newInstallCmd(&IO{In: strings.NewReader(""), Out: &bytes.Buffer{}, Err: &bytes.Buffer{}}, func(r *installRun) error { got = r; return nil })
	cmd.SetArgs([]string{hooks.CodexClient.Name, "--server", "wf", "--scope", "project", "--project", dir, "--approve", "--approve-timeout", "2m", "--skip-tool", "a"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	o := got.Opts
	if o.Client != hooks.CodexClient.Name || o.Server != "wf" || o.Scope != "project" || !o.Approve.On || o.Approve.Timeout.String() != "2m0s" ||
		strings.Join(o.Hook.SkipTools, ",") != "a" || got.Env.Project != dir {
		t.Errorf("options %+v, env %+v", o, got.Env)
	}
	cmd = newInstallCmd(&IO{In: strings.NewReader(""), Out: &bytes.Buffer{}, Err: &bytes.Buffer{}}, func(*installRun) error { t.Error("ran"); return nil })
	cmd.SetArgs([]string{hooks.CodexClient.Name, "--server", "wf", "--approve-match", "x"})
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	if err := cmd.Execute(); err == nil || !strings.Contains(err.Error(), "need --approve") {
		t.Errorf("--approve-match without --approve: %v", err)
	}
}
