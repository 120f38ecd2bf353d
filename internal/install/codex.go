package install

import (
	"path/filepath"
	"time"
)

// codex edits Codex CLI's hooks.json (observed with 0.169.0): the same
// groups as Claude Code, timeout in seconds, tools named
// mcp__<server>__<tool>. Codex cannot rewrite a result, so --redact is left
// out; and it runs new or changed hooks only once the user trusts them.
type codex struct{}

// codexSyntax: Codex 0.169.0 refuses a hooks.json with comments ("failed to
// parse hooks config") and runs none of its hooks.
var codexSyntax = syntax{client: "Codex"}

// CodexTrustNote is what install says after changing Codex's hooks.
const CodexTrustNote = "Codex skips new or changed hooks SILENTLY until you trust them: start codex and run /hooks to review and trust them (interceptor doctor tells whether they are trusted)"

func (codex) path(env Env, scope Scope) string {
	if scope == Project {
		return filepath.Join(env.Project, ".codex", "hooks.json")
	}
	return filepath.Join(codexHome(env), "hooks.json")
}

func codexHome(env Env) string {
	if env.CodexHome != "" {
		return env.CodexHome
	}
	return filepath.Join(env.Home, ".codex")
}

func (codex) entries(o Options) []hookEntry {
	opts := o.Hook.args()
	m := toolMatcher("codex", o.Server)
	return withApprove([]hookEntry{
		{event: "PreToolUse", sub: "inject", matcher: m, command: commandFor(o, "codex", "inject", opts), timeout: claudeTimeout},
		{event: "PostToolUse", sub: "capture", matcher: m, command: commandFor(o, "codex", "capture", opts), timeout: claudeTimeout},
	}, o, "codex", "", time.Second)
}

func (c codex) merge(path string, doc []byte, o Options) ([]byte, []string, error) {
	var notes []string
	if o.Hook.Redact {
		notes = append(notes, "--redact left out: Codex cannot rewrite what the model reads, so the token stays in the results it sees")
	}
	e, err := prepare(path, doc, "{}\n", codexSyntax)
	if err != nil {
		return nil, nil, err
	}
	out, err := mergeHooks(path, e, c.entries(o), o.Server, false)
	if err == nil && string(out) != string(doc) {
		notes = append(notes, CodexTrustNote)
	}
	return out, notes, err
}

func (codex) unmerge(path string, doc []byte, server string, created bool) ([]byte, error) {
	return jsonUnmerge(path, doc, server, "{}\n", created, codexSyntax)
}
