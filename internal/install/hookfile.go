package install

import (
	"fmt"
	"regexp"
	"slices"
	"time"

	"github.com/interceptor-dev/interceptor/internal/hooks"
	"github.com/tidwall/gjson"
)

// hookFile edits a client's JSON hook config (every client but OpenCode),
// as internal/hooks describes it: Claude Code's and Gemini CLI's
// settings.json, Codex's and Cursor's hooks.json. Each hook fires only for
// the server's tools (the matcher spells them as the client does), with the
// client's timeout; Claude Code's SessionEnd gets clear, so a session's
// token goes with it.
type hookFile struct{ c *hooks.Client }

func (h hookFile) path(env Env, scope Scope) string { return env.configPath(h.c, scope) }

// toolMatcher matches the tools of one server as the client spells them in
// hook payloads; "" for a client without matchers.
func toolMatcher(c *hooks.Client, server string) string {
	if c.Layout == hooks.Flat {
		return ""
	}
	p, _ := c.ToolPrefix(server)
	if c.MatchWholeName {
		return "^" + regexp.QuoteMeta(p) + ".*"
	}
	return "^" + regexp.QuoteMeta(p)
}

func (h hookFile) entries(o Options) []hookEntry {
	c := h.c
	if o.Deliver {
		return deliverEntries(o, c)
	}
	opts := o.Hook.args()
	capture := opts
	if o.Hook.Redact && c.RewritesResult {
		capture = append(slices.Clip(opts), o.Hook.captureArgs()...)
	}
	m := toolMatcher(c, o.Server)
	out := []hookEntry{
		{event: c.PreTool, sub: "inject", matcher: m, command: commandFor(o, c.Name, "inject", opts), timeout: c.Timeout},
		{event: c.PostTool, sub: "capture", matcher: m, command: commandFor(o, c.Name, "capture", capture), timeout: c.Timeout},
	}
	if c.PostToolFailure != "" {
		out = append(out, hookEntry{event: c.PostToolFailure, sub: "capture", matcher: m, command: commandFor(o, c.Name, "capture", opts), timeout: c.Timeout})
	}
	if c.SessionEnd != "" {
		out = append(out, hookEntry{event: c.SessionEnd, sub: "clear", command: commandFor(o, c.Name, "clear", stateDirArgs(o.Hook)), timeout: c.Timeout})
	}
	return withApprove(out, o, c.Name, c.ApproveMatch, c.TimeoutUnit)
}

// withApprove adds, with --approve, the approve entry after the inject
// entry (mergeHooks puts it in front of the inject hook). match is approve's
// default --match ("" when the client's matcher already picks the server's
// tools); unit is the client's hook timeout unit.
func withApprove(entries []hookEntry, o Options, client, match string, unit time.Duration) []hookEntry {
	if !o.Approve.On {
		return entries
	}
	for i, en := range entries {
		if en.sub == "inject" {
			a := hookEntry{event: en.event, sub: "approve", matcher: en.matcher,
				command: shellJoin(approveArgv(o, client, match)), timeout: approveHookTimeout(o, unit)}
			return append(entries[:i+1], append([]hookEntry{a}, entries[i+1:]...)...)
		}
	}
	return entries
}

// stateDirArgs are the options clear takes: only the state dir.
func stateDirArgs(h HookOptions) []string {
	if h.StateDir == "" {
		return nil
	}
	return []string{"--state-dir", h.StateDir}
}

func (h hookFile) merge(path string, doc []byte, o Options) ([]byte, []string, error) {
	c := h.c
	var notes []string
	if o.Hook.Redact && !c.RewritesResult {
		notes = append(notes, fmt.Sprintf("--redact left out: %s cannot rewrite what the model reads, so the token stays in the results it sees", c.Display))
	}
	if c.Documented {
		notes = append(notes, fmt.Sprintf("%s support follows %[1]s's documentation and has not been run against a real %[1]s", c.Display))
	}
	if err := checkShellGate(c, o); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	if o.Approve.On && !o.Approve.Shell && c.ShellTool != "" {
		// One uid cannot keep a child from its own queue (docs/approvals.md);
		// gating the shell makes a child's `approvals allow` visible first.
		notes = append(notes, fmt.Sprintf("--approve gates %s's tools only: %s's shell tool %s can still run `interceptor approvals allow`; add --approve-shell to gate it too (a %s hook with matcher %q running approve)",
			o.Server, c.Display, c.ShellTool, c.PreTool, shellMatcher(c)))
	}
	if o.Approve.On && c.ShellHook != "" {
		notes = append(notes, fmt.Sprintf("--approve cannot gate %s's shell: it runs shell commands through its %s hook, which interceptor approve does not answer, so a child can still run `interceptor approvals allow` there (docs/approvals.md)", c.Display, c.ShellHook))
	}
	e, err := prepare(path, doc, c.Skeleton, c)
	if err != nil {
		return nil, nil, err
	}
	out, err := mergeHooks(path, e, h.entries(o), o.Server, c.Layout == hooks.Flat)
	if err != nil || !o.Approve.Shell {
		return out, notes, err
	}
	out, err = mergeShellGate(path, out, o, c)
	return out, notes, err
}

func (h hookFile) installed(doc []byte) bool {
	found, err := findHooks("", doc, false, h.c)
	return err == nil && len(found) > 0
}

func (h hookFile) unmerge(path string, doc []byte, server string, created bool) ([]byte, error) {
	doc, err := unmergeShellGate(path, doc, server, h.c)
	if err != nil {
		return nil, err
	}
	return jsonUnmerge(path, doc, server, h.c.Skeleton, created, h.c)
}

// The shell gate (install --approve-shell) is an approve hook in a group of
// its own whose matcher is the client's shell tool, e.g.
//
//	{"matcher": "^Bash$", "hooks": [{"type": "command", "timeout": 330,
//	  "command": "/bin/interceptor approve --client claude-code --match ^Bash$"}]}
//
// approve's --match repeats the matcher: that marks the group as install's
// (a hand-written approve hook for the shell is the user's and stays). One
// gate serves every server of the file; uninstall takes it out with the
// last approve hook install wrote for a server.

// shellMatcher matches the client's shell tool, and nothing else.
func shellMatcher(c *hooks.Client) string {
	return "^" + regexp.QuoteMeta(c.ShellTool) + "$"
}

// checkShellGate refuses --approve-shell where install cannot write it.
func checkShellGate(c *hooks.Client, o Options) error {
	switch {
	case !o.Approve.Shell:
		return nil
	case !o.Approve.On:
		return fmt.Errorf("--approve-shell needs --approve")
	case c.ShellHook != "":
		return fmt.Errorf("--approve-shell: %s runs shell commands through its %s hook, which interceptor approve does not answer", c.Display, c.ShellHook)
	case c.ShellTool == "":
		return fmt.Errorf("--approve-shell: the name of %s's shell tool is not known", c.Display)
	case c.Layout != hooks.Grouped:
		return fmt.Errorf("--approve-shell: %s's hooks have no matcher to pick its shell tool by", c.Display)
	}
	return nil
}

// shellGateEntry is the gate's hook.
func shellGateEntry(o Options, c *hooks.Client) hookEntry {
	gate := o
	gate.Approve.Match, gate.Approve.Shell = "", false
	return hookEntry{event: c.PreTool, sub: "approve", matcher: shellMatcher(c),
		command: shellJoin(approveArgv(gate, c.Name, shellMatcher(c))), timeout: approveHookTimeout(o, c.TimeoutUnit)}
}

// findShellGate finds the gate install wrote: a group whose matcher is
// shellMatcher holding only an approve hook of install's form, with
// --match shellMatcher.
func findShellGate(hooksObj list, c *hooks.Client) *foundHook {
	m := shellMatcher(c)
	var gate *foundHook
	eachHook(hooksObj, func(h foundHook) bool {
		a := h.command.Argv
		if h.event != c.PreTool || h.index != 0 || h.matcher == nil || *h.matcher != m || h.command.Sub != "approve" ||
			!h.command.installsApprove(h.command.Bin, c.Name) || len(a) < 6 || a[4] != "--match" || a[5] != m {
			return true
		}
		arr, _ := hooksObj.child(h.evi, '[')
		group, _ := arr.child(h.group, '{')
		li, _ := group.find("hooks")
		if hl, ok := group.child(li, '['); ok && hl.len() == 1 {
			gate = &h
			return false
		}
		return true
	})
	return gate
}

// mergeShellGate adds the gate to doc (after mergeHooks put the server's
// hooks in), or updates the one there: its command, and its timeout when
// missing or shorter.
func mergeShellGate(path string, doc []byte, o Options, c *hooks.Client) ([]byte, error) {
	e, err := parseConfig(path, doc, c)
	if err != nil {
		return nil, err
	}
	hooksObj, ok, err := hooksObject(path, e)
	if err != nil {
		return nil, err
	}
	evi, found := hooksObj.find(c.PreTool)
	if !ok || !found {
		return nil, fmt.Errorf("%s: no %s hooks to add the shell gate to", path, c.PreTool)
	}
	en := shellGateEntry(o, c)
	gate := findShellGate(hooksObj, c)
	if gate == nil {
		arr, ok := hooksObj.child(evi, '[')
		if !ok {
			return nil, fmt.Errorf("%s: hooks.%s is not a list; fix it by hand", path, c.PreTool)
		}
		e.insert(arr, "", en.groupRaw())
		return e.bytes(), nil
	}
	refreshApprove(e, gate, en)
	return e.bytes(), nil
}

// unmergeShellGate takes the gate out of doc when no other server keeps an
// approve hook install wrote; server's own hooks are taken out after it.
func unmergeShellGate(path string, doc []byte, server string, c *hooks.Client) ([]byte, error) {
	if c.ShellTool == "" {
		return doc, nil
	}
	e, hooksObj, ok, err := parseHooks(path, doc, c)
	if err != nil {
		return nil, err
	}
	if !ok {
		return doc, nil
	}
	gate := findShellGate(hooksObj, c)
	if gate == nil {
		return doc, nil
	}
	kept := false
	eachHook(hooksObj, func(h foundHook) bool {
		if h.command.Sub == "inject" && len(h.command.Servers) == 1 && h.command.Servers[0] != server && ownedApprove(hooksObj, h.command.Servers[0]) != nil {
			kept = true
			return false
		}
		return true
	})
	if kept {
		return doc, nil
	}
	backup, _ := readFileIfExists(path + BackupSuffix)
	before := standardJSON(backup)
	removeFound(e, hooksObj, *gate, func(event string) bool {
		if before == nil {
			return false
		}
		if event == "" {
			return gjson.GetBytes(before, "hooks").IsObject()
		}
		v := gjson.GetBytes(before, "hooks."+gjson.Escape(event))
		return v.IsArray() && len(v.Array()) == 0
	})
	return e.bytes(), nil
}
