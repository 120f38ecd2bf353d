package install

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/interceptor-dev/interceptor/internal/hooks"
)

// scripts writes the hooks of a client that runs hook files (hooks.Scripts;
// Cline CLI, observed with 3.0.65): it runs every executable file named
// after an event in its hooks dir (Cline: ~/.cline/hooks/, or
// <project>/.clinerules/hooks/), so install writes two small shell
// scripts, PreToolUse and PostToolUse, each exec'ing interceptor
// (inject, capture). One script serves every server installed into the
// same dir (--server per server). A file of that name that install did not
// write is the user's own hook: it is never overwritten.
type scripts struct {
	c     *hooks.Client
	event string // the file's name: c.PreTool or c.PostTool
}

// scriptHeader starts every script install writes for c; a file without
// it is the user's.
func scriptHeader(c *hooks.Client) string {
	return "#!/bin/sh\n# interceptor hook for " + c.Display + ", written by `interceptor install " + c.Name + "`"
}

func (s scripts) path(env Env, scope Scope) string {
	return filepath.Join(filepath.Dir(env.configPath(s.c, scope)), s.event)
}

// pair is the post-tool script, installed along with the pre-tool one.
func (s scripts) pair() client { return scripts{s.c, s.c.PostTool} }

// executable: Cline runs the file itself.
func (scripts) executable() bool { return true }

// sub is what the script runs.
func (s scripts) sub() string {
	if s.event == s.c.PostTool {
		return "capture"
	}
	return "inject"
}

// ReadScript reads the command of a hook script install wrote for c; ok
// is false for a file that is not one (the user's own hook).
func ReadScript(c *hooks.Client, doc string) (cmd HookCommand, ok bool) {
	if !strings.HasPrefix(doc, scriptHeader(c)) {
		return cmd, false
	}
	for _, l := range strings.Split(doc, "\n") {
		if rest, found := strings.CutPrefix(l, "exec "); found {
			cmd, _ = parseHookCommand(rest)
		}
	}
	return cmd, true
}

func renderScript(c *hooks.Client, event string, argv []string) []byte {
	return []byte(scriptHeader(c) + "; `interceptor uninstall " + c.Name + "` removes it.\n" +
		"# " + c.Display + " runs it on every " + event + " event; interceptor leaves other servers' tools alone.\n" +
		"exec " + shellJoin(argv) + "\n")
}

// options are a hook command's arguments after its --server values.
func (h HookCommand) options() []string {
	var out []string
	for i := 2; i < len(h.Argv); i++ {
		switch a := h.Argv[i]; {
		case a == "--server" && i+1 < len(h.Argv):
			i++
		case a == "--client" && i+1 < len(h.Argv):
			i++
		case strings.HasPrefix(a, "--server="), strings.HasPrefix(a, "--client="):
		default:
			out = append(out, a)
		}
	}
	return out
}

func (c scripts) argv(bin string, servers, opts []string) []string {
	argv := []string{bin, c.sub(), "--client", c.c.Name}
	for _, s := range servers {
		argv = append(argv, "--server", s)
	}
	return append(argv, opts...)
}

func (c scripts) merge(path string, doc []byte, o Options) ([]byte, []string, error) {
	var notes []string
	var servers, notServers []string
	given := o.Hook
	given.NotServers = nil
	if doc != nil {
		old, ok := ReadScript(c.c, string(doc))
		if !ok {
			return nil, nil, fmt.Errorf("%s is your own %s hook, not one interceptor wrote; it is left alone: move it away, or make it run %s", path, c.c.Display, shellJoin(c.argv(o.hookBin(), []string{o.Server}, o.Hook.args())))
		}
		servers = old.Servers
		var options []string
		options, notServers = splitNotServers(old.options())
		if len(servers) > 0 && !slices.Contains(servers, o.Server) && !slices.Equal(options, given.args()) {
			notes = append(notes, fmt.Sprintf("%s serves %s too; the hook options given now apply to every server it serves", path, strings.Join(servers, ", ")))
		}
	}
	// One script serves every server.
	servers, notServers, collide := sharedServers(servers, o.Server, notServers, o.Hook.NotServers)
	given.NotServers = notServers
	if collide && c.event == c.c.PreTool {
		notes = append(notes, "the scripts serve servers whose tool names collide under "+c.c.Display+"; a call to one may get the other's token: install them in different scopes")
	}
	if o.Hook.Redact && c.event == c.c.PostTool {
		notes = append(notes, "--redact left out: "+c.c.Display+" cannot rewrite what the model reads, so the token stays in the results it sees")
	}
	for _, other := range otherScripts(c.c, []string{filepath.Dir(path)}, []string{path}, c.event) {
		notes = append(notes, AlsoRuns(c.c, other, c.event))
	}
	return renderScript(c.c, c.event, c.argv(o.hookBin(), servers, given.args())), notes, nil
}

func (c scripts) installed(doc []byte) bool {
	old, ok := ReadScript(c.c, string(doc))
	return ok && len(old.Servers) > 0
}

func (c scripts) unmerge(path string, doc []byte, server string, created bool) ([]byte, error) {
	old, ok := ReadScript(c.c, string(doc))
	if !ok {
		return nil, fmt.Errorf("%s is not a hook interceptor wrote; leaving it alone", path)
	}
	if !slices.Contains(old.Servers, server) {
		return doc, nil
	}
	rest := slices.DeleteFunc(slices.Clone(old.Servers), func(s string) bool { return s == server })
	if len(rest) == 0 {
		return nil, nil
	}
	return renderScript(c.c, c.event, c.argv(old.Bin, rest, old.options())), nil
}

// otherScripts are the files in dirs, but for the paths in skip (the
// scripts install writes), that Cline runs on event too: named after it in
// any case, with or without a script extension (hooks.Client.ScriptEvent).
func otherScripts(c *hooks.Client, dirs, skip []string, event string) []string {
	var out []string
	for _, dir := range dirs {
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range entries {
			path := filepath.Join(dir, e.Name())
			if slices.Contains(skip, path) || c.ScriptEvent(e.Name()) != event {
				continue
			}
			if fi, err := os.Stat(path); err == nil && fi.Mode().IsRegular() {
				out = append(out, path)
			}
		}
	}
	return out
}

// AlsoRuns says that the file at path runs beside interceptor's hook
// script on event, and what that costs: install's note, doctor's warning.
func AlsoRuns(c *hooks.Client, path, event string) string {
	return fmt.Sprintf("%s also runs on every %s event (%s runs each file named after the event, in any case, with or without a script extension): if it replies with overrideInput too, the reply of the file whose path sorts last wins and the token may be lost", path, event, c.Display)
}
