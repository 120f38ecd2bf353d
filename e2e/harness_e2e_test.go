//go:build e2e

package e2e

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/interceptor-dev/interceptor/e2e/fakemodel"
	"github.com/interceptor-dev/interceptor/e2e/internal/verify"
	"github.com/interceptor-dev/interceptor/e2e/internal/wfserver"
)

const (
	prompt        = "Run the release-review workflow to the end."
	clientTimeout = 4 * time.Minute
)

// client describes how to configure and run one AI coding client.
type client struct {
	name string
	// redact: capture runs with --redact and the client can rewrite
	// results, so no model request may ever contain a token.
	redact bool
	// tokenOptional: the client validates the model's arguments against
	// the tool schema before its pre-tool hook runs (Gemini CLI), so the
	// server must not list session_token as required.
	tokenOptional bool
	// configure writes the client's config files for a scenario.
	configure func(sc *scenario)
	// command returns argv, extra environment and stdin for one session.
	command func(sc *scenario) (argv, env []string, stdin string)
	// warmUp, if set, is a client command (binary name, then arguments)
	// run once before concurrent sessions start, with the environment of
	// command: it sets up what a user's earlier runs would have (OpenCode's
	// first start migrates its database; two first starts at once race on
	// it and one dies with "Failed query: CREATE TABLE ...").
	warmUp []string
}

// scenario is one run of one or more concurrent sessions of a client.
type scenario struct {
	t          *testing.T
	c          *client
	sessions   int
	structured bool
	hook       string // binary the hooks run
	// viaProxy: no hooks are installed; the client launches the wf server
	// as `interceptor proxy --server-name wf -- <token server> ...` (the
	// other server stays direct).
	viaProxy bool
	// checkServer, if set, replaces verify.Sessions as the check of the
	// token server's log (a scenario whose calls are not all meant to
	// reach the server, e.g. approvals).
	checkServer func(recs []wfserver.Record) []string
	// extraCheck, if set, runs at the end of check.
	extraCheck func()
	// wfName is the name the client configures the wf server under
	// (default "wf").
	wfName string
	// awkward runs the wf server with --awkward (answers shaped like a
	// real workflow server's); script, if set, replaces the fake model's
	// default script, and toolCalls is then its number of tool calls.
	awkward   bool
	script    fakemodel.Script
	toolCalls int

	dir, home, proj, stateDir, serverLog, recordDir, debugLog string
	model                                                     *fakemodel.Server
	barrier                                                   *fakemodel.Barrier
	baseURL                                                   string
	runs                                                      []*sessionRun
}

type sessionRun struct {
	stdout, stderr string // file paths
	err            error
	took           time.Duration
}

func (sc *scenario) path(elem ...string) string {
	return filepath.Join(append([]string{sc.dir}, elem...)...)
}

func (sc *scenario) write(path, content string) {
	sc.t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		sc.t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		sc.t.Fatal(err)
	}
}

// serverName is the name the client configures the server of role under.
func (sc *scenario) serverName(role string) string {
	if role == wfserver.RoleWF && sc.wfName != "" {
		return sc.wfName
	}
	return role
}

// calls is the number of tool calls of the scenario's script.
func (sc *scenario) calls() int {
	if sc.script != nil {
		return sc.toolCalls
	}
	return fakemodel.ToolCalls
}

// serverArgs are the token server's arguments for role (wf or other).
func (sc *scenario) serverArgs(role string) []string {
	args := []string{"--role", role, "--name", sc.serverName(role), "--log", sc.serverLog}
	if sc.structured {
		args = append(args, "--structured")
	}
	if sc.awkward && role == wfserver.RoleWF {
		args = append(args, "--awkward")
	}
	if sc.c.tokenOptional && !sc.viaProxy {
		args = append(args, "--token-optional")
	}
	return args
}

// serverCommand is the command and arguments a client launches for the MCP
// server role: the token server, or, for wf in a proxy scenario, the
// interceptor proxy in front of it. E2E_PROXY_BYPASS=1 (for checking the
// suite itself) launches the token server directly there too: every proxy
// scenario must then fail.
func (sc *scenario) serverCommand(role string) (string, []string) {
	if sc.viaProxy && role == wfserver.RoleWF && os.Getenv("E2E_PROXY_BYPASS") != "" {
		sc.t.Logf("E2E_PROXY_BYPASS: the client launches the wf server directly, without the proxy")
	} else if sc.viaProxy && role == wfserver.RoleWF {
		return bins.interceptor, append([]string{"proxy", "--server-name", sc.serverName(role), "--", bins.tokenServer}, sc.serverArgs(role)...)
	}
	return bins.tokenServer, sc.serverArgs(role)
}

// redact reports whether no model request may contain a token: the hooks
// redact results the client lets them rewrite, and the proxy redacts every
// result before the client sees it.
func (sc *scenario) redact() bool { return sc.c.redact || sc.viaProxy }

// hookBin is the binary the hooks run: interceptor, or E2E_HOOK (relative
// to the repository root) for checking the suite itself: with
// e2e/testdata/loghook.sh, a pass-through that only logs, every scenario
// must fail.
func hookBin(t *testing.T) string {
	h := os.Getenv("E2E_HOOK")
	if h == "" {
		return bins.interceptor
	}
	if !filepath.IsAbs(h) {
		h = filepath.Join(bins.repo, h)
	}
	if _, err := os.Stat(h); err != nil {
		t.Fatalf("E2E_HOOK: %v", err)
	}
	t.Logf("E2E_HOOK: hooks run %s instead of interceptor", h)
	return h
}

func (sc *scenario) baseEnv() []string {
	return []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + sc.home,
		"USER=e2e",
		"LANG=C.UTF-8",
		"TERM=dumb",
		"NO_COLOR=1",
		"XDG_CONFIG_HOME=" + filepath.Join(sc.home, ".config"),
		"XDG_DATA_HOME=" + filepath.Join(sc.home, ".local", "share"),
		"XDG_STATE_HOME=" + filepath.Join(sc.home, ".local", "state"),
		"XDG_CACHE_HOME=" + filepath.Join(sc.home, ".cache"),
		"INTERCEPTOR_STATE_DIR=" + sc.stateDir,
		"INTERCEPTOR_DEBUG_LOG=" + sc.debugLog,
		"LOGHOOK_FILE=" + sc.path("loghook.log"),
	}
}

func clientBin(name string) string { return filepath.Join(bins.clients, "node_modules", ".bin", name) }

// runScenario configures the client, runs `sessions` sessions of it at once
// against a fresh fake model and token server log, and checks the outcome.
func runScenario(t *testing.T, c *client, sessions int, structured bool) {
	runScenarioWith(t, &scenario{t: t, c: c, sessions: sessions, structured: structured, hook: hookBin(t)})
}

// runScenarioWith runs the scenario sc (t, c, sessions, structured, hook
// and viaProxy set; the rest is filled in here).
func runScenarioWith(t *testing.T, sc *scenario) {
	c, sessions := sc.c, sc.sessions
	sc.setUp()

	if sessions > 1 {
		// Hold every session before its first next_step until all have
		// finished start_session, so their hooks interleave.
		sc.barrier = &fakemodel.Barrier{AtResults: 1, Parties: sessions, Timeout: 150 * time.Second}
	}
	sc.model = fakemodel.New(fakemodel.Options{RecordDir: sc.recordDir, Barrier: sc.barrier, WFServer: sc.serverName(wfserver.RoleWF), Script: sc.script})
	defer sc.serveModel(sc.model)()

	c.configure(sc)
	if sessions > 1 && c.warmUp != nil {
		_, env, _ := c.command(sc)
		out, errPath := sc.path("warmup.stdout"), sc.path("warmup.stderr")
		argv := append([]string{clientBin(c.warmUp[0])}, c.warmUp[1:]...)
		if err := runClient(argv, append(sc.baseEnv(), env...), "", sc.proj, out, errPath); err != nil {
			b, _ := os.ReadFile(errPath)
			t.Fatalf("warm-up %v: %v\n%s", c.warmUp, err, tail(string(b), 20))
		}
	}

	start := time.Now()
	var wg sync.WaitGroup
	for i := range sessions {
		r := &sessionRun{stdout: sc.path(fmt.Sprintf("session%d.stdout", i)), stderr: sc.path(fmt.Sprintf("session%d.stderr", i))}
		sc.runs = append(sc.runs, r)
		argv, env, stdin := c.command(sc)
		wg.Add(1)
		go func() {
			defer wg.Done()
			t0 := time.Now()
			r.err = runClient(argv, append(sc.baseEnv(), env...), stdin, sc.proj, r.stdout, r.stderr)
			r.took = time.Since(t0)
		}()
	}
	wg.Wait()
	t.Logf("%s: %d session(s) finished in %s", c.name, sessions, time.Since(start).Round(time.Millisecond))

	sc.check()
	if t.Failed() {
		sc.dump()
	}
}

// setUp makes the scenario's directory (kept, and its path logged, with
// E2E_KEEP) and the paths of its parts.
func (sc *scenario) setUp() {
	t := sc.t
	if os.Getenv("E2E_KEEP") != "" {
		dir, err := os.MkdirTemp("", "interceptor-e2e-"+strings.ReplaceAll(t.Name(), "/", "-")+"-")
		if err != nil {
			t.Fatal(err)
		}
		sc.dir = dir
		t.Logf("E2E_KEEP: scenario files kept in %s", dir)
	} else {
		sc.dir = t.TempDir()
	}
	sc.home, sc.proj = sc.path("home"), sc.path("project")
	sc.stateDir, sc.recordDir = sc.path("state"), sc.path("model-requests")
	sc.serverLog, sc.debugLog = sc.path("server.jsonl"), sc.path("interceptor-debug.log")
	for _, d := range []string{sc.home, sc.proj, sc.recordDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

// serveModel serves model on a loopback port as the scenario's baseURL;
// the returned func stops it.
func (sc *scenario) serveModel(model http.Handler) func() {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		sc.t.Fatal(err)
	}
	srv := &http.Server{Handler: model}
	go srv.Serve(ln)
	sc.baseURL = "http://" + ln.Addr().String()
	return func() { srv.Close() }
}

// clientCPU is what each client's runs cost, by the client's command
// name: CPU (user + system of the client and of what it waited for: its
// hooks, its MCP servers when it reaped them) and wall time. On 2 cores
// the suite's CPU bounds its time; TestMain prints the table at the end.
var clientCPU struct {
	sync.Mutex
	by map[string]*clientCost
}

type clientCost struct {
	runs      int
	cpu, wall time.Duration
}

func addClientCPU(name string, cpu, wall time.Duration) {
	clientCPU.Lock()
	defer clientCPU.Unlock()
	if clientCPU.by == nil {
		clientCPU.by = map[string]*clientCost{}
	}
	c := clientCPU.by[name]
	if c == nil {
		c = &clientCost{}
		clientCPU.by[name] = c
	}
	c.runs++
	c.cpu += cpu
	c.wall += wall
}

// printClientCPU prints the clients' costs, the costliest first.
func printClientCPU(w io.Writer) {
	clientCPU.Lock()
	defer clientCPU.Unlock()
	names := slices.SortedFunc(maps.Keys(clientCPU.by), func(a, b string) int {
		return cmp.Compare(clientCPU.by[b].cpu, clientCPU.by[a].cpu)
	})
	var all time.Duration
	for _, n := range names {
		all += clientCPU.by[n].cpu
	}
	fmt.Fprintf(w, "e2e: the clients' runs used %s of CPU:\n", all.Round(time.Second))
	for _, n := range names {
		c := clientCPU.by[n]
		fmt.Fprintf(w, "  %-12s %4d runs  cpu %7s (%5.1f s a run)  wall %7s\n", n, c.runs, c.cpu.Round(time.Second),
			c.cpu.Seconds()/float64(c.runs), c.wall.Round(time.Second))
	}
}

// runClient runs one client process in its own process group and kills
// the group (MCP servers included) when it ends or times out.
func runClient(argv, env []string, stdin, dir, stdoutPath, stderrPath string) error {
	ctx, cancel := context.WithTimeout(context.Background(), clientTimeout)
	defer cancel()
	out, err := os.Create(stdoutPath)
	if err != nil {
		return err
	}
	defer out.Close()
	errf, err := os.Create(stderrPath)
	if err != nil {
		return err
	}
	defer errf.Close()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = dir, env, out, errf
	cmd.Stdin = strings.NewReader(stdin)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 10 * time.Second
	t0 := time.Now()
	err = cmd.Run()
	if cmd.Process != nil {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // leftover MCP servers
	}
	if ps := cmd.ProcessState; ps != nil {
		addClientCPU(filepath.Base(argv[0]), ps.UserTime()+ps.SystemTime(), time.Since(t0))
	}
	if ctx.Err() != nil {
		return fmt.Errorf("timed out after %s: %v", clientTimeout, err)
	}
	return err
}

func (sc *scenario) check() {
	t := sc.t
	for i, r := range sc.runs {
		if r.err != nil {
			t.Errorf("session %d: %s exited after %s: %v", i, sc.c.name, r.took.Round(time.Millisecond), r.err)
		}
		out, _ := os.ReadFile(r.stdout)
		if !strings.Contains(string(out), fakemodel.FinalText) {
			t.Errorf("session %d: %s's output lacks the model's final answer %q: the scripted conversation did not finish", i, sc.c.name, fakemodel.FinalText)
		}
	}

	recs, err := wfserver.ReadLog(sc.serverLog)
	if err != nil {
		t.Errorf("reading the server log: %v", err)
	}
	checkServer := func(recs []wfserver.Record) []string { return verify.Sessions(recs, sc.sessions) }
	if sc.checkServer != nil {
		checkServer = sc.checkServer
	}
	for _, p := range checkServer(recs) {
		t.Errorf("server: %s", p)
	}

	if sc.viaProxy {
		sc.checkProxy() // tool schemas; no state files without --persist
	} else {
		files, probs := verify.StateFiles(sc.stateDir)
		for _, p := range probs {
			t.Errorf("state: %s", p)
		}
		t.Logf("state files: %s", strings.Join(files, ", "))
	}

	sc.checkModelRequests(verify.Tokens(recs))

	if sc.barrier != nil {
		if sc.barrier.TimedOut() > 0 {
			t.Errorf("%d session(s) waited %s at the barrier for the others to finish start_session: the sessions did not all reach next_step", sc.barrier.TimedOut(), sc.barrier.Timeout)
		}
		// Cross-talk is only tested if every session held a token before
		// any of them injected one.
		lastStart, firstStep := -1, -1
		for i, r := range recs {
			if r.Event == "call" && r.Tool == "start_session" {
				lastStart = i
			}
			if r.Event == "call" && r.Tool == "next_step" && firstStep < 0 {
				firstStep = i
			}
		}
		if firstStep >= 0 && lastStart > firstStep {
			t.Errorf("the sessions did not interleave: a next_step call came before the last start_session")
		}
	}

	if sc.extraCheck != nil {
		sc.extraCheck()
	}
}

// checkModelRequests looks for tokens in every request the client sent
// to the model, including the conversation history it replays.
func (sc *scenario) checkModelRequests(tokens []string) {
	t := sc.t
	reqs := sc.model.Requests()
	scripted := 0
	leaky := 0
	// Clients replay the conversation: report each place a token sits only
	// in the first request showing it there.
	reported := map[string]bool{}
	for _, r := range reqs {
		if r.Main && r.ToolResults >= sc.calls() {
			scripted++ // a request made after every tool call returned
		}
		leaks := verify.FindLeaks(r.Body, tokens)
		if len(leaks) == 0 {
			continue
		}
		leaky++
		if !sc.redact() {
			continue
		}
		for _, l := range leaks {
			c, _ := wfserver.Parse(l.Token)
			var fresh []string
			for _, p := range l.Paths {
				if !reported[l.Token+" "+p] {
					reported[l.Token+" "+p] = true
					fresh = append(fresh, p)
				}
			}
			where := "at " + strings.Join(fresh, ", ")
			switch {
			case len(l.Paths) == 0 && !reported[l.Token]:
				where = "in the raw body"
			case len(fresh) == 0:
				continue
			}
			reported[l.Token] = true
			t.Errorf("model request #%d (%s %s, %d tool results so far) contains the token of session %s seq %d %s",
				r.Seq, r.API, r.Path, r.ToolResults, c.SID, c.Seq, where)
		}
	}
	if scripted < sc.sessions {
		t.Errorf("only %d model request(s) came after the last tool call, want at least %d (one per session): the token checks of model requests would be vacuous", scripted, sc.sessions)
	}
	if !sc.redact() {
		t.Logf("a token was visible to the model in %d of %d requests (expected: %s cannot rewrite tool results)", leaky, len(reqs), sc.c.name)
	}
}

// dump prints what a person needs to see why a scenario failed.
func (sc *scenario) dump() {
	t := sc.t
	var b strings.Builder
	recs, _ := wfserver.ReadLog(sc.serverLog)
	fmt.Fprintf(&b, "\n===== token server log (%s)\n", sc.serverLog)
	for _, r := range recs {
		fmt.Fprintf(&b, "  %s\n", verify.Describe(r))
	}
	fmt.Fprintf(&b, "===== model requests\n")
	for _, r := range sc.model.Requests() {
		kind := "side"
		if r.Main {
			kind = "main"
		}
		fmt.Fprintf(&b, "  #%d %s %s %s results=%d -> %s\n", r.Seq, r.API, r.Path, kind, r.ToolResults, r.Reply)
	}
	for i, r := range sc.runs {
		for _, f := range []struct{ name, path string }{{"stdout", r.stdout}, {"stderr", r.stderr}} {
			out, _ := os.ReadFile(f.path)
			fmt.Fprintf(&b, "===== session %d %s (last 30 lines of %s)\n%s\n", i, f.name, f.path, tail(string(out), 30))
		}
	}
	dbg, err := os.ReadFile(sc.debugLog)
	if err != nil {
		fmt.Fprintf(&b, "===== interceptor debug log: %v (did any hook run?)\n", err)
	} else {
		fmt.Fprintf(&b, "===== interceptor debug log (last 40 lines of %s)\n%s\n", sc.debugLog, tail(string(dbg), 40))
	}
	t.Log(b.String())
}

// parallel lets a test run beside the others once the serial tests are
// done; a test opts in by calling it first. It suits a test whose time is
// mostly a real client's waits, whose scenario has its own dirs, ports
// (127.0.0.1:0), fake model and servers, and which asserts no timing: the
// inbox page's tests (latency and settle bounds, Chromium's CPU) stay
// serial. go test -parallel bounds how many run at once (.ci/e2e: 3 on two
// cores); E2E_SERIAL=1 runs every test alone, to tell a race from a bug.
func parallel(t *testing.T) {
	if os.Getenv("E2E_SERIAL") == "" {
		t.Parallel()
	}
}
