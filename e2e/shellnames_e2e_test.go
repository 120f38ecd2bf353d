//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/interceptor-dev/interceptor/e2e/fakemodel"
	"github.com/interceptor-dev/interceptor/internal/approvals"
	"github.com/interceptor-dev/interceptor/internal/hooks"
)

// TestShellToolNames observes the name each real client's pre-tool hook
// gets for its shell tool, which `install --approve-shell` gates (issue
// 12.3: a child's shell can run `interceptor approvals allow` otherwise),
// and compares it with hooks.Client.ShellTool. Each client runs one session
// with a logging pre-tool hook and no MCP server; the fake model calls the
// client's shell tool once with a marker command. Then, for each client
// install can gate, the same session runs again after `interceptor install
// --approve --approve-shell`: the shell call must reach the approval queue,
// and a supervisor's deny keeps the command from running.
func TestShellToolNames(t *testing.T) {
	parallel(t)
	// Every session is its own scenario: they run as parallel subtests.
	for _, nc := range append(slices.Clone(namesClients), namesClients2...) {
		t.Run(nc.id, func(t *testing.T) { parallel(t); observeShell(t, nc, false) })
	}
	for _, nc := range append(slices.Clone(namesClients), namesClients2...) {
		if c, _ := hooks.FindClient(nc.id); c.NoApprove || c.ShellTool == "" {
			continue
		}
		t.Run(nc.id+"/gated", func(t *testing.T) { parallel(t); observeShell(t, nc, true) })
	}
}

// shellDenied is the supervisor's reason for denying the shell call.
const shellDenied = "E2E-SHELL-DENIED: no shell for this child"

// shellMarker is in the command the fake model runs.
const shellMarker = "interceptor-shell-probe"

// shellArgs are the arguments each shell tool, as the model is offered it,
// takes for one command.
// takes for one command: touch a file named shellMarker in the cwd.
func shellArgs(name string) (map[string]any, bool) {
	cmd := "touch " + shellMarker
	args, ok := map[string]map[string]any{
		"Bash":              {"command": cmd, "description": "make a marker file"},
		"bash":              {"command": cmd, "description": "make a marker file"},
		"exec_command":      {"cmd": cmd},
		"shell":             {"command": []string{"bash", "-lc", cmd}},
		"shell_command":     {"command": cmd},
		"run_shell_command": {"command": cmd, "description": "make a marker file"},
		"run_commands":      {"commands": []string{cmd}},
		"Execute":           {"command": cmd, "riskLevel": "low", "riskLevelReason": "makes a marker file"},
	}[name]
	return args, ok
}

// shellScript calls the first offered shell tool (shellArgs) once, then
// answers FinalText.
type shellScript struct{}

func (shellScript) Plan(c fakemodel.Conversation, tools []fakemodel.Tool) (fakemodel.Action, bool) {
	for _, tool := range tools {
		if args, ok := shellArgs(tool.Name); ok {
			if len(c.Results) == 0 {
				return fakemodel.Action{Tool: tool, Args: args}, true
			}
			return fakemodel.Action{Text: fakemodel.FinalText}, true
		}
	}
	return fakemodel.Action{Text: fakemodel.SideText}, false
}

func observeShell(t *testing.T, nc namesClient, gated bool) {
	sc := &scenario{t: t, c: nc.c, sessions: 1}
	sc.setUp()
	sc.model = fakemodel.New(fakemodel.Options{RecordDir: sc.recordDir, Script: shellScript{}})
	defer sc.serveModel(sc.model)()
	defer killLeftovers(t, sc)
	argv := nc.configure(sc, map[string][]string{})
	var denied func() []approvals.Request
	if gated {
		installShellGate(sc, nc.id)
		denied = denyShell(t, sc.stateDir)
	}
	defArgv, env, stdin := nc.c.command(sc)
	if argv == nil {
		argv = defArgv
	}
	if nc.id == "gemini" {
		argv = append(argv, "--approval-mode", "yolo") // headless, the shell is offered only then
	}
	r := &sessionRun{stdout: sc.path("session0.stdout"), stderr: sc.path("session0.stderr")}
	sc.runs = []*sessionRun{r}
	t0 := time.Now()
	r.err = runClient(argv, append(sc.baseEnv(), append(env, nc.env...)...), stdin, sc.proj, r.stdout, r.stderr)
	r.took = time.Since(t0)
	t.Logf("%s: session finished in %s", nc.c.name, r.took.Round(time.Millisecond))

	var offered []string
	for _, rq := range sc.model.Requests() {
		for _, tool := range fakemodel.ToolsOf(rq.Body) {
			if !slices.Contains(offered, tool.String()) {
				offered = append(offered, tool.String())
			}
		}
	}
	var shell string
	for _, name := range offered {
		if _, ok := shellArgs(name); ok && shell == "" {
			shell = name
		}
	}
	if shell == "" {
		t.Fatalf("%s offered no shell tool this test knows: %q", nc.c.name, offered)
	}
	want := ""
	if c, ok := hooks.FindClient(nc.id); ok {
		want = c.ShellTool
	}
	if gated {
		// The approve hook's deny is all that is checked: the logging
		// plugin of OpenCode and Kilo runs after the shim, which a deny
		// stops.
		reqs := denied()
		if len(reqs) != 1 || reqs[0].Tool != want {
			t.Errorf("%s with --approve-shell: the supervisor was asked about %d call(s), want one of %s: %+v", nc.c.name, len(reqs), want, reqs)
		}
		if _, err := os.Stat(filepath.Join(sc.proj, shellMarker)); err == nil {
			t.Errorf("%s ran the shell command the supervisor denied", nc.c.name)
		}
		reached := false
		for _, rq := range sc.model.Requests() {
			reached = reached || bytes.Contains(rq.Body, []byte("E2E-SHELL-DENIED"))
		}
		if !reached {
			t.Errorf("%s: the supervisor's deny never reached the model", nc.c.name)
		}
		return
	}
	var seen []string
	for _, p := range readHookPayloads(t, sc.path("loghook.log")) {
		if strings.Contains(p.raw, shellMarker) && !slices.Contains(seen, p.ToolName) {
			seen = append(seen, p.ToolName)
		}
	}
	t.Logf("%s: the model was offered %q; the pre-tool hook saw it as %q (hooks.Client.ShellTool %q)", nc.c.name, shell, seen, want)
	if len(seen) != 1 || seen[0] != want {
		if b, err := os.ReadFile(r.stderr); err == nil {
			t.Logf("stderr:\n%s", tail(string(b), 30))
		}
		t.Errorf("%s's pre-tool hook named its shell tool %q, hooks.Client.ShellTool says %q", nc.c.name, seen, want)
	}
}

// installShellGate runs `interceptor install CLIENT --server wf --approve
// --approve-shell`, as a user would (the plugin clients at project scope).
func installShellGate(sc *scenario, client string) {
	sc.t.Helper()
	args := []string{"install", client, "--server", "wf", "--approve", "--approve-shell", "--approve-timeout", "1m", "--bin", bins.interceptor}
	env := sc.baseEnv()
	switch client {
	case "codex":
		env = append(env, "CODEX_HOME="+sc.path("codex-home"))
	case "opencode", "kilo":
		args = append(args, "--scope", "project", "--project", sc.proj)
	}
	cmd := exec.Command(bins.interceptor, args...)
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil {
		sc.t.Fatalf("interceptor %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	sc.t.Logf("interceptor %s:\n%s", strings.Join(args, " "), out)
}

// denyShell denies every request that reaches the queue under stateDir;
// the func it returns stops that and returns the requests denied.
func denyShell(t *testing.T, stateDir string) func() []approvals.Request {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan []approvals.Request, 1)
	store := approvals.New(stateDir)
	go func() {
		var seen []approvals.Request
		defer func() { done <- seen }()
		for ctx.Err() == nil {
			pending, err := store.WaitPending(ctx)
			if err != nil {
				select {
				case <-ctx.Done():
				case <-time.After(100 * time.Millisecond):
				}
				continue
			}
			for _, r := range pending {
				if _, err := store.Decide(r.ID, hooks.Decision{Reason: shellDenied, By: "e2e supervisor"}); err == nil {
					t.Logf("supervisor: denied %s (client %s, tool %s, input %s)", r.ID, r.Client, r.Tool, r.Input)
					seen = append(seen, r)
				}
			}
		}
	}()
	t.Cleanup(cancel)
	return func() []approvals.Request {
		cancel()
		return <-done
	}
}

// TestClineHookFileNames checks, with the real Cline, which files in its
// hooks dir run on PreToolUse (hooks.Client.ScriptEvent, which install and
// doctor use to name a user's own hooks that run beside interceptor's):
// the event's name in any case, with or without a lowercase script
// extension.
func TestClineHookFileNames(t *testing.T) {
	parallel(t)
	var nc namesClient
	for _, c := range namesClients2 {
		if c.id == "cline" {
			nc = c
		}
	}
	sc := &scenario{t: t, c: nc.c, sessions: 1}
	sc.setUp()
	sc.model = fakemodel.New(fakemodel.Options{RecordDir: sc.recordDir, Script: shellScript{}})
	defer sc.serveModel(sc.model)()
	defer killLeftovers(t, sc)
	nc.configure(sc, map[string][]string{})
	ran := sc.path("variants.log")
	names := []string{"pretooluse", "PRETOOLUSE.sh", "PreToolUse.bash", "PreToolUse.SH", "PreToolUse.txt", "PreToolUse2.sh"}
	for _, name := range names {
		p := filepath.Join(sc.home, ".cline", "hooks", name)
		sc.write(p, "#!/bin/sh\ncat >/dev/null\necho "+shellQuote(name)+" >>"+shellQuote(ran)+"\n")
		if err := os.Chmod(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	argv, env, stdin := nc.c.command(sc)
	if err := runClient(argv, append(sc.baseEnv(), env...), stdin, sc.proj, sc.path("session0.stdout"), sc.path("session0.stderr")); err != nil {
		t.Errorf("%s exited: %v", nc.c.name, err)
	}
	b, _ := os.ReadFile(ran)
	c, _ := hooks.FindClient("cline")
	for _, name := range names {
		got := slices.Contains(strings.Fields(string(b)), name)
		want := c.ScriptEvent(name) == c.PreTool
		t.Logf("%s: ran %v (ScriptEvent %q)", name, got, c.ScriptEvent(name))
		if got != want {
			t.Errorf("%s %s on PreToolUse, hooks.Client.ScriptEvent says it %s", nc.c.name, map[bool]string{true: "ran it", false: "did not run it"}[got], map[bool]string{true: "runs", false: "does not"}[want])
		}
	}
}
