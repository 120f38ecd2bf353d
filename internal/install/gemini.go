package install

import (
	"github.com/interceptor-dev/interceptor/internal/hooks"
	"path/filepath"
	"regexp"
	"time"
)

// gemini edits Gemini CLI's settings.json (observed with 0.61.0):
// hooks.BeforeTool / hooks.AfterTool groups, timeout in MILLISECONDS, tools
// named mcp_<server>_<tool>. Gemini cannot rewrite a result, so --redact is
// left out.
type gemini struct{}

// geminiSyntax: Gemini CLI 0.61.0 reads settings.json with comments, but
// refuses a trailing comma ("Expected double-quoted property name").
var geminiSyntax = syntax{client: "Gemini CLI", comments: true}

const geminiTimeout = 10000 // milliseconds

func (gemini) path(env Env, scope Scope) string {
	if scope == Project {
		return filepath.Join(env.Project, ".gemini", "settings.json")
	}
	return filepath.Join(env.Home, ".gemini", "settings.json")
}

// geminiMatcher matches mcp_<server>_ with the server's name as configured
// and, when that differs, as the other clients sanitize it.
func geminiMatcher(server string) string {
	name := regexp.QuoteMeta(server)
	if s := hooks.SanitizeName(server); s != server {
		name = "(" + name + "|" + regexp.QuoteMeta(s) + ")"
	}
	return "^mcp_" + name + "_"
}

func (gemini) entries(o Options) []hookEntry {
	opts := o.Hook.args()
	m := geminiMatcher(o.Server)
	return withApprove([]hookEntry{
		{event: "BeforeTool", sub: "inject", matcher: m, command: commandFor(o, "gemini", "inject", opts), timeout: geminiTimeout},
		{event: "AfterTool", sub: "capture", matcher: m, command: commandFor(o, "gemini", "capture", opts), timeout: geminiTimeout},
	}, o, "gemini", "", time.Millisecond)
}

func (g gemini) merge(path string, doc []byte, o Options) ([]byte, []string, error) {
	var notes []string
	if o.Hook.Redact {
		notes = append(notes, "--redact left out: Gemini CLI cannot rewrite what the model reads, so the token stays in the results it sees")
	}
	e, err := prepare(path, doc, "{}\n", geminiSyntax)
	if err != nil {
		return nil, nil, err
	}
	out, err := mergeHooks(path, e, g.entries(o), o.Server, false)
	return out, notes, err
}

func (gemini) unmerge(path string, doc []byte, server string, created bool) ([]byte, error) {
	return jsonUnmerge(path, doc, server, "{}\n", created, geminiSyntax)
}
