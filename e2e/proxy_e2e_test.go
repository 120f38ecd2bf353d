//go:build e2e

package e2e

import (
	"io/fs"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/interceptor-dev/interceptor/e2e/fakemodel"
	"github.com/interceptor-dev/interceptor/e2e/internal/verify"
	"github.com/interceptor-dev/interceptor/e2e/internal/wfserver"
)

// The proxy scenarios run each client with no hooks at all: its MCP config
// launches `interceptor proxy --server-name wf -- <token server> ...` for
// the wf server, while the other server stays direct. The checks are the
// hook scenarios' (every next_step accepted with its session's latest token,
// no token at the other server, two concurrent sessions keep their own
// tokens, no model request contains a token) plus checkProxy: no tool schema
// the model is offered for the wf tools declares session_token.

// otherEcho matches the other server's echo tool as each client names it
// for the model (mcp__other__echo, mcp_other_echo, other_echo).
var otherEcho = regexp.MustCompile(`(^|_)other[-_]+echo$`)

// wfTools matches the wf server's tools as each client names them for the
// model (mcp__wf__next_step, mcp_wf_next_step, wf_next_step; wf-server may
// be spelled wf_server), and wfNext its next_step.
func (sc *scenario) wfTools() (wfTool, wfNext *regexp.Regexp) {
	prefix := `(^|_)` + fakemodel.ServerPattern(sc.serverName(wfserver.RoleWF)) + `[-_]+`
	return regexp.MustCompile(prefix + `(start_session|next_step|get_status|save_checkpoint|resume_checkpoint)$`),
		regexp.MustCompile(prefix + `next_step$`)
}

// checkProxy checks the tool definitions of every model request: the wf
// tools' schemas must not declare session_token (the proxy removed it from
// tools/list), while the other server's echo tool, which is not proxied,
// still does (else the check could not see the parameter at all).
func (sc *scenario) checkProxy() {
	t := sc.t
	const arg = "session_token"
	wfTool, wfNext := sc.wfTools()
	offered, otherSeen, declared := 0, 0, 0
	for _, r := range sc.model.Requests() {
		sawNext := false
		for name, schema := range verify.ToolSchemas(r.Body) {
			switch {
			case wfTool.MatchString(name):
				sawNext = sawNext || wfNext.MatchString(name)
				if m := verify.SchemaMentions(schema, arg); len(m) > 0 {
					declared++
					t.Errorf("model request #%d (%s %s) offers %s with a schema that declares %s at %s: the model was asked for the token",
						r.Seq, r.API, r.Path, name, arg, strings.Join(m, ", "))
				}
			case otherEcho.MatchString(name):
				if len(verify.SchemaMentions(schema, arg)) > 0 {
					otherSeen++
				}
			}
		}
		if sawNext {
			offered++
		}
		if r.Main && !sawNext {
			t.Errorf("model request #%d (%s %s) is a scripted turn but no wf next_step schema was found in its tool definitions", r.Seq, r.API, r.Path)
		}
	}
	if offered < sc.sessions {
		t.Errorf("only %d model request(s) offered a wf next_step schema, want at least %d: the schema check would be vacuous", offered, sc.sessions)
	}
	if otherSeen == 0 {
		t.Errorf("no model request offered the other server's echo tool with its %s parameter: the schema check cannot see the parameter", arg)
	}
	if declared == 0 {
		t.Logf("proxy: %d model request(s) offered the wf tools, none with %s in a schema", offered, arg)
	}

	// Without --persist the proxy keeps the token in memory only (the
	// clients that pass their environment on give it INTERCEPTOR_STATE_DIR).
	// The HTTP relay's OAuth tokens (oauth/) are another matter.
	filepath.WalkDir(sc.stateDir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() && p == filepath.Join(sc.stateDir, "oauth") {
			return fs.SkipDir
		}
		if err == nil && !d.IsDir() {
			t.Errorf("state: the proxy wrote %s without --persist", p)
		}
		return nil
	})
}

// runProxyScenarios runs a client through the proxy without hooks: one
// session with the token in _meta and text, one also in structuredContent,
// and two concurrent sessions (each client process launches its own proxy).
func runProxyScenarios(t *testing.T, c *client) {
	run := func(t *testing.T, sessions int, structured bool) {
		runScenarioWith(t, &scenario{t: t, c: c, sessions: sessions, structured: structured, viaProxy: true})
	}
	t.Run("single", func(t *testing.T) { parallel(t); run(t, 1, false) })
	t.Run("single_structured", func(t *testing.T) { parallel(t); run(t, 1, true) })
	t.Run("concurrent", func(t *testing.T) { parallel(t); run(t, 2, false) })
	t.Run("awkward_nested", func(t *testing.T) { parallel(t); runAwkwardScenario(t, c, true) })
}

func TestProxyClaudeCode(t *testing.T) {
	parallel(t)
	runProxyScenarios(t, claudeCode)
}
func TestProxyCodex(t *testing.T) {
	parallel(t)
	runProxyScenarios(t, codex)
}
func TestProxyGemini(t *testing.T) {
	parallel(t)
	runProxyScenarios(t, gemini)
}
func TestProxyOpenCode(t *testing.T) {
	parallel(t)
	runProxyScenarios(t, opencode)
}
