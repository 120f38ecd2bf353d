package install

import (
	"strings"
	"testing"
	"time"

	"github.com/interceptor-dev/interceptor/internal/hooks"
	"github.com/tidwall/gjson"
)

// shellCases: each client's shell as approvals see it (issue 12.3). gate is
// what --approve-shell writes: the matcher of the gate's own group, or the
// shim's APPROVE_ARGS; "" where it cannot be gated.
var shellCases = []struct {
	client, shell, gate string
}{
	{"claude-code", "Bash", "^Bash$"},
	{"codex", "Bash", "^Bash$"},
	{"gemini", "run_shell_command", "^run_shell_command$"},
	{"opencode", "bash", `["--match", "(?:^wf_)|^bash$", "--timeout", "10m"]`},
	{"kilo", "bash", `["--match", "(?:^wf_)|^bash$", "--timeout", "10m"]`},
	{"cursor", "", ""},
}

// TestApproveShellGate: with approvals on, a child agent's shell can run
// `interceptor approvals allow` and decide its own requests (issue 12.3);
// install --approve says so, and --approve-shell covers the shell (doctor's
// side: internal/doctor's TestDoctorWarnsUngatedShell).
func TestApproveShellGate(t *testing.T) {
	for _, c := range shellCases {
		t.Run(c.client, func(t *testing.T) {
			env := testEnv(t)
			o := opts(c.client, User)
			o.Approve = ApproveOptions{On: true, Timeout: 10 * time.Minute}
			res, err := Install(env, o)
			if err != nil {
				t.Fatal(err)
			}
			notes := strings.Join(res.Notes, "\n")
			if c.gate != "" && !strings.Contains(notes, "shell tool "+c.shell+" can still run `interceptor approvals allow`; add --approve-shell") && !isPlugin(c.client) {
				t.Errorf("install --approve says nothing of the shell: %q", res.Notes)
			}
			if c.gate == "" && !strings.Contains(notes, "--approve cannot gate Cursor's shell") {
				t.Errorf("install --approve says nothing of Cursor's shell: %q", res.Notes)
			}
			o.Approve.Shell = true
			res, err = Install(env, o)
			if c.gate == "" {
				if err == nil || !strings.Contains(err.Error(), "--approve-shell: Cursor runs shell commands through its beforeShellExecution hook") {
					t.Fatalf("--approve-shell for Cursor: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			doc := mustRead(t, res.Path)
			if isPlugin(c.client) {
				checkApprove(t, c.client, doc, "", c.gate)
			} else {
				checkGate(t, c.client, doc, c.gate, approveCase[c.client].timeout)
			}
		})
	}
}

// checkGate checks the gate: one group of its own, with the shell's
// matcher, holding one approve hook whose --match repeats it.
func checkGate(t *testing.T, client, doc, matcher, timeout string) {
	t.Helper()
	event := approveCase[client].event
	plain := string(standardJSON([]byte(doc)))
	var gates []gjson.Result
	gjson.Get(plain, "hooks."+event).ForEach(func(_, g gjson.Result) bool {
		if g.Get("matcher").Str == matcher && strings.Contains(g.Get("hooks").Raw, " --match ") {
			gates = append(gates, g)
		}
		return true
	})
	if len(gates) != 1 {
		t.Fatalf("%d gates with matcher %q, want 1:\n%s", len(gates), matcher, doc)
	}
	hs := gates[0].Get("hooks").Array()
	want := testBin + " approve --client " + client + " --match '" + matcher + "' --timeout 10m"
	if len(hs) != 1 || hs[0].Get("command").Str != want || hs[0].Get("timeout").Raw != timeout {
		t.Fatalf("gate %s, want one hook running %q with timeout %s", gates[0].Raw, want, timeout)
	}
}

// --approve-shell round trip: on the clients' existing configs, install
// writes one gate, again changes nothing, a second server shares the gate,
// and uninstalling both leaves the file byte for byte as it was (a file
// install created: one server, as a second one's install takes a backup
// that uninstall then goes back to). An approve hook for the shell written
// by hand (install's former hint) is the user's.
func TestApproveShellRoundTrip(t *testing.T) {
	for _, client := range []string{"claude-code", "codex", "gemini"} {
		c, _ := hooks.FindClient(client)
		hand := `{"matcher": "` + shellMatcher(c) + `", "hooks": [{"type": "command", "command": "` + testBin + ` approve --client ` + client + ` --timeout 10m", "timeout": 630}]}`
		docs := append([]string{""}, preexisting[client]...)
		docs = append(docs, "{\n  \"hooks\": {\n    \""+c.PreTool+"\": [\n      "+hand+"\n    ]\n  }\n}\n")
		for i, pre := range docs {
			t.Run(client+"/"+string(rune('a'+i)), func(t *testing.T) {
				env := testEnv(t)
				path, _ := ConfigPath(env, client, User)
				if pre != "" {
					mustWrite(t, path, pre, 0o644)
				}
				o := opts(client, User)
				o.Approve = ApproveOptions{On: true, Timeout: 10 * time.Minute, Shell: true}
				if _, err := Install(env, o); err != nil {
					t.Fatal(err)
				}
				after := mustRead(t, path)
				checkGate(t, client, after, shellMatcher(c), approveCase[client].timeout)
				checkApprove(t, client, after, approveCase[client].timeout, " --timeout 10m")
				for _, again := range []Options{o, opts(client, User)} {
					if res, err := Install(env, again); err != nil || res.Changed {
						t.Fatalf("install again changed something: %+v %v\n%s", res, err, mustRead(t, path))
					}
				}
				last := o
				if pre != "" {
					o2 := o
					o2.Server = "wf2"
					if _, err := Install(env, o2); err != nil {
						t.Fatal(err)
					}
					checkGate(t, client, mustRead(t, path), shellMatcher(c), approveCase[client].timeout)
					if _, err := Uninstall(env, o); err != nil {
						t.Fatal(err)
					}
					checkGate(t, client, mustRead(t, path), shellMatcher(c), approveCase[client].timeout) // wf2's approvals keep it
					last = o2
				}
				if _, err := Uninstall(env, last); err != nil {
					t.Fatal(err)
				}
				if pre == "" {
					if exists(path) {
						t.Fatalf("uninstall left the file install created: %q", mustRead(t, path))
					}
				} else if got := mustRead(t, path); got != pre {
					t.Fatalf("after uninstall:\n%s\nwant byte-identical:\n%s", got, pre)
				}
			})
		}
	}
}

// --approve-shell where it cannot be written is refused, naming why.
func TestApproveShellRefused(t *testing.T) {
	env := testEnv(t)
	o := opts("claude-code", User)
	o.Approve.Shell = true
	if _, err := Install(env, o); err == nil || !strings.Contains(err.Error(), "--approve-shell needs --approve") {
		t.Errorf("--approve-shell alone: %v", err)
	}
	if path, _ := ConfigPath(env, "claude-code", User); exists(path) {
		t.Error("a refused install wrote the file")
	}
}
