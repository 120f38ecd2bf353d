package install

import (
	"strings"
	"testing"
	"time"

	"github.com/interceptor-dev/interceptor/internal/hooks"
	"github.com/tidwall/gjson"
)

// approveCase is where a client's approve hook lands and its timeout unit.
var approveCase = map[string]struct {
	event   string
	timeout string // the hook timeout for a 10m --approve-timeout
}{
	"claude-code": {"PreToolUse", "630"},
	"codex":       {"PreToolUse", "630"},
	"gemini":      {"BeforeTool", "630000"},
	"cursor":      {"preToolUse", "630"},
}

// preHooks lists the pre-tool event's hooks in order: command and timeout.
func preHooks(doc, event string) (cmds, timeouts []string) {
	doc = string(standardJSON([]byte(doc)))
	gjson.Get(doc, "hooks."+event).ForEach(func(_, g gjson.Result) bool {
		if c := g.Get("command"); c.Exists() {
			cmds, timeouts = append(cmds, c.Str), append(timeouts, g.Get("timeout").Raw)
		}
		g.Get("hooks").ForEach(func(_, h gjson.Result) bool {
			cmds, timeouts = append(cmds, h.Get("command").Str), append(timeouts, h.Get("timeout").Raw)
			return true
		})
		return true
	})
	return
}

// checkApprove checks the approve hook stands right before the inject hook
// (in its group, or right before it in a flat list) with the timeout want.
func checkApprove(t *testing.T, client, doc, wantTimeout, wantArgs string) {
	t.Helper()
	if isPlugin(client) {
		if !strings.Contains(doc, "const APPROVE_ARGS: string[] = "+wantArgs+"\n") {
			t.Fatalf("shim lacks APPROVE_ARGS %s:\n%s", wantArgs, doc)
		}
		return
	}
	c := approveCase[client]
	cmds, timeouts := preHooks(doc, c.event)
	doc = string(standardJSON([]byte(doc)))
	for i, cmd := range cmds {
		if strings.Contains(cmd, " inject ") && strings.Contains(cmd, "--server wf") {
			if i == 0 || !strings.HasPrefix(cmds[i-1], testBin+" approve --client "+client+wantArgs) {
				t.Fatalf("no approve hook %q right before inject: %q\n%s", wantArgs, cmds, doc)
			}
			if timeouts[i-1] != wantTimeout {
				t.Fatalf("approve hook timeout %s, want %s\n%s", timeouts[i-1], wantTimeout, doc)
			}
			if client != "cursor" {
				g := gjson.Get(doc, "hooks."+c.event+`.#(hooks.#(command%"* inject *"))`)
				if n := len(g.Get("hooks").Array()); n != 2 || !g.Get("matcher").Exists() {
					t.Fatalf("approve is not in the inject hook's group: %s", g.Raw)
				}
			}
			return
		}
	}
	t.Fatalf("no inject hook: %q", cmds)
}

func TestApproveRoundTrip(t *testing.T) {
	for _, client := range Clients() {
		if noApprove(client) {
			continue // TestApproveRefused
		}
		for _, scope := range []Scope{User, Project} {
			docs := append([]string{""}, preexisting[client]...)
			for i, pre := range docs {
				for _, upgrade := range []bool{false, true} {
					if upgrade && pre == "" {
						// Changing a file install created takes a backup of it,
						// which uninstall then keeps to: not a round trip.
						continue
					}
					name := client + "/" + string(scope) + "/" + string(rune('a'+i))
					if upgrade {
						name += "/upgrade"
					}
					t.Run(name, func(t *testing.T) {
						env := testEnv(t)
						path, err := ConfigPath(env, client, scope)
						if err != nil {
							t.Fatal(err)
						}
						if pre != "" {
							mustWrite(t, path, pre, 0o644)
						}
						plain := opts(client, scope)
						if upgrade {
							// A plain install first: --approve then adds to it.
							if _, err := Install(env, plain); err != nil {
								t.Fatal(err)
							}
						}
						o := plain
						o.Approve = ApproveOptions{On: true, Timeout: 10 * time.Minute}
						res, err := Install(env, o)
						if err != nil || !res.Changed {
							t.Fatalf("install --approve: %+v %v", res, err)
						}
						after := mustRead(t, path)
						checkInstalledPlain(t, client, after)
						wantArgs := " --timeout 10m"
						switch client {
						case "cursor":
							wantArgs = " --match '^MCP:' --timeout 10m"
						case "opencode", "kilo":
							wantArgs = `["--match", "^wf_", "--timeout", "10m"]`
						}
						checkApprove(t, client, after, approveCase[client].timeout, wantArgs)
						// Idempotent, and a plain install leaves the approve hook.
						for _, again := range []Options{o, plain} {
							res, err = Install(env, again)
							if err != nil || res.Changed || mustRead(t, path) != after {
								t.Fatalf("install again (approve %v) changed something: %+v %v\n%s", again.Approve.On, res, err, mustRead(t, path))
							}
						}
						// A longer --approve-timeout updates the hook in place. (Not
						// in a file install created: changing it takes a backup, and
						// uninstall then goes back to that.)
						if pre != "" {
							longer := o
							longer.Approve.Timeout = 20 * time.Minute
							if _, err := Install(env, longer); err != nil {
								t.Fatal(err)
							}
							longTimeout := map[string]string{"gemini": "1230000", "opencode": "", "kilo": ""}[client]
							if longTimeout == "" {
								longTimeout = "1230"
							}
							checkApprove(t, client, mustRead(t, path), longTimeout, strings.ReplaceAll(wantArgs, "10m", "20m"))
						}
						// Uninstall takes out everything, byte for byte.
						if res, err = Uninstall(env, o); err != nil || !res.Changed {
							t.Fatalf("uninstall: %+v %v", res, err)
						}
						if pre == "" {
							if exists(path) {
								t.Fatalf("uninstall left the file install created: %q", mustRead(t, path))
							}
						} else if got := mustRead(t, path); got != pre {
							t.Fatalf("after uninstall:\n%s\nwant byte-identical:\n%s", got, pre)
						}
						if exists(path + BackupSuffix) {
							t.Fatal("the backup stays although the file is back to it")
						}
					})
				}
			}
		}
	}
}

// checkInstalledPlain is checkInstalled for options without --redact.
func checkInstalledPlain(t *testing.T, client, doc string) {
	t.Helper()
	if isPlugin(client) {
		if !strings.Contains(doc, `const ARGS: string[] = ["--server", "wf"]`+"\n") {
			t.Fatalf("shim lacks its ARGS:\n%s", doc)
		}
		return
	}
	cmds, _ := preHooks(doc, approveCase[client].event)
	if len(cmds) == 0 || standardJSON([]byte(doc)) == nil {
		t.Fatalf("no pre-tool hooks:\n%s", doc)
	}
}

func TestApproveOtherServerKeepsItsOwn(t *testing.T) {
	for _, client := range []string{"claude-code", "cursor"} {
		t.Run(client, func(t *testing.T) {
			env := testEnv(t)
			a := opts(client, Project)
			a.Approve.On = true
			b := opts(client, Project)
			b.Server = "other"
			if _, err := Install(env, a); err != nil {
				t.Fatal(err)
			}
			one := mustRead(t, mustPath(t, env, client))
			if _, err := Install(env, b); err != nil {
				t.Fatal(err)
			}
			if _, err := Uninstall(env, b); err != nil {
				t.Fatal(err)
			}
			if got := mustRead(t, mustPath(t, env, client)); got != one {
				t.Fatalf("uninstalling the other server:\n%s\nwant\n%s", got, one)
			}
			// The default --timeout (5m): no --timeout in the command, 330 s.
			checkApprove(t, client, one, "330", map[string]string{"claude-code": "", "cursor": " --match '^MCP:'"}[client])
		})
	}
}

func TestApproveOptionsChecked(t *testing.T) {
	env := testEnv(t)
	o := opts("claude-code", User)
	o.Approve = ApproveOptions{On: true, Match: "("}
	if _, err := Install(env, o); err == nil || !strings.Contains(err.Error(), "approve match") {
		t.Fatalf("bad regex: %v", err)
	}
	o.Approve = ApproveOptions{On: true, Match: "^mcp__wf__(write|delete)", Timeout: 90 * time.Second}
	res, err := Install(env, o)
	if err != nil {
		t.Fatal(err)
	}
	checkApprove(t, "claude-code", mustRead(t, res.Path), "120", " --match '^mcp__wf__(write|delete)' --timeout 1m30s")
}

func TestApproveRefused(t *testing.T) {
	for _, client := range []string{"copilot", "cline", "droid"} {
		if !noApprove(client) {
			t.Errorf("%s takes --approve", client)
		}
		env := testEnv(t)
		o := opts(client, User)
		o.Approve.On = true
		if _, err := Install(env, o); err == nil || !strings.Contains(err.Error(), "--approve is not supported for "+client) {
			t.Errorf("%s: install --approve = %v", client, err)
		}
		path, _ := ConfigPath(env, client, User)
		if exists(path) {
			t.Errorf("%s: a refused install wrote %s", client, path)
		}
	}
	// Copilot's refusal says why its permissionRequest hook is not used.
	o := opts("copilot", User)
	o.Approve.On = true
	if _, err := Install(testEnv(t), o); err == nil || !strings.Contains(err.Error(), "permissionRequest hook fails open") {
		t.Errorf("copilot: install --approve = %v, want the permissionRequest reason", err)
	}
}

// noApprove: install writes no approve hook for the client.
func noApprove(client string) bool {
	c, ok := hooks.FindClient(client)
	return ok && c.NoApprove
}

// isPlugin: install writes the client a plugin shim (OpenCode, Kilo).
func isPlugin(client string) bool {
	c, ok := hooks.FindClient(client)
	return ok && c.Layout == hooks.Plugin
}
