//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/interceptor-dev/interceptor/e2e/fakemodel"
	"github.com/interceptor-dev/interceptor/e2e/internal/wfserver"
	"github.com/interceptor-dev/interceptor/internal/approvals"
	"github.com/interceptor-dev/interceptor/internal/hooks"
)

// The approval scenarios put a supervisor between the model and the wf
// server's next_step: the child client asks (Claude Code through
// --permission-prompt-tool and `interceptor mcp --role child`, or any client
// through the `interceptor approve` pre-tool hook, next to the usual
// inject/capture hooks), and a supervisor goroutine in the test process,
// using the internal/approvals API on the scenario's state dir, allows
// next_step "one" and denies next_step "two" with denyMessage. The checks:
// the token server accepted next_step "one" (with its session's latest
// token) and never saw next_step "two"; the supervisor was asked exactly for
// those two calls; the queue records show the decisions; and the deny
// message reached the model in a later request.
//
// E2E_APPROVALS_ALLOW_ALL=1 (for checking the suite itself) makes the
// supervisor allow every call: every approval scenario must then fail.

// denyMessage is the supervisor's reason for denying next_step "two"; the
// model must read it.
const denyMessage = "E2E-SUPERVISOR-DENIED: step two needs a second reviewer"

// approveTimeout is the approve hook's --timeout (and the child permit
// tool's); the clients' hook timeouts are set 30 s longer, as the docs say.
const approveTimeout = 2 * time.Minute

// asked is one request the supervisor decided.
type asked struct {
	id, client, origin, tool, step string
	allow                          bool
}

// supervisor decides the approval queue of one scenario.
type supervisor struct {
	t        *testing.T
	store    *approvals.Store
	allowAll bool
	cancel   context.CancelFunc
	done     chan struct{}

	mu    sync.Mutex
	asked []asked
	errs  []string
}

// startSupervisor starts deciding the queue under stateDir until stop.
func startSupervisor(t *testing.T, stateDir string) *supervisor {
	ctx, cancel := context.WithCancel(context.Background())
	s := &supervisor{t: t, store: approvals.New(stateDir), cancel: cancel, done: make(chan struct{}),
		allowAll: os.Getenv("E2E_APPROVALS_ALLOW_ALL") != ""}
	if s.allowAll {
		t.Logf("E2E_APPROVALS_ALLOW_ALL: the supervisor allows every call")
	}
	t.Cleanup(s.stop)
	go s.run(ctx)
	return s
}

func (s *supervisor) stop() {
	s.cancel()
	<-s.done
}

func (s *supervisor) fail(format string, a ...any) {
	s.mu.Lock()
	s.errs = append(s.errs, fmt.Sprintf(format, a...))
	s.mu.Unlock()
}

func (s *supervisor) run(ctx context.Context) {
	defer close(s.done)
	for ctx.Err() == nil {
		pending, err := s.store.WaitPending(ctx)
		if err != nil {
			s.fail("waiting for pending requests: %v", err)
			select {
			case <-ctx.Done():
			case <-time.After(200 * time.Millisecond):
			}
			continue
		}
		for _, r := range pending {
			var in map[string]any
			if err := json.Unmarshal([]byte(r.Input), &in); err != nil {
				s.fail("request %s (%s): input is not a JSON object: %v: %s", r.ID, r.Tool, err, r.Input)
			}
			step, _ := in["step"].(string)
			d := hooks.Decision{Allow: true, By: "e2e supervisor"}
			if step == "two" && !s.allowAll {
				d = hooks.Decision{Allow: false, Reason: denyMessage, By: "e2e supervisor"}
			}
			if _, err := s.store.Decide(r.ID, d); err != nil {
				s.fail("deciding %s (%s step %q): %v", r.ID, r.Tool, step, err)
				continue
			}
			s.mu.Lock()
			s.asked = append(s.asked, asked{id: r.ID, client: r.Client, origin: r.Origin, tool: r.Tool, step: step, allow: d.Allow})
			s.mu.Unlock()
			_, tok := in["session_token"]
			s.t.Logf("supervisor: %s %s (client %s, tool %s, step %q, session_token in the input: %v, origin %q)",
				map[bool]string{true: "allowed", false: "denied"}[d.Allow], r.ID, r.Client, r.Tool, step, tok, r.Origin)
		}
	}
}

// check stops the supervisor and checks what it was asked: per session one
// next_step "one" and one next_step "two", nothing else, from queueClient
// (the approve hook's --client; the permit tool records "claude-code") and
// an origin starting with origin ("approve hook" or "mcp permit"), and that
// the queue holds each decision.
func (s *supervisor) check(sessions int, queueClient, origin string) {
	t := s.t
	s.stop()
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, e := range s.errs {
		t.Errorf("supervisor: %s", e)
	}
	_, wfNext := (&scenario{}).wfTools() // the approval scenarios' wf server has the default name
	steps := map[string]int{}
	for _, a := range s.asked {
		steps[a.step]++
		if !wfNext.MatchString(a.tool) {
			t.Errorf("supervisor: asked about %s (request %s, step %q): only the wf next_step calls need approval", a.tool, a.id, a.step)
		}
		if a.client != queueClient {
			t.Errorf("supervisor: request %s came from client %q, want %q", a.id, a.client, queueClient)
		}
		if !strings.HasPrefix(a.origin, origin) {
			t.Errorf("supervisor: request %s has origin %q, want one starting with %q", a.id, a.origin, origin)
		}
		r, err := s.store.Get(a.id)
		switch {
		case err != nil:
			t.Errorf("supervisor: reading back request %s: %v", a.id, err)
		case a.allow && r.Status != approvals.Allowed, !a.allow && r.Status != approvals.Denied:
			t.Errorf("supervisor: request %s is %s in the queue, want the supervisor's decision (allow=%v)", a.id, r.Status, a.allow)
		}
	}
	for _, step := range fakemodel.Steps {
		if steps[step] != sessions {
			t.Errorf("supervisor: asked %d time(s) about next_step %q, want %d (one per session)", steps[step], step, sessions)
		}
	}
	if len(s.asked) != sessions*len(fakemodel.Steps) {
		t.Errorf("supervisor: asked %d time(s) in all, want %d", len(s.asked), sessions*len(fakemodel.Steps))
	}
}

// checkApprovedServer checks the token server's log of n sessions whose
// next_step "one" was allowed and "two" denied: each session started once,
// next_step "one" was accepted (verdict ok: its session's latest token,
// injected by the hook next to the approval) exactly n times, next_step
// "two" never reached the server, and the other server's echo ran n times
// without a token.
func checkApprovedServer(recs []wfserver.Record, n int) []string {
	var probs []string
	bad := func(format string, a ...any) { probs = append(probs, fmt.Sprintf(format, a...)) }
	starts, ones, echoes := 0, 0, 0
	for _, r := range recs {
		if r.Event != "call" {
			continue
		}
		step, _ := r.Args["step"].(string)
		switch {
		case r.Server == wfserver.RoleWF && r.Tool == "start_session":
			if r.Verdict != wfserver.VerdictOK {
				bad("start_session on instance %s: verdict %s: %s", r.Instance, r.Verdict, r.Reason)
				continue
			}
			starts++
		case r.Server == wfserver.RoleWF && r.Tool == "next_step" && step == "two":
			bad("the server saw next_step(step=\"two\") (verdict %s): the call the supervisor denied ran", r.Verdict)
		case r.Server == wfserver.RoleWF && r.Tool == "next_step" && step == "one":
			if r.Verdict != wfserver.VerdictOK {
				hint := ""
				if r.Verdict == wfserver.VerdictMissing {
					hint = ": the approved call lost the token the inject hook added"
				}
				bad("next_step(step=\"one\") on instance %s: verdict %s: %s%s", r.Instance, r.Verdict, r.Reason, hint)
				continue
			}
			ones++
		case r.Server == wfserver.RoleWF:
			bad("unexpected call %s(%v) on the wf server", r.Tool, r.Args)
		case r.Server == wfserver.RoleOther:
			echoes++
			if r.HasToken {
				bad("%s.%s received a session_token argument: a token went to another server's tool", r.Server, r.Tool)
			}
		}
	}
	if starts != n {
		bad("want %d accepted start_session calls, the log shows %d", n, starts)
	}
	if ones != n {
		bad("want %d accepted next_step(step=\"one\") calls (the approved call), the log shows %d", n, ones)
	}
	if echoes != n {
		bad("want %d calls of the other server's echo tool, the log shows %d", n, echoes)
	}
	return probs
}

// checkDenyReachedModel checks that denyMessage appears in a scripted model
// request made after next_step "two" was answered (every tool call has a
// result), once per session, and in no request before that.
func (sc *scenario) checkDenyReachedModel() {
	t := sc.t
	after := 0
	for _, r := range sc.model.Requests() {
		has := strings.Contains(string(r.Body), denyMessage)
		if r.Main && r.ToolResults >= fakemodel.ToolCalls && has {
			after++
		}
		if has && r.ToolResults < fakemodel.ToolCalls {
			t.Errorf("model request #%d (%d tool results) holds the deny message before next_step \"two\" was answered", r.Seq, r.ToolResults)
		}
	}
	if after < sc.sessions {
		t.Errorf("the deny message %q is in %d model request(s) made after the last tool call, want at least %d: the model never read why next_step \"two\" was denied", denyMessage, after, sc.sessions)
	}
}

// withApproveHook returns base with the approve hook added before the
// inject hook of the same pre-tool event: a group of its own, first in the
// event's list, running `interceptor approve --match <next_step>`.
// settings is the hooks file of the scenario (relative to home or not),
// event the pre-tool event, toolRE the client's name of wf next_step, and
// timeoutScale the unit of the hook timeout (1: seconds, 1000: ms).
func withApproveHook(base *client, clientName string, settings func(sc *scenario) string, event, toolRE string, timeoutScale int) *client {
	c := *base
	c.name = base.name + " + approve hook"
	c.configure = func(sc *scenario) {
		base.configure(sc)
		path := settings(sc)
		b, err := os.ReadFile(path)
		if err != nil {
			sc.t.Fatalf("reading the hooks the install wrote: %v", err)
		}
		var doc map[string]any
		if err := json.Unmarshal(b, &doc); err != nil {
			sc.t.Fatalf("%s: %v", path, err)
		}
		hooks, _ := doc["hooks"].(map[string]any)
		if hooks == nil {
			sc.t.Fatalf("%s has no hooks", path)
		}
		groups, _ := hooks[event].([]any)
		if len(groups) == 0 {
			sc.t.Fatalf("%s has no %s hooks (inject)", path, event)
		}
		cmd := fmt.Sprintf("%s approve --client %s --state-dir %s --match '%s' --timeout %s",
			sc.hook, clientName, sc.stateDir, toolRE, approveTimeout)
		approve := map[string]any{"matcher": toolRE, "hooks": []any{map[string]any{
			"type": "command", "command": cmd,
			"timeout": int((approveTimeout + 30*time.Second).Seconds()) * timeoutScale,
		}}}
		hooks[event] = append([]any{approve}, groups...)
		sc.write(path, mustJSON(doc))
		sc.t.Logf("%s with the approve hook:\n%s", path, mustJSON(doc))
	}
	return &c
}

var (
	claudeApproveHook = withApproveHook(claudeCode, "claude-code",
		func(sc *scenario) string { return filepath.Join(sc.home, ".claude", "settings.json") },
		"PreToolUse", "^mcp__wf__next_step$", 1)
	codexApproveHook = withApproveHook(codex, "codex",
		func(sc *scenario) string { return filepath.Join(sc.path("codex-home"), "hooks.json") },
		"PreToolUse", "^mcp__wf__next_step$", 1)
	geminiApproveHook = withApproveHook(gemini, "gemini",
		func(sc *scenario) string { return filepath.Join(sc.home, ".gemini", "settings.json") },
		"BeforeTool", "^mcp_wf_next_step$", 1000)
)

// claudePermitTool is Claude Code with --permission-prompt-tool pointing at
// `interceptor mcp --role child` (MCP server "approver", tool permit), and
// the usual inject/capture hooks. start_session and the other server's echo
// are pre-allowed; next_step is not, so Claude Code asks the prompt tool
// for it (pre-allowing it would skip the prompt tool).
var claudePermitTool = func() *client {
	c := *claudeCode
	c.name = claudeCode.name + " + permission-prompt-tool"
	c.configure = func(sc *scenario) {
		claudeCode.configure(sc) // mcp.json with wf and other, hooks
		servers := map[string]any{}
		for _, role := range []string{"wf", "other"} {
			cmd, args := sc.serverCommand(role)
			servers[role] = map[string]any{"type": "stdio", "command": cmd, "args": args}
		}
		servers["approver"] = map[string]any{"type": "stdio", "command": bins.interceptor,
			"args": []string{"mcp", "--role", "child", "--state-dir", sc.stateDir, "--timeout", approveTimeout.String()}}
		sc.write(sc.path("mcp.json"), mustJSON(map[string]any{"mcpServers": servers}))
	}
	c.command = func(sc *scenario) ([]string, []string, string) {
		argv, env, stdin := claudeCode.command(sc)
		var out []string
		for i := 0; i < len(argv); i++ {
			if argv[i] == "--allowedTools" {
				// Drop it and its values (the rest of argv).
				break
			}
			out = append(out, argv[i])
		}
		out = append(out, "--permission-prompt-tool", "mcp__approver__permit",
			"--allowedTools", "mcp__wf__start_session", "mcp__other__*")
		return out, env, stdin
	}
	return &c
}()

// runApprovalScenario runs sessions concurrent sessions of c with a
// supervisor on their (shared) queue;
// queueClient and origin are what the queue records must carry (client
// name, origin prefix).
func runApprovalScenario(t *testing.T, c *client, sessions int, queueClient, origin string) {
	sc := &scenario{t: t, c: c, sessions: sessions, hook: hookBin(t)}
	var sup *supervisor
	configure := c.configure
	cc := *c
	cc.configure = func(sc *scenario) {
		configure(sc)
		sup = startSupervisor(t, sc.stateDir)
	}
	sc.c = &cc
	sc.checkServer = func(recs []wfserver.Record) []string { return checkApprovedServer(recs, sc.sessions) }
	sc.extraCheck = func() {
		if sup == nil {
			t.Errorf("the supervisor never started")
			return
		}
		sup.check(sc.sessions, queueClient, origin)
		sc.checkDenyReachedModel()
	}
	runScenarioWith(t, sc)
}

// runApprovalScenarios runs one session of c, and two concurrent ones
// sharing the queue and the supervisor.
func runApprovalScenarios(t *testing.T, c *client, queueClient, origin string) {
	t.Run("single", func(t *testing.T) { parallel(t); runApprovalScenario(t, c, 1, queueClient, origin) })
	t.Run("concurrent", func(t *testing.T) { parallel(t); runApprovalScenario(t, c, 2, queueClient, origin) })
}

func TestApprovalsClaudeCode(t *testing.T) {
	parallel(t)
	t.Run("permission_prompt_tool", func(t *testing.T) {
		parallel(t)
		runApprovalScenarios(t, claudePermitTool, "claude-code", "mcp permit")
	})
	t.Run("approve_hook", func(t *testing.T) {
		parallel(t)
		runApprovalScenarios(t, claudeApproveHook, "claude-code", "approve hook")
	})
}

func TestApprovalsCodex(t *testing.T) {
	parallel(t)
	runApprovalScenarios(t, codexApproveHook, "codex", "approve hook")
}

func TestApprovalsGemini(t *testing.T) {
	parallel(t)
	runApprovalScenarios(t, geminiApproveHook, "gemini", "approve hook")
}
