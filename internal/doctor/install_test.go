package doctor

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/interceptor-dev/interceptor/internal/approvals"
	"github.com/interceptor-dev/interceptor/internal/hooks"
	"github.com/interceptor-dev/interceptor/internal/install"
)

// Doctor reads what install writes, for every client and scope, into a new
// file and into a commented one (JSONC) where the client reads comments:
// the token hooks, --approve's hook with its timeout, and --deliver's; with
// interceptor-hook beside the binary (the hooks then run it) and without.
func TestDoctorSeesWhatInstallWrote(t *testing.T) {
	for _, withHook := range []bool{false, true} {
		doctorSeesWhatInstallWrote(t, withHook)
	}
}

func doctorSeesWhatInstallWrote(t *testing.T, withHook bool) {
	for _, c := range hooks.Clients {
		docs := []string{""}
		if c.Syntax.Comments && (c.Layout == hooks.Grouped || c.Layout == hooks.Flat) {
			docs = append(docs, "// my settings\n{\n  /* kept */\n  \"theme\": \"dark\" // mine\n}\n")
		}
		for _, scope := range []install.Scope{install.User, install.Project} {
			for i, pre := range docs {
				name := c.Name + "/" + string(scope) + "/" + string(rune('a'+i))
				if withHook {
					name += "/" + install.HookBinName
				}
				t.Run(name, func(t *testing.T) {
					check := func(o install.Options, level, want string) {
						t.Helper()
						env := testEnv(t)
						if pre != "" {
							path, err := install.ConfigPath(env, c.Name, scope)
							if err != nil {
								t.Fatal(err)
							}
							mustWrite(t, path, pre, 0o644)
						}
						o.Bin = filepath.Join(env.Home, "bin", "interceptor")
						mustWrite(t, o.Bin, "#!/bin/sh\n", 0o755)
						runs := o.Bin
						if withHook {
							runs = filepath.Join(env.Home, "bin", install.HookBinName)
							mustWrite(t, runs, "#!/bin/sh\n", 0o755)
							o.HookBin, _ = install.HookBin(o.Bin)
						}
						// Trusted as the user would; --trust does not know the
						// trust hash of Codex's turn-start hook (codexHookHash).
						o.Trust = c.TrustStep != "" && !o.Deliver
						mustInstall(t, env, o)
						rep := Run(env, filepath.Join(env.Home, "state"), time.Now())
						if len(hooksOf(rep, c.Name)) == 0 {
							t.Fatal("doctor found no hook")
						}
						for _, hr := range hooksOf(rep, c.Name) {
							if hr.Bin != runs || !hr.BinOK {
								t.Fatalf("a hook runs %s (ok: %v), want %s", hr.Bin, hr.BinOK, runs)
							}
						}
						if !hasFinding(rep, c.Name, level, want) {
							t.Fatalf("no %s %q: %+v", level, want, findingsOf(rep, c.Name))
						}
						if (c.TrustStep == "" || !o.Deliver) && hasFinding(rep, c.Name, Fail, "") {
							t.Fatalf("a fail finding on what install wrote: %+v", findingsOf(rep, c.Name))
						}
					}
					o := opts(c.Name, scope)
					o.Hook.Redact = true
					if c.Layout == hooks.Plugin {
						check(o, OK, "server(s) wf: plugin shim installed")
					} else {
						check(o, OK, `server "wf": inject, capture`)
					}
					if !c.NoApprove {
						o := opts(c.Name, scope)
						o.Approve = install.ApproveOptions{On: true, Timeout: 10 * time.Minute}
						if c.Layout == hooks.Plugin {
							check(o, Info, "runs approve before inject")
						} else {
							check(o, OK, "the approve hook's timeout")
						}
					}
					if c.PromptEvent != "" {
						o := opts(c.Name, scope)
						o.Server, o.Deliver = "human", true
						if c.Layout == hooks.Plugin {
							check(o, OK, "server(s) human: human tools deliver")
						} else {
							check(o, OK, `server "human": human tools deliver hooks installed`)
						}
					}
				})
			}
		}
	}
}

// Cline: one pair of scripts serves every server of a scope; a script of
// the user's own is named as such.
func TestDoctorClineScripts(t *testing.T) {
	env := testEnv(t)
	mustInstall(t, env, opts("cline", install.User))
	o2 := opts("cline", install.User)
	o2.Server, o2.Hook.StateDir = "wf2", "/tmp/st"
	mustInstall(t, env, o2)
	rep := Run(env, t.TempDir(), time.Now())
	if !hasFinding(rep, "cline", OK, `server "wf2": inject, capture installed`) || !hasFinding(rep, "cline", OK, `server "wf": inject, capture installed`) {
		t.Errorf("doctor: %+v", findingsOf(rep, "cline"))
	}
	if len(rep.StateDirs) != 2 || rep.StateDirs[1].Dir != "/tmp/st" {
		t.Errorf("the scripts' --state-dir is not checked: %+v", rep.StateDirs)
	}
	env = testEnv(t)
	post := install.ScriptPath(env, &hooks.ClineClient, install.Project, "PostToolUse")
	mustWrite(t, post, "#!/bin/sh\necho '{}'\n", 0o755)
	rep = Run(env, t.TempDir(), time.Now())
	if !hasFinding(rep, "cline", Info, "is a hook of your own") {
		t.Errorf("doctor: %+v", findingsOf(rep, "cline"))
	}
}

// hooksOf are the hooks doctor found for client.
func hooksOf(rep Report, client string) []HookReport {
	var out []HookReport
	for _, cr := range rep.Clients {
		if cr.Client == client {
			for _, conf := range cr.Configs {
				out = append(out, conf.Hooks...)
			}
		}
	}
	return out
}

// An exhausted inotify limit is the user's, not a state dir's: doctor says
// so once, however many state dirs its hooks name, as a warning.
func TestDoctorWatchWarningOnce(t *testing.T) {
	watchUnavailable = func() error { return errors.New("inotify: this user has no instance left") }
	t.Cleanup(func() { watchUnavailable = approvals.WatchUnavailable })
	env := testEnv(t)
	mustInstall(t, env, opts("cline", install.User))
	o2 := opts("cline", install.User)
	o2.Server, o2.Hook.StateDir = "wf2", t.TempDir()
	mustInstall(t, env, o2)
	rep := Run(env, t.TempDir(), time.Now())
	if len(rep.StateDirs) != 2 {
		t.Fatalf("want two state dirs checked, got %+v", rep.StateDirs)
	}
	said := 0
	for _, s := range rep.StateDirs {
		for _, f := range s.Findings {
			if strings.Contains(f.Message, "re-read their request") {
				t.Errorf("state dir %s repeats the machine's warning: %s", s.Dir, f.Message)
			}
		}
	}
	for _, f := range rep.Machine {
		if f.Level == Warn && strings.Contains(f.Message, "re-read their request every 50 ms") && strings.Contains(f.Message, "no instance left") {
			said++
		}
	}
	if said != 1 {
		t.Errorf("the watch warning is said %d times, want once: %+v", said, rep.Machine)
	}
}
