//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/interceptor-dev/interceptor/e2e/fakemodel"
	"github.com/interceptor-dev/interceptor/e2e/internal/wfserver"
	"github.com/interceptor-dev/interceptor/internal/approvals"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// The human tools scenario: the client has one MCP server, `human`
// (`interceptor mcp --role child --human-tools`), with ask_person (hold) and
// request_access (park), and `interceptor deliver` as its prompt hook and as
// the post-tool hook of the human tools. Three turns of one session, each a
// client process (the later ones resume the session):
//
//	turn 1: the model calls ask_person; a scripted person answers it through
//	        the CLI (interceptor approvals answer) while the call waits; the
//	        model's next request must carry heldAnswer. The model then calls
//	        request_access, which returns at once, and ends the turn.
//	        The person answers the parked question after the turn has ended.
//	turn 2: the first model request must carry parkAnswer exactly once.
//	turn 3: the first model request must carry it exactly as often as
//	        turn 2's (every client keeps what deliver added in the session's
//	        history: observed with all four), and none more often (deliver
//	        must not add it again). The debug log must show exactly one
//	        delivery of the record, and the record read delivered.
//
// E2E_HUMAN_NO_DELIVER=1 (for checking the suite itself) leaves the prompt
// hook out: every human tools scenario must then fail.

const (
	heldAnswer = "E2E-HELD-ANSWER-staging-repo"
	parkAnswer = "E2E-PARKED-ANSWER-access-granted"
	turnMarker = "E2E-HUMAN-TURN-"
)

const humanToolsJSON = `[
 {"name":"ask_person","description":"Ask the user a question and wait for the answer","mode":"hold",
  "inputSchema":{"type":"object","properties":{"question":{"type":"string"}},"required":["question"]}},
 {"name":"request_access","description":"Ask a person for access; they answer later, end your turn","mode":"park",
  "inputSchema":{"type":"object","properties":{"what":{"type":"string"}},"required":["what"]}}
]`

// humanScript: turn 1 calls ask_person, then request_access, then ends; later
// turns answer at once.
type humanScript struct{}

func humanTool(tools []fakemodel.Tool, name string) (fakemodel.Tool, bool) {
	for _, t := range tools {
		if strings.Contains(t.String(), "human") && strings.HasSuffix(t.Name, name) {
			return t, true
		}
	}
	return fakemodel.Tool{}, false
}

func (humanScript) Plan(c fakemodel.Conversation, tools []fakemodel.Tool) (fakemodel.Action, bool) {
	ask, ok1 := humanTool(tools, "ask_person")
	park, ok2 := humanTool(tools, "request_access")
	if !ok1 || !ok2 {
		return fakemodel.Action{Text: fakemodel.SideText}, false
	}
	if turnOf(string(c.Body)) > 1 {
		return fakemodel.Action{Text: fakemodel.FinalText}, true
	}
	switch len(c.Results) {
	case 0:
		return fakemodel.Action{Tool: ask, Args: map[string]any{"question": "Which repository?"}}, true
	case 1:
		return fakemodel.Action{Tool: park, Args: map[string]any{"what": "the production database"}}, true
	}
	return fakemodel.Action{Text: fakemodel.FinalText}, true
}

var turnRe = regexp.MustCompile(turnMarker + `(\d)`)

// turnOf is the highest turn whose prompt a request carries.
func turnOf(body string) int {
	n := 0
	for _, m := range turnRe.FindAllStringSubmatch(body, -1) {
		if d := int(m[1][0] - '0'); d > n {
			n = d
		}
	}
	return n
}

// humanClient is how one client runs the scenario.
type humanClient struct {
	name string
	// configure writes the client's config: the human server (argv) and the
	// deliver hooks (the command line, without the prompt hook when
	// noPrompt).
	configure func(hs *humanScenario, server []string, hook string, noPrompt bool)
	// turn returns argv, env and stdin for one turn; session is "" for
	// the first.
	turn func(hs *humanScenario, prompt, session string) (argv, env []string, stdin string)
	// session reads the session id from turn 1's stdout.
	session func(stdout string) string
}

type humanScenario struct {
	*scenario
}

// runHumanTools runs the scenario; viaProxy serves the human tools from
// `interceptor proxy --human-tools` in front of the token server's other
// role (echo) instead of `interceptor mcp`: their calls must never reach
// that server.
func runHumanTools(t *testing.T, hc humanClient, viaProxy bool) {
	sc := &scenario{t: t, c: &client{name: hc.name}}
	sc.dir = t.TempDir()
	if os.Getenv("E2E_KEEP") != "" {
		d, _ := os.MkdirTemp("", "interceptor-e2e-human-")
		sc.dir = d
		t.Logf("E2E_KEEP: files kept in %s", d)
	}
	sc.home, sc.proj = sc.path("home"), sc.path("project")
	sc.stateDir, sc.recordDir, sc.debugLog = sc.path("state"), sc.path("model-requests"), sc.path("interceptor-debug.log")
	for _, d := range []string{sc.home, sc.proj, sc.recordDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	hs := &humanScenario{sc}
	sc.model = fakemodel.New(fakemodel.Options{RecordDir: sc.recordDir, Script: humanScript{}})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: sc.model}
	go srv.Serve(ln)
	defer srv.Close()
	sc.baseURL = "http://" + ln.Addr().String()

	decl := sc.path("human-tools.json")
	sc.write(decl, humanToolsJSON)
	server := []string{bins.interceptor, "mcp", "--role", "child", "--state-dir", sc.stateDir, "--human-tools", decl, "--timeout", "50s"}
	if viaProxy {
		sc.serverLog = sc.path("server.jsonl")
		server = []string{bins.interceptor, "proxy", "--server-name", "human", "--state-dir", sc.stateDir, "--human-tools", decl,
			"--human-timeout", "50s", "--", bins.tokenServer, "--role", "other", "--log", sc.serverLog}
	}
	hook := fmt.Sprintf("%s deliver --state-dir %s --debug-log %s", bins.interceptor, sc.stateDir, sc.debugLog)
	noPrompt := os.Getenv("E2E_HUMAN_NO_DELIVER") != ""
	if noPrompt {
		t.Logf("E2E_HUMAN_NO_DELIVER: no prompt hook; the parked answer cannot arrive")
	}
	hc.configure(hs, server, hook, noPrompt)

	p := startPerson(t, sc)
	turn := func(n int, session string) string {
		argv, env, stdin := hc.turn(hs, fmt.Sprintf("%s%d: carry on with the task.", turnMarker, n), session)
		out, errPath := sc.path(fmt.Sprintf("turn%d.stdout", n)), sc.path(fmt.Sprintf("turn%d.stderr", n))
		t0 := time.Now()
		err := runClient(argv, append(sc.baseEnv(), env...), stdin, sc.proj, out, errPath)
		b, _ := os.ReadFile(out)
		if err != nil || !strings.Contains(string(b), fakemodel.FinalText) {
			e, _ := os.ReadFile(errPath)
			t.Errorf("turn %d (%s): %v; final answer in stdout: %v\nstderr:\n%s", n, time.Since(t0).Round(time.Millisecond), err,
				strings.Contains(string(b), fakemodel.FinalText), tail(string(e), 30))
		}
		t.Logf("turn %d took %s", n, time.Since(t0).Round(time.Millisecond))
		return string(b)
	}
	out1 := turn(1, "")
	session := hc.session(out1)
	if session == "" {
		t.Fatalf("no session id in turn 1's output:\n%s", tail(out1, 20))
	}
	parked := p.answerParked() // the turn has ended: the person answers now
	turn(2, session)
	turn(3, session)
	p.stop()

	hs.check(parked)
	if viaProxy {
		recs, err := wfserver.ReadLog(sc.serverLog)
		if err != nil || len(recs) == 0 {
			t.Errorf("the proxied server's log: %d records, %v (it never started?)", len(recs), err)
		}
		for _, r := range recs {
			if r.Event == "call" {
				t.Errorf("the proxied server got a call of %s: human tool calls must never reach it", r.Tool)
			}
		}
	}
	if t.Failed() {
		b, _ := os.ReadFile(sc.debugLog)
		t.Logf("interceptor debug log:\n%s", tail(string(b), 40))
		for _, r := range sc.model.Requests() {
			t.Logf("model request #%d %s main=%v results=%d turn=%d -> %s", r.Seq, r.API, r.Main, r.ToolResults, turnOf(string(r.Body)), r.Reply)
		}
	}
}

// person answers the queue through the CLI, as a person at a terminal
// would: the held question at once, the parked one when told to.
type person struct {
	t      *testing.T
	sc     *scenario
	cancel context.CancelFunc
	done   chan struct{}
	mu     sync.Mutex
	held   string // the held question's id, once answered
	parked string // the parked question's id, once seen
	errs   []string
}

func startPerson(t *testing.T, sc *scenario) *person {
	ctx, cancel := context.WithCancel(context.Background())
	p := &person{t: t, sc: sc, cancel: cancel, done: make(chan struct{})}
	t.Cleanup(p.stop)
	go p.run(ctx)
	return p
}

func (p *person) cli(args ...string) (string, error) {
	cmd := exec.Command(bins.interceptor, append(args, "--state-dir", p.sc.stateDir)...)
	cmd.Env = p.sc.baseEnv()
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func (p *person) run(ctx context.Context) {
	defer close(p.done)
	for ctx.Err() == nil {
		out, err := p.cli("approvals", "list", "--json")
		if err != nil {
			p.fail("approvals list: %v: %s", err, out)
		}
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			r := gjson.Parse(line)
			if r.Get("kind").Str != approvals.KindInput {
				continue
			}
			id := r.Get("id").Str
			switch r.Get("mode").Str {
			case approvals.ModeHold:
				if out, err := p.cli("approvals", "answer", id, heldAnswer); err != nil {
					p.fail("answering %s: %v: %s", id, err, out)
				}
				p.mu.Lock()
				p.held = id
				p.mu.Unlock()
				p.t.Logf("person: answered held %s (%s %s)", id, r.Get("tool").Str, r.Get("input").Raw)
			case approvals.ModePark:
				p.mu.Lock()
				p.parked = id
				p.mu.Unlock()
			}
		}
		select {
		case <-ctx.Done():
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// answerParked answers the parked question (after turn 1 ended) and
// returns its id.
func (p *person) answerParked() string {
	// The question was asked before the turn ended, but the person's last
	// look at the queue may be older than that: give them a few more.
	var id string
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		p.mu.Lock()
		id = p.parked
		p.mu.Unlock()
		if id != "" || time.Now().After(deadline) {
			break
		}
	}
	if id == "" {
		p.t.Errorf("person: no parked question was asked in turn 1")
		return ""
	}
	if out, err := p.cli("approvals", "answer", id, parkAnswer); err != nil {
		p.t.Errorf("person: answering parked %s: %v: %s", id, err, out)
	}
	p.t.Logf("person: answered parked %s after turn 1 ended", id)
	return id
}

func (p *person) fail(format string, a ...any) {
	p.mu.Lock()
	p.errs = append(p.errs, fmt.Sprintf(format, a...))
	p.mu.Unlock()
}

func (p *person) stop() {
	p.cancel()
	<-p.done
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, e := range p.errs {
		p.t.Errorf("person: %s", e)
	}
	p.errs = nil
}

func (hs *humanScenario) check(parkedID string) {
	t := hs.t
	var byTurn [4][]fakemodel.Request
	for _, r := range hs.model.Requests() {
		if r.Main {
			n := turnOf(string(r.Body))
			if n >= 1 && n <= 3 {
				byTurn[n] = append(byTurn[n], r)
			}
		}
	}
	for n := 1; n <= 3; n++ {
		if len(byTurn[n]) == 0 {
			t.Fatalf("no model request in turn %d", n)
		}
	}
	// Held: the request after ask_person's result carries the answer as that
	// result.
	heldSeen := false
	for _, r := range byTurn[1] {
		if r.ToolResults >= 1 && strings.Contains(string(r.Body), heldAnswer) {
			heldSeen = true
		}
		if strings.Contains(string(r.Body), parkAnswer) {
			t.Errorf("turn 1 request #%d carries the parked answer before the person gave it", r.Seq)
		}
	}
	if !heldSeen {
		t.Errorf("no model request in turn 1 carries the held answer %q", heldAnswer)
	}
	// Parked: exactly once in the first request of turn 2.
	first2 := byTurn[2][0]
	n2 := strings.Count(string(first2.Body), parkAnswer)
	if n2 != 1 {
		t.Errorf("turn 2's first model request (#%d) carries the parked answer %d times, want exactly 1", first2.Seq, n2)
	}
	// Turn 3: the answer is history by now; deliver must not add it again.
	for _, r := range byTurn[3] {
		if n := strings.Count(string(r.Body), parkAnswer); n > n2 {
			t.Errorf("turn 3 request #%d carries the parked answer %d times (turn 2: %d): delivered again", r.Seq, n, n2)
		}
	}
	first3 := byTurn[3][0]
	n3 := strings.Count(string(first3.Body), parkAnswer)
	if n3 != n2 {
		t.Errorf("turn 3's first model request (#%d) carries the parked answer %d times, turn 2's %d: want the same (the history's copy)", first3.Seq, n3, n2)
	}
	t.Logf("the parked answer in the first request of turn 2: %d, of turn 3: %d", n2, n3)
	if parkedID == "" {
		return
	}
	q := approvals.New(hs.stateDir)
	r, err := q.Get(parkedID)
	if err != nil || r.Status != approvals.Delivered || r.Answer != parkAnswer {
		t.Errorf("parked record: %+v %v", r, err)
	}
	t.Logf("parked %s: session %q, delivered to %q", r.ID, r.Session, r.DeliveredTo)
	// Exactly one deliver run handed it out (the debug log's trace lines
	// read "deliver pid=N delivered ID ...").
	log, err := os.ReadFile(hs.debugLog)
	if err != nil {
		t.Fatalf("the debug log: %v", err)
	}
	deliveries := regexp.MustCompile(`(?m)^\S+ deliver pid=\d+ delivered [^\n]*\b`+regexp.QuoteMeta(parkedID)+`\b`).FindAll(log, -1)
	if len(deliveries) != 1 {
		t.Errorf("the debug log shows %d deliveries of %s, want exactly 1:\n%s", len(deliveries), parkedID, deliveries)
	}
}

func TestHumanToolsClaudeCode(t *testing.T) {
	parallel(t)
	runHumanTools(t, claudeHuman(), false)
}

// TestHumanToolsProxyClaudeCode: the same through `interceptor proxy
// --human-tools`.
func TestHumanToolsProxyClaudeCode(t *testing.T) {
	parallel(t)
	runHumanTools(t, claudeHuman(), true)
}

func claudeHuman() humanClient {
	return humanClient{
		name: "Claude Code " + claudeVersion,
		configure: func(hs *humanScenario, server []string, hook string, noPrompt bool) {
			hs.write(hs.path("mcp.json"), mustJSON(map[string]any{"mcpServers": map[string]any{
				"human": map[string]any{"type": "stdio", "command": server[0], "args": server[1:]}}}))
			hs.write(filepath.Join(hs.home, ".claude", "settings.json"), mustJSON(map[string]any{
				"hooks": deliverHooks("UserPromptSubmit", "PostToolUse", "^mcp__human__", hook+" --client claude-code", 10, noPrompt)}))
		},
		turn: func(hs *humanScenario, prompt, session string) ([]string, []string, string) {
			argv := []string{clientBin("claude"), "-p", "--output-format", "stream-json", "--verbose",
				"--mcp-config", hs.path("mcp.json"), "--strict-mcp-config", "--allowedTools", "mcp__human__*"}
			if session != "" {
				argv = append(argv, "--resume", session)
			}
			return argv, claudeEnv(hs.scenario), prompt + "\n"
		},
		session: sessionField("session_id"),
	}
}

// sessionField reads the first value of key in a stream of JSON lines.
func sessionField(key string) func(stdout string) string {
	return func(stdout string) string {
		for _, l := range strings.Split(stdout, "\n") {
			if s := gjson.Get(l, key).Str; s != "" {
				return s
			}
		}
		return ""
	}
}

// deliverHooks is Claude Code's hook shape (Codex takes it too): deliver on
// the turn-start event and after the human tools.
func deliverHooks(promptEvent, postEvent, matcher, cmd string, timeout int, noPrompt bool) map[string]any {
	hook := []any{map[string]any{"type": "command", "command": cmd, "timeout": timeout}}
	hooks := map[string]any{postEvent: []any{map[string]any{"matcher": matcher, "hooks": hook}}}
	if !noPrompt {
		hooks[promptEvent] = []any{map[string]any{"hooks": hook}}
	}
	return hooks
}

// TestHumanToolsCodex: `interceptor install codex --server human --deliver
// --trust` writes the deliver hooks into $CODEX_HOME/hooks.json and records
// them as trusted in config.toml, so headless codex exec runs them without
// --dangerously-bypass-hook-trust. Without the prompt hook
// (E2E_HUMAN_NO_DELIVER) it is taken out of hooks.json after install.
func TestHumanToolsCodex(t *testing.T) {
	parallel(t)
	runHumanTools(t, humanClient{
		name: "Codex CLI " + codexVersion,
		configure: func(hs *humanScenario, server []string, _ string, noPrompt bool) {
			home := hs.path("codex-home")
			hs.write(filepath.Join(home, "config.toml"), codexConfigHead(hs.scenario)+codexServer("human", server[0], server[1:]))
			// The deliver log goes to INTERCEPTOR_DEBUG_LOG (baseEnv), which
			// codex passes on to its hooks.
			argv := []string{"install", "codex", "--server", "human", "--deliver", "--trust",
				"--bin", bins.interceptor, "--state-dir", hs.stateDir}
			cmd := exec.Command(bins.interceptor, argv...)
			cmd.Env = append(hs.baseEnv(), "CODEX_HOME="+home)
			out, err := cmd.CombinedOutput()
			if err != nil || !strings.Contains(string(out), "recorded the hooks as trusted") {
				hs.t.Fatalf("interceptor %s: %v\n%s", strings.Join(argv, " "), err, out)
			}
			if noPrompt {
				path := filepath.Join(home, "hooks.json")
				b, err := os.ReadFile(path)
				if err != nil || !gjson.GetBytes(b, "hooks.UserPromptSubmit").Exists() {
					hs.t.Fatalf("%s has no UserPromptSubmit hook to take out: %v", path, err)
				}
				doc, _ := sjson.DeleteBytes(b, "hooks.UserPromptSubmit")
				hs.write(path, string(doc))
			}
		},
		turn: func(hs *humanScenario, prompt, session string) ([]string, []string, string) {
			argv := []string{clientBin("codex"), "exec", "--json", "--skip-git-repo-check", "-C", hs.proj, prompt}
			if session != "" {
				argv = []string{clientBin("codex"), "exec", "resume", "--json", "--skip-git-repo-check", session, prompt}
			}
			return argv, []string{"CODEX_HOME=" + hs.path("codex-home"), "E2E_MODEL_KEY=e2e-dummy-key"}, ""
		},
		session: sessionField("thread_id"),
	}, false)
}

func TestHumanToolsGemini(t *testing.T) {
	parallel(t)
	runHumanTools(t, humanClient{
		name: "Gemini CLI " + geminiVersion,
		configure: func(hs *humanScenario, server []string, hook string, noPrompt bool) {
			servers := map[string]any{"human": map[string]any{"command": server[0], "args": server[1:], "trust": true}}
			hs.write(filepath.Join(hs.home, ".gemini", "settings.json"), geminiSettings(servers,
				deliverHooks("BeforeAgent", "AfterTool", "^mcp_human_", hook+" --client gemini", 10000, noPrompt)))
		},
		turn: func(hs *humanScenario, prompt, session string) ([]string, []string, string) {
			argv := []string{clientBin("gemini"), "-p", prompt, "--output-format", "stream-json", "--skip-trust"}
			if session != "" {
				argv = append(argv, "--resume", "latest")
			}
			return argv, envList(geminiEnv(hs.baseURL)), ""
		},
		session: sessionField("session_id"),
	}, false)
}

// TestHumanToolsOpenCode: OpenCode has no command hooks; `interceptor
// install opencode --server human --deliver` writes the plugin shim, which
// runs deliver from chat.message (a user message comes in) and after the
// human server's tools. Without the prompt hook (E2E_HUMAN_NO_DELIVER) the
// shim's chat.message hook is renamed to one OpenCode never calls.
func TestHumanToolsOpenCode(t *testing.T) {
	parallel(t)
	runHumanTools(t, shimHuman("OpenCode "+opencodeVersion, "opencode", clientBin("opencode"), ".opencode", opencodePluginDirs,
		[]string{"OPENCODE_DISABLE_AUTOUPDATE=1", "OPENCODE_DISABLE_MODELS_FETCH=1", "OPENCODE_DISABLE_SHARE=1",
			"OPENCODE_DISABLE_LSP_DOWNLOAD=1", "OPENCODE_DISABLE_DEFAULT_PLUGINS=1"}), false)
}

// TestHumanToolsKilo: the same with Kilo CLI, OpenCode underneath
// (`install kilo --server human --deliver`, .kilo/plugin/, kilo.json).
func TestHumanToolsKilo(t *testing.T) {
	parallel(t)
	runHumanTools(t, shimHuman("Kilo CLI "+kiloVersion, "kilo", client2Bin(t, "kilo"), ".kilo", kiloPluginDirs, kiloEnv), false)
}

// shimHuman runs the scenario with a client served by the plugin shim:
// install (name) writes it into the project's dir (configDir), whose
// plugin package pluginDirs provides offline; the config is NAME.json.
func shimHuman(display, name, bin, configDir string, pluginDirs func(*scenario), env []string) humanClient {
	return humanClient{
		name: display,
		configure: func(hs *humanScenario, server []string, _ string, noPrompt bool) {
			pluginDirs(hs.scenario)
			argv := []string{"install", name, "--server", "human", "--deliver", "--scope", "project", "--project", hs.proj,
				"--bin", bins.interceptor, "--state-dir", hs.stateDir}
			cmd := exec.Command(bins.interceptor, argv...)
			cmd.Env = hs.baseEnv()
			out, err := cmd.CombinedOutput()
			if err != nil {
				hs.t.Fatalf("interceptor %s: %v\n%s", strings.Join(argv, " "), err, out)
			}
			shim := filepath.Join(hs.proj, configDir, "plugin", "interceptor.ts")
			if noPrompt {
				b, err := os.ReadFile(shim)
				const hook = `"chat.message": async`
				if err != nil || !strings.Contains(string(b), hook) {
					hs.t.Fatalf("the shim %s has no %s hook to take out: %v", shim, hook, err)
				}
				hs.write(shim, strings.Replace(string(b), hook, `"e2e.no.chat.message": async`, 1))
			}
			mcp := map[string]any{"human": map[string]any{"type": "local", "command": server, "enabled": true}}
			hs.write(filepath.Join(hs.proj, name+".json"), opencodeConfig(hs.scenario, mcp))
		},
		turn: func(hs *humanScenario, prompt, session string) ([]string, []string, string) {
			argv := []string{bin, "run", "--format", "json"}
			if session != "" {
				argv = append(argv, "--session", session)
			}
			return append(argv, prompt), env, ""
		},
		session: sessionField("sessionID"),
	}
}
