package install

import (
	"fmt"
	"regexp"
	"time"

	"github.com/interceptor-dev/interceptor/internal/hooks"
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
	p, _ := hooks.ToolPrefix(c.Name, server)
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
		capture = append(append([]string{}, opts...), "--redact")
	}
	m := toolMatcher(c, o.Server)
	out := []hookEntry{
		{event: c.PreTool, sub: "inject", matcher: m, command: commandFor(o, c.Name, "inject", opts), timeout: c.Timeout},
		{event: c.PostTool, sub: "capture", matcher: m, command: commandFor(o, c.Name, "capture", capture), timeout: c.Timeout},
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
	if o.Approve.On && c.ShellTool != "" {
		// One uid cannot keep a child from its own queue (docs/approvals.md);
		// gating the shell makes a child's `approvals allow` visible first.
		notes = append(notes, fmt.Sprintf("--approve gates %s's tools only: %s's shell tool %s can still run `interceptor approvals allow`; to gate it too, add a %s hook with matcher \"^%s$\" running: %s",
			o.Server, c.Display, c.ShellTool, c.PreTool, c.ShellTool, shellJoin(approveArgv(Options{Bin: o.Bin, Approve: ApproveOptions{On: true, Timeout: o.Approve.Timeout}, Hook: HookOptions{StateDir: o.Hook.StateDir}}, c.Name, ""))))
	}
	e, err := prepare(path, doc, c.Skeleton, c)
	if err != nil {
		return nil, nil, err
	}
	out, err := mergeHooks(path, e, h.entries(o), o.Server, c.Layout == hooks.Flat)
	return out, notes, err
}

func (h hookFile) unmerge(path string, doc []byte, server string, created bool) ([]byte, error) {
	return jsonUnmerge(path, doc, server, h.c.Skeleton, created, h.c)
}
