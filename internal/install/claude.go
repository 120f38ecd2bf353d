package install

import (
	"github.com/interceptor-dev/interceptor/internal/hooks"
	"path/filepath"
	"regexp"
	"time"
)

// claudeCode edits Claude Code's settings.json (observed with 2.1.328):
// hooks.<Event>[{matcher, hooks:[{type:"command", command, timeout}]}], the
// matcher an unanchored regex on the tool name mcp__<server>__<tool>, the
// timeout in seconds. SessionEnd gets clear, so a session's token goes with
// it.
type claudeCode struct{}

// claudeSyntax: Claude Code 2.1.330 silently ignores a settings.json with
// comments (its hooks do not run).
var claudeSyntax = syntax{client: "Claude Code"}

const claudeTimeout = 10 // seconds; a hook run takes milliseconds

func (claudeCode) path(env Env, scope Scope) string {
	if scope == Project {
		return filepath.Join(env.Project, ".claude", "settings.json")
	}
	dir := env.ClaudeConfigDir
	if dir == "" {
		dir = filepath.Join(env.Home, ".claude")
	}
	return filepath.Join(dir, "settings.json")
}

// toolMatcher matches the tools of one server as client spells them in
// hook payloads (internal/hooks/names.go).
func toolMatcher(client, server string) string {
	p, _ := hooks.ToolPrefix(client, server)
	return "^" + regexp.QuoteMeta(p)
}

func (claudeCode) entries(o Options) []hookEntry {
	opts := o.Hook.args()
	capture := opts
	if o.Hook.Redact {
		capture = append(append([]string{}, opts...), "--redact")
	}
	m := toolMatcher("claude-code", o.Server)
	out := []hookEntry{
		{event: "PreToolUse", sub: "inject", matcher: m, command: commandFor(o, "claude-code", "inject", opts), timeout: claudeTimeout},
		{event: "PostToolUse", sub: "capture", matcher: m, command: commandFor(o, "claude-code", "capture", capture), timeout: claudeTimeout},
		{event: "SessionEnd", sub: "clear", command: commandFor(o, "claude-code", "clear", stateDirArgs(o.Hook)), timeout: claudeTimeout},
	}
	return withApprove(out, o, "claude-code", "", time.Second)
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

func (c claudeCode) merge(path string, doc []byte, o Options) ([]byte, []string, error) {
	e, err := prepare(path, doc, "{}\n", claudeSyntax)
	if err != nil {
		return nil, nil, err
	}
	out, err := mergeHooks(path, e, c.entries(o), o.Server, false)
	return out, nil, err
}

func (claudeCode) unmerge(path string, doc []byte, server string, created bool) ([]byte, error) {
	return jsonUnmerge(path, doc, server, "{}\n", created, claudeSyntax)
}
