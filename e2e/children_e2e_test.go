//go:build e2e

package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/interceptor-dev/interceptor/e2e/fakemodel"
	"github.com/interceptor-dev/interceptor/e2e/internal/verify"
	"github.com/interceptor-dev/interceptor/e2e/internal/wfserver"
	"github.com/interceptor-dev/interceptor/internal/approvals"
	"github.com/interceptor-dev/interceptor/internal/children"
	"github.com/interceptor-dev/interceptor/internal/hooks"
	"github.com/interceptor-dev/interceptor/internal/rawjson"
	"github.com/tidwall/gjson"
)

// Child sessions (docs/children.md): a parent Claude Code, whose scripted
// model drives `interceptor mcp --role supervisor` (server "sup"), creates
// a child of the client under test, starts a chat, polls it (waiting),
// answers its approvals (allow everything but next_step "two", which it
// denies with denyMessage), polls until complete, starts a second chat and
// polls it to the end. The children are real clients on the usual scripted
// fake model and token server, with the inject/capture hooks installed.

const (
	childPrompt1 = "Run the release-review workflow to the end."
	childPrompt2 = "E2E-SECOND-CHAT: say what you did."
	// parentDone is the parent's final answer once both chats are done.
	parentDone = "E2E-PARENT-DONE"
	// parentPrompt starts the parent.
	parentPrompt = "Run a child agent through two chats and approve its calls."
	// maxParentCalls bounds the parent's script (a loop would be a bug).
	maxParentCalls = 80
)

// childClient is a client as a child: how to configure it for a scenario
// (config files, hooks with the approve hook) and what create needs.
type childClient struct {
	name string // create's client
	c    *client
	// setup configures the scenario (sc.baseURL set) and returns create's
	// extra arguments: env, mcp_config.
	setup func(sc *scenario) (env map[string]string, mcpConfig string)
	// askedTools is how many calls of one chat-1 run ask the parent.
	asked int
	// deniedShows: the client prints an event for the call its hook denied.
	deniedShows bool
}

var childClaude = &childClient{
	name: "claude-code", c: claudeCode, asked: fakemodel.ToolCalls, deniedShows: true,
	setup: func(sc *scenario) (map[string]string, string) {
		claudeCode.configure(sc) // mcp.json (wf, other) and the inject/capture hooks in HOME
		return nil, sc.path("mcp.json")
	},
}

var childCodex = &childClient{
	name: "codex", c: codexApproveHook, asked: len(fakemodel.Steps),
	setup: func(sc *scenario) (map[string]string, string) {
		codexApproveHook.configure(sc) // config.toml, hooks.json with approve --match next_step
		// Trust the hooks as /hooks would (a headless child cannot).
		home := sc.path("codex-home")
		sc.install("codex", []string{"CODEX_HOME=" + home}, "--trust")
		return map[string]string{"CODEX_HOME": home, "E2E_MODEL_KEY": "e2e-dummy-key"}, ""
	},
}

var childGemini = &childClient{
	name: "gemini", c: geminiApproveHook, asked: len(fakemodel.Steps), deniedShows: true,
	setup: func(sc *scenario) (map[string]string, string) {
		geminiApproveHook.configure(sc) // settings.json with the hooks, approve --match next_step
		return geminiEnv(sc.baseURL), ""
	},
}

var childOpenCode = &childClient{
	name: "opencode", c: opencode, asked: len(fakemodel.Steps), deniedShows: true,
	setup: func(sc *scenario) (map[string]string, string) {
		opencode.configure(sc) // opencode.json, the plugin shim
		sc.install("opencode", nil, "--scope", "project", "--project", sc.proj,
			"--approve", "--approve-match", "^wf_next_step$", "--approve-timeout", approveTimeout.String())
		_, extra, _ := opencode.command(sc)
		env := envMap(extra)
		// Its first start migrates its database; two at once race on it.
		out, errPath := sc.path("warmup.stdout"), sc.path("warmup.stderr")
		if err := runClient([]string{clientBin("opencode"), "session", "list"}, append(sc.baseEnv(), envList(env)...), "", sc.proj, out, errPath); err != nil {
			b, _ := os.ReadFile(errPath)
			sc.t.Fatalf("opencode warm-up: %v\n%s", err, tail(string(b), 20))
		}
		return env, ""
	},
}

// parentModel serves the parent's scripted model, and passes every other
// request (the children's, side requests) to the usual fake model.
type parentModel struct {
	t        *testing.T
	child    *fakemodel.Server
	client   string // the child's client
	workDir  string
	env      map[string]string
	mcp      string
	mu       sync.Mutex
	polls    []gjson.Result // every poll result the parent read, in order
	reqs     [][]byte       // every parent request body
	failures []string
}

func (p *parentModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/messages") {
		p.child.ServeHTTP(w, r)
		return
	}
	body, _ := io.ReadAll(r.Body)
	if !strings.Contains(string(body), `"mcp__sup__chat_async"`) {
		r.Body = io.NopCloser(strings.NewReader(string(body)))
		p.child.ServeHTTP(w, r)
		return
	}
	p.mu.Lock()
	p.reqs = append(p.reqs, body)
	p.mu.Unlock()
	name, input, text := p.plan(gjson.ParseBytes(body))
	writeAnthropic(w, gjson.GetBytes(body, "stream").Bool(), name, input, text)
}

// parentCall is one tool call of the parent and its result.
type parentCall struct {
	name   string // without mcp__sup__
	input  gjson.Result
	result string
}

func (p *parentModel) fail(format string, a ...any) string {
	msg := fmt.Sprintf(format, a...)
	p.mu.Lock()
	p.failures = append(p.failures, msg)
	p.mu.Unlock()
	return "E2E-PARENT-FAILED: " + msg
}

// plan picks the parent's next step from the conversation so far.
func (p *parentModel) plan(req gjson.Result) (tool string, input map[string]any, text string) {
	var calls []parentCall
	byID := map[string]int{}
	for _, m := range req.Get("messages").Array() {
		m.Get("content").ForEach(func(_, b gjson.Result) bool {
			switch b.Get("type").Str {
			case "tool_use":
				byID[b.Get("id").Str] = len(calls)
				calls = append(calls, parentCall{name: strings.TrimPrefix(b.Get("name").Str, "mcp__sup__"), input: b.Get("input")})
			case "tool_result":
				if i, ok := byID[b.Get("tool_use_id").Str]; ok {
					calls[i].result = textOfContent(b.Get("content"))
				}
			}
			return true
		})
	}
	if len(calls) == 0 {
		in := map[string]any{"name": "child-" + p.client, "client": p.client, "working_dir": p.workDir}
		if len(p.env) > 0 {
			in["env"] = p.env
		}
		if p.mcp != "" {
			in["mcp_config"] = p.mcp
		}
		return "mcp__sup__create", in, ""
	}
	if len(calls) > maxParentCalls {
		return "", nil, p.fail("more than %d tool calls", maxParentCalls)
	}
	last := calls[len(calls)-1]
	res := gjson.Parse(last.result)
	if !gjson.Valid(last.result) || res.Get("type").Str == "error" {
		return "", nil, p.fail("%s answered %s", last.name, last.result)
	}
	// The chat in progress, and where its reading stopped.
	session, chats, from := "", 0, 0
	for _, c := range calls {
		switch c.name {
		case "chat_async":
			session, chats, from = gjson.Get(c.result, "session_id").Str, chats+1, 0
		case "poll":
			if gjson.Get(c.result, "session_id").Str == session {
				from = int(gjson.Get(c.result, "read_position").Int())
			}
		}
	}
	poll := func() (string, map[string]any, string) {
		return "mcp__sup__poll", map[string]any{"session_id": session, "from_seq": from, "wait_seconds": 20}, ""
	}
	switch last.name {
	case "create":
		return "mcp__sup__chat_async", map[string]any{"name": "child-" + p.client, "prompt": childPrompt1}, ""
	case "chat_async", "respond":
		return poll()
	case "poll":
		p.mu.Lock()
		p.polls = append(p.polls, res)
		p.mu.Unlock()
		if pend := res.Get("pending_approvals"); len(pend.Array()) > 0 {
			a := pend.Array()[0]
			in := map[string]any{"approval_id": a.Get("id").Str, "approve": true}
			if a.Get("input.step").Str == "two" {
				in["approve"], in["message"] = false, denyMessage
			}
			return "mcp__sup__respond", in, ""
		}
		switch res.Get("status").Str {
		case "complete", "failed":
			if res.Get("has_more").Bool() {
				return poll()
			}
			if chats == 1 {
				return "mcp__sup__chat_async", map[string]any{"name": "child-" + p.client, "prompt": childPrompt2}, ""
			}
			return "", nil, parentDone
		}
		return poll()
	}
	return "", nil, p.fail("unexpected tool %s", last.name)
}

func textOfContent(v gjson.Result) string {
	if v.Type == gjson.String {
		return v.Str
	}
	var parts []string
	v.ForEach(func(_, b gjson.Result) bool {
		parts = append(parts, b.Get("text").Str)
		return true
	})
	return strings.Join(parts, "")
}

// writeAnthropic answers a Messages API request with one tool call or text.
func writeAnthropic(w http.ResponseWriter, stream bool, tool string, input map[string]any, text string) {
	usage := map[string]any{"input_tokens": 10, "output_tokens": 5}
	var block map[string]any
	stop := "end_turn"
	id := fmt.Sprintf("toolu_parent_%d", time.Now().UnixNano())
	if tool != "" {
		block = map[string]any{"type": "tool_use", "id": id, "name": tool, "input": input}
		stop = "tool_use"
	} else {
		block = map[string]any{"type": "text", "text": text}
	}
	msg := map[string]any{"id": "msg_parent", "type": "message", "role": "assistant", "model": "e2e-model",
		"content": []any{}, "stop_reason": nil, "stop_sequence": nil, "usage": usage}
	if !stream {
		msg["content"], msg["stop_reason"] = []any{block}, stop
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(msg)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	f, _ := w.(http.Flusher)
	send := func(event string, data any) {
		b, _ := json.Marshal(data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, b)
		if f != nil {
			f.Flush()
		}
	}
	send("message_start", map[string]any{"type": "message_start", "message": msg})
	if tool != "" {
		args, _ := json.Marshal(input)
		send("content_block_start", map[string]any{"type": "content_block_start", "index": 0,
			"content_block": map[string]any{"type": "tool_use", "id": id, "name": tool, "input": map[string]any{}}})
		send("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
			"delta": map[string]any{"type": "input_json_delta", "partial_json": string(args)}})
	} else {
		send("content_block_start", map[string]any{"type": "content_block_start", "index": 0,
			"content_block": map[string]any{"type": "text", "text": ""}})
		send("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
			"delta": map[string]any{"type": "text_delta", "text": text}})
	}
	send("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
	send("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": 5}})
	send("message_stop", map[string]any{"type": "message_stop"})
}

// newChildScenario prepares dirs, the fake model (parent script in front of
// the children's) and the child client's configuration.
func newChildScenario(t *testing.T, cc *childClient) (*scenario, *parentModel, map[string]string, string) {
	return newChildScenarioIn(t, cc, nil)
}

// newChildScenarioIn is newChildScenario with the fake model on the
// loopback of machine ns (nil: the suite's namespace).
func newChildScenarioIn(t *testing.T, cc *childClient, ns *netns) (*scenario, *parentModel, map[string]string, string) {
	sc := &scenario{t: t, c: cc.c, sessions: 1, hook: bins.interceptor}
	sc.dir = t.TempDir()
	if os.Getenv("E2E_KEEP") != "" {
		dir, err := os.MkdirTemp("", "interceptor-e2e-children-")
		if err != nil {
			t.Fatal(err)
		}
		sc.dir = dir
		t.Logf("E2E_KEEP: scenario files kept in %s", dir)
	}
	sc.home, sc.proj = sc.path("home"), sc.path("project")
	sc.stateDir, sc.recordDir = sc.path("state"), sc.path("model-requests")
	sc.serverLog, sc.debugLog = sc.path("server.jsonl"), sc.path("interceptor-debug.log")
	for _, d := range []string{sc.home, sc.proj, sc.recordDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	sc.model = fakemodel.New(fakemodel.Options{RecordDir: sc.recordDir})
	pm := &parentModel{t: t, child: sc.model, client: cc.name, workDir: sc.proj}
	listen := func() (net.Listener, error) { return net.Listen("tcp", "127.0.0.1:0") }
	if ns != nil {
		listen = ns.listen
	}
	ln, err := listen()
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: pm}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	sc.baseURL = "http://" + ln.Addr().String()
	env, mcp := cc.setup(sc)
	pm.env, pm.mcp = env, mcp
	return sc, pm, env, mcp
}

// childEnvWith is childEnv as a child's Env map, with env over it.
func childEnvWith(sc *scenario, env map[string]string) map[string]string {
	all := envMap(childEnv(sc))
	maps.Copy(all, env)
	return all
}

// childEnv is the environment the parent, the supervisor, the runners and
// so the children run with: the scenario's, the clients on PATH, and the
// offline model settings of Claude Code (the other clients' come with
// create's env).
func childEnv(sc *scenario) []string {
	env := sc.baseEnv()
	for i, kv := range env {
		if strings.HasPrefix(kv, "PATH=") {
			env[i] = "PATH=" + filepath.Dir(clientBin("claude")) + ":" + strings.TrimPrefix(kv, "PATH=")
		}
	}
	return append(env, "ANTHROPIC_BASE_URL="+sc.baseURL, "ANTHROPIC_API_KEY=e2e-dummy-key",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_TELEMETRY=1", "DISABLE_AUTOUPDATER=1",
		"ENABLE_TOOL_SEARCH=false")
}

func runParentScenario(t *testing.T, cc *childClient) {
	sc, pm, _, _ := newChildScenario(t, cc)
	sc.write(sc.path("parent-mcp.json"), mustJSON(map[string]any{"mcpServers": map[string]any{
		"sup": map[string]any{"type": "stdio", "command": bins.interceptor,
			"args": []string{"mcp", "--role", "supervisor", "--state-dir", sc.stateDir}},
	}}))
	argv := []string{clientBin("claude"), "-p", "--output-format", "stream-json", "--verbose",
		"--mcp-config", sc.path("parent-mcp.json"), "--strict-mcp-config", "--allowedTools", "mcp__sup__*"}
	out, errPath := sc.path("parent.stdout"), sc.path("parent.stderr")
	t0 := time.Now()
	err := runClient(argv, childEnv(sc), parentPrompt+"\n", sc.proj, out, errPath)
	t.Logf("parent Claude Code with a %s child finished in %s", cc.name, time.Since(t0).Round(time.Millisecond))
	defer func() {
		if t.Failed() {
			dumpChildren(t, sc, out, errPath)
		}
	}()
	if err != nil {
		t.Errorf("the parent exited: %v", err)
	}
	stdout, _ := os.ReadFile(out)
	if !strings.Contains(string(stdout), parentDone) {
		t.Errorf("the parent's output lacks %q: its script did not finish", parentDone)
	}
	for _, f := range pm.failures {
		t.Errorf("parent script: %s", f)
	}

	// What the parent read: per chat, every seq once and in order, a start
	// first and a complete last; statuses running or awaiting_permission
	// until complete.
	bySession := map[string][]gjson.Result{}
	statuses := map[string][]string{}
	var order []string
	for _, r := range pm.polls {
		sid := r.Get("session_id").Str
		if _, ok := bySession[sid]; !ok {
			order = append(order, sid)
		}
		bySession[sid] = append(bySession[sid], r.Get("events").Array()...)
		st := r.Get("status").Str
		if s := statuses[sid]; len(s) == 0 || s[len(s)-1] != st {
			statuses[sid] = append(statuses[sid], st)
		}
		for _, a := range r.Get("pending_approvals").Array() {
			if a.Get("id").Str == "" || a.Get("tool_name").Str == "" || !a.Get("input").IsObject() || a.Get("created_at").Str == "" {
				t.Errorf("pending approval lacks a field: %s", a.Raw)
			}
		}
	}
	if len(order) != 2 {
		t.Fatalf("the parent polled %d chats, want 2: %v", len(order), order)
	}
	for i, sid := range order {
		evs := bySession[sid]
		checkChatEvents(t, fmt.Sprintf("chat %d (%s)", i+1, sid), evs, i == 0, cc)
		st := statuses[sid]
		if st[len(st)-1] != "complete" {
			t.Errorf("chat %d: statuses %v, want complete at the end", i+1, st)
		}
		for _, s := range st[:len(st)-1] {
			if s != "running" && s != "awaiting_permission" {
				t.Errorf("chat %d: status %s before the end (statuses %v)", i+1, s, st)
			}
		}
		if i == 0 && !contains(st, "awaiting_permission") {
			t.Errorf("chat 1: the parent never saw awaiting_permission (statuses %v)", st)
		}
		t.Logf("chat %d %s: %d events, statuses %v", i+1, sid, len(evs), st)
	}

	// The queue: every request came from chat 1, tagged with it, decided.
	q := approvals.New(sc.stateDir)
	rs, err := q.List(approvals.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != cc.asked {
		t.Errorf("the queue holds %d requests, want %d (chat 1's calls that ask)", len(rs), cc.asked)
	}
	for _, r := range rs {
		if r.Chat != order[0] {
			t.Errorf("request %s (%s %s) is tagged with chat %q, want %s", r.ID, r.Tool, r.Input, r.Chat, order[0])
		}
		if r.Status != approvals.Allowed && r.Status != approvals.Denied {
			t.Errorf("request %s is %s, want decided by the parent", r.ID, r.Status)
		}
	}

	// The token server: next_step "one" ran with the right token, "two"
	// never ran; the deny message reached the child's model; the second
	// chat's model request holds the first chat's conversation.
	recs, _ := wfserver.ReadLog(sc.serverLog)
	for _, p := range checkApprovedServer(recs, 1) {
		t.Errorf("server: %s", p)
	}
	sc.checkDenyReachedModel()
	second := 0
	for _, r := range sc.model.Requests() {
		b := string(r.Body)
		if r.Main && strings.Contains(b, "E2E-SECOND-CHAT") { // side requests (Gemini's router) carry only the prompt
			second++
			if !strings.Contains(b, childPrompt1) || !strings.Contains(b, denyMessage) {
				t.Errorf("the second chat's model request #%d lacks the first chat's prompt or its deny message: no context", r.Seq)
			}
		}
	}
	if second == 0 {
		t.Errorf("no model request of the second chat was seen")
	}
	// No token the server issued reached the parent (its requests hold
	// every poll result it read).
	tokens := verify.Tokens(recs)
	for i, b := range pm.reqs {
		if leaks := verify.FindLeaks(b, tokens); len(leaks) > 0 {
			t.Errorf("parent request %d holds a token the child's server issued (%v)", i, leaks[0].Paths)
		}
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// checkChatEvents checks one chat's events as the parent read them.
func checkChatEvents(t *testing.T, what string, evs []gjson.Result, first bool, cc *childClient) {
	t.Helper()
	if len(evs) < 3 {
		t.Errorf("%s: %d events", what, len(evs))
		return
	}
	for i, e := range evs {
		if int(e.Get("seq").Int()) != i {
			t.Errorf("%s: event %d has seq %d: a gap or a repeat", what, i, e.Get("seq").Int())
			return
		}
	}
	typ := func(e gjson.Result) string { return e.Get("event.type").Str }
	if typ(evs[0]) != "start" || typ(evs[len(evs)-1]) != "complete" {
		t.Errorf("%s: first %s, last %s: want start and complete", what, typ(evs[0]), typ(evs[len(evs)-1]))
	}
	if st := evs[len(evs)-1].Get("event.status").Str; st != "complete" {
		t.Errorf("%s: ends %s: %s", what, st, evs[len(evs)-1].Get("event.error").Str)
	}
	if got := evs[len(evs)-1].Get("event.result").Str; got != fakemodel.FinalText {
		t.Errorf("%s: result %q, want the model's final answer", what, got)
	}
	if !first {
		return
	}
	// Chat 1: every tool_use before its tool_result; step two's result
	// (when the client shows it) is an error carrying the deny message.
	used := map[string]gjson.Result{}
	var steps []string
	deniedShown := false
	for _, e := range evs {
		ev := e.Get("event")
		switch typ(e) {
		case "tool_use":
			used[ev.Get("id").Str] = ev
			if s := ev.Get("input.step").Str; s != "" {
				steps = append(steps, s)
			}
		case "tool_result":
			use, ok := used[ev.Get("tool_use_id").Str]
			if !ok {
				t.Errorf("%s: tool_result %s before (or without) its tool_use", what, ev.Get("tool_use_id").Str)
				continue
			}
			if use.Get("input.step").Str == "two" {
				deniedShown = true
				if !ev.Get("is_error").Bool() || !strings.Contains(ev.Get("content").Str, denyMessage) {
					t.Errorf("%s: the denied call's result: %s", what, ev.Raw)
				}
			}
		}
	}
	if cc.deniedShows && !deniedShown {
		t.Errorf("%s: no result event for the denied call", what)
	}
	if len(steps) == 0 || steps[0] != "one" {
		t.Errorf("%s: next_step calls seen: %v", what, steps)
	}
}

func dumpChildren(t *testing.T, sc *scenario, parentOut, parentErr string) {
	var b strings.Builder
	for _, f := range []string{parentOut, parentErr} {
		data, _ := os.ReadFile(f)
		fmt.Fprintf(&b, "===== %s (last 40 lines)\n%s\n", f, tail(string(data), 40))
	}
	logs, _ := filepath.Glob(filepath.Join(sc.stateDir, "children", "*", "chat-*", "*.log"))
	for _, l := range logs {
		data, _ := os.ReadFile(l)
		fmt.Fprintf(&b, "===== %s (last 30 lines)\n%s\n", l, tail(string(data), 30))
	}
	evs, _ := filepath.Glob(filepath.Join(sc.stateDir, "children", "*", "chat-*", "events.jsonl"))
	for _, l := range evs {
		data, _ := os.ReadFile(l)
		fmt.Fprintf(&b, "===== %s\n", l)
		for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			e := gjson.Parse(line)
			fmt.Fprintf(&b, "  #%d %s %s %s\n", e.Get("seq").Int(), e.Get("event.type").Str, e.Get("event.name").Str, e.Get("event.status").Str+e.Get("event.error").Str)
		}
	}
	fmt.Fprintf(&b, "===== model requests\n")
	for _, r := range sc.model.Requests() {
		fmt.Fprintf(&b, "  #%d %s %s main=%v results=%d -> %s\n", r.Seq, r.API, r.Path, r.Main, r.ToolResults, r.Reply)
	}
	t.Log(b.String())
}

func TestChildrenClaudeCode(t *testing.T) {
	parallel(t)
	t.Run("parent", func(t *testing.T) { parallel(t); runParentScenario(t, childClaude) })
	t.Run("concurrent", func(t *testing.T) { parallel(t); runConcurrentChildren(t, childClaude) })
	t.Run("durable", func(t *testing.T) { parallel(t); runDurableChildren(t, childClaude) })
	t.Run("human_tools", func(t *testing.T) { parallel(t); runHumanToolsChild(t) })
}

func TestChildrenCodex(t *testing.T) {
	parallel(t)
	t.Run("parent", func(t *testing.T) { parallel(t); runParentScenario(t, childCodex) })
	t.Run("concurrent", func(t *testing.T) { parallel(t); runConcurrentChildren(t, childCodex) })
	t.Run("durable", func(t *testing.T) { parallel(t); runDurableChildren(t, childCodex) })
}

func TestChildrenGemini(t *testing.T) {
	parallel(t)
	t.Run("parent", func(t *testing.T) { parallel(t); runParentScenario(t, childGemini) })
	t.Run("concurrent", func(t *testing.T) { parallel(t); runConcurrentChildren(t, childGemini) })
}

func TestChildrenOpenCode(t *testing.T) {
	parallel(t)
	t.Run("parent", func(t *testing.T) { parallel(t); runParentScenario(t, childOpenCode) })
	t.Run("concurrent", func(t *testing.T) { parallel(t); runConcurrentChildren(t, childOpenCode) })
}

// testChildren is the children store of a scenario, as the supervisor sees
// it, running the interceptor under test.
func testChildren(sc *scenario) *children.Store {
	s := children.New(sc.stateDir)
	s.Bin = bins.interceptor
	return s
}

// createChild creates a child of cc whose env carries everything the
// runner needs (the test process's own environment is not the scenario's).
func createChild(t *testing.T, sc *scenario, cs *children.Store, cc *childClient, name string, env map[string]string, mcp string) children.Child {
	t.Helper()
	all := childEnvWith(sc, env)
	c, err := cs.Create(children.Child{Name: name, Client: cc.name, WorkingDir: sc.proj, Env: all, MCPConfig: mcp})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// decideUntilDone polls chats, answering their approvals as the parent
// does, until all are done; it returns each chat's events and the
// requests it answered per chat.
func decideUntilDone(t *testing.T, cs *children.Store, q *approvals.Store, chats []string) (map[string][]gjson.Result, map[string][]string) {
	t.Helper()
	evs := map[string][]gjson.Result{}
	asked := map[string][]string{}
	done := map[string]bool{}
	from := map[string]int{}
	deadline := time.Now().Add(clientTimeout)
	for len(done) < len(chats) && time.Now().Before(deadline) {
		for _, id := range chats {
			if done[id] {
				continue
			}
			res, err := cs.Poll(context.Background(), q, children.PollRequest{ChatID: id, FromSeq: from[id], Wait: 500 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			out, err := rawjson.Marshal(res) // as the poll tool shows it
			if err != nil {
				t.Fatal(err)
			}
			r := gjson.ParseBytes(out)
			evs[id] = append(evs[id], r.Get("events").Array()...)
			from[id] = int(r.Get("read_position").Int())
			for _, a := range r.Get("pending_approvals").Array() {
				if a.Get("kind").Str == "input" {
					continue // a human tool's question: a person answers it
				}
				d := hooks.Decision{Allow: true, By: "e2e parent"}
				if a.Get("input.step").Str == "two" {
					d = hooks.Decision{Reason: denyMessage, By: "e2e parent"}
				}
				if _, err := q.Decide(a.Get("id").Str, d); err != nil {
					t.Errorf("deciding %s: %v", a.Get("id").Str, err)
				}
				asked[id] = append(asked[id], a.Get("id").Str)
			}
			if st := r.Get("status").Str; (st == "complete" || st == "failed") && !r.Get("has_more").Bool() {
				done[id] = true
			}
		}
	}
	if len(done) < len(chats) {
		t.Fatalf("chats not done after %s: %v of %v", clientTimeout, done, chats)
	}
	return evs, asked
}

// Two children of the client at once: each chat's events and approvals
// are its own.
func runConcurrentChildren(t *testing.T, cc *childClient) {
	sc, _, env, mcp := newChildScenario(t, cc)
	cs, q := testChildren(sc), approvals.New(sc.stateDir)
	var ids []string
	for _, name := range []string{"a", "b"} {
		createChild(t, sc, cs, cc, name, env, mcp)
	}
	for _, name := range []string{"a", "b"} {
		chat, err := cs.StartChat(name, childPrompt1)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, chat.ID)
	}
	evs, asked := decideUntilDone(t, cs, q, ids)
	sids := map[string]string{}
	for _, id := range ids {
		checkChatEvents(t, "chat "+id, evs[id], true, cc)
		if len(asked[id]) != cc.asked {
			t.Errorf("chat %s asked %d times, want %d", id, len(asked[id]), cc.asked)
		}
		for _, a := range asked[id] {
			r, err := q.Get(a)
			if err != nil || r.Chat != id {
				t.Errorf("request %s shown in chat %s is tagged %q (%v)", a, id, r.Chat, err)
			}
		}
		// The workflow session each chat's results name is its own.
		for _, e := range evs[id] {
			c := e.Get("event.content").Str
			if i := strings.Index(c, "session s_"); i >= 0 {
				sid := strings.Fields(c[i+len("session "):])[0]
				if sids[id] == "" {
					sids[id] = sid
				} else if sids[id] != sid {
					t.Errorf("chat %s shows workflow sessions %s and %s", id, sids[id], sid)
				}
			}
		}
	}
	if sids[ids[0]] == "" || sids[ids[0]] == sids[ids[1]] {
		t.Errorf("the two chats' workflow sessions: %v: want two different ones", sids)
	}
	recs, _ := wfserver.ReadLog(sc.serverLog)
	for _, p := range checkApprovedServer(recs, 2) {
		t.Errorf("server: %s", p)
	}
	if t.Failed() {
		dumpChildren(t, sc, "", "")
	}
}

// mcpSupervisor is `interceptor mcp --role supervisor` run by the test.
type mcpSupervisor struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
	id  int
}

func startSupervisorMCP(t *testing.T, sc *scenario) *mcpSupervisor {
	t.Helper()
	cmd := exec.Command(bins.interceptor, "mcp", "--role", "supervisor", "--state-dir", sc.stateDir)
	cmd.Env, cmd.Dir = childEnv(sc), sc.proj
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	m := &mcpSupervisor{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20)}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	m.rpc(t, "initialize", `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"e2e","version":"1"}}`)
	return m
}

func (m *mcpSupervisor) rpc(t *testing.T, method, params string) gjson.Result {
	t.Helper()
	m.id++
	fmt.Fprintf(m.in, `{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`+"\n", m.id, method, params)
	for {
		line, err := m.out.ReadBytes('\n')
		if err != nil {
			t.Fatalf("supervisor: reading the reply to %s: %v", method, err)
		}
		r := gjson.ParseBytes(line)
		if r.Get("id").Int() == int64(m.id) {
			return r
		}
	}
}

// call runs a tool and returns its JSON result.
func (m *mcpSupervisor) call(t *testing.T, tool string, args map[string]any) gjson.Result {
	t.Helper()
	params, _ := json.Marshal(map[string]any{"name": tool, "arguments": args}) // one line: the protocol is line-delimited
	r := m.rpc(t, "tools/call", string(params))
	text := r.Get("result.content.0.text").Str
	if r.Get("result.isError").Bool() || !gjson.Valid(text) {
		t.Fatalf("%s: %s", tool, r.Raw)
	}
	return gjson.Parse(text)
}

// waitStatus polls a chat until it has status (or fails the test).
func (m *mcpSupervisor) waitStatus(t *testing.T, chat, status string) gjson.Result {
	t.Helper()
	deadline := time.Now().Add(clientTimeout)
	for time.Now().Before(deadline) {
		r := m.call(t, "poll", map[string]any{"session_id": chat, "from_seq": 0, "wait_seconds": 1})
		if r.Get("status").Str == status {
			return r
		}
	}
	t.Fatalf("chat %s never reached %s", chat, status)
	return gjson.Result{}
}

// Restart-safety: a supervisor killed mid-chat loses nothing; a runner
// killed marks its chat failed; cancel leaves no process behind.
func runDurableChildren(t *testing.T, cc *childClient) {
	sc, _, env, mcp := newChildScenario(t, cc)
	cs := testChildren(sc)
	for _, name := range []string{"restart", "runnerkill", "cancel"} {
		createChild(t, sc, cs, cc, name, env, mcp)
	}
	defer func() {
		if t.Failed() {
			dumpChildren(t, sc, "", "")
		}
	}()

	t.Run("supervisor_restart", func(t *testing.T) {
		sup := startSupervisorMCP(t, sc)
		chat := sup.call(t, "chat_async", map[string]any{"name": "restart", "prompt": childPrompt1}).Get("session_id").Str
		before := sup.waitStatus(t, chat, "awaiting_permission")
		n := before.Get("total_events").Int()
		sup.cmd.Process.Kill() // SIGKILL, mid-chat, a request waiting
		sup.cmd.Wait()
		sup = startSupervisorMCP(t, sc)
		var evs []gjson.Result
		from := 0
		deadline := time.Now().Add(clientTimeout)
		for time.Now().Before(deadline) {
			r := sup.call(t, "poll", map[string]any{"session_id": chat, "from_seq": from, "wait_seconds": 2})
			evs = append(evs, r.Get("events").Array()...)
			from = int(r.Get("read_position").Int())
			for _, a := range r.Get("pending_approvals").Array() {
				sup.call(t, "respond", map[string]any{"approval_id": a.Get("id").Str, "approve": a.Get("input.step").Str != "two", "message": denyMessage})
			}
			if st := r.Get("status").Str; (st == "complete" || st == "failed") && !r.Get("has_more").Bool() {
				break
			}
		}
		if int64(len(evs)) < n {
			t.Errorf("after the restart poll returned %d events, fewer than the %d before", len(evs), n)
		}
		checkChatEvents(t, "restarted "+chat, evs, true, cc)
	})

	t.Run("runner_killed", func(t *testing.T) {
		sup := startSupervisorMCP(t, sc)
		chat := sup.call(t, "chat_async", map[string]any{"name": "runnerkill", "prompt": childPrompt1}).Get("session_id").Str
		sup.waitStatus(t, chat, "awaiting_permission")
		c, err := cs.Chat(chat)
		if err != nil {
			t.Fatal(err)
		}
		ri, err := c.Runner()
		if err != nil {
			t.Fatal(err)
		}
		syscall.Kill(ri.RunnerPID, syscall.SIGKILL)
		r := sup.waitStatus(t, chat, "failed")
		evs := r.Get("events").Array()
		last := evs[len(evs)-1].Get("event")
		if last.Get("type").Str != "complete" || !strings.Contains(last.Get("error").Str, "died") {
			t.Errorf("last event after the runner died: %s", last.Raw)
		}
		waitNoProcess(t, chat)
	})

	t.Run("cancel", func(t *testing.T) {
		sup := startSupervisorMCP(t, sc)
		chat := sup.call(t, "chat_async", map[string]any{"name": "cancel", "prompt": childPrompt1}).Get("session_id").Str
		sup.waitStatus(t, chat, "awaiting_permission")
		if procs := chatProcesses(chat); len(procs) == 0 {
			t.Fatalf("no process carries %s=%s while the chat runs: the check below would be vacuous", children.ChatEnv, chat)
		}
		r := sup.call(t, "cancel", map[string]any{"session_id": chat})
		if r.Get("type").Str != "ok" || r.Get("status").Str != "failed" {
			t.Errorf("cancel: %s", r.Raw)
		}
		if procs := chatProcesses(chat); len(procs) > 0 {
			t.Errorf("processes of the cancelled chat are left: %v", procs)
		}
		p := sup.call(t, "poll", map[string]any{"session_id": chat})
		evs := p.Get("events").Array()
		if last := evs[len(evs)-1].Get("event"); p.Get("status").Str != "failed" || !strings.Contains(last.Get("error").Str, "cancel") {
			t.Errorf("after cancel: status %s, last event %s", p.Get("status").Str, last.Raw)
		}
	})
}

// chatProcesses lists the processes whose environment names the chat
// (every process the child started inherits it).
func chatProcesses(chat string) []string {
	want := []byte(children.ChatEnv + "=" + chat + "\x00")
	var out []string
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		env, err := os.ReadFile(filepath.Join(d, "environ"))
		if err != nil || !strings.Contains(string(env)+"\x00", string(want)) {
			continue
		}
		stat, _ := os.ReadFile(filepath.Join(d, "stat"))
		if f := strings.Fields(string(stat)); len(f) > 2 && f[2] == "Z" {
			continue // a zombie: ended, not reaped yet
		}
		cmdline, _ := os.ReadFile(filepath.Join(d, "cmdline"))
		pid, _ := strconv.Atoi(filepath.Base(d))
		out = append(out, fmt.Sprintf("%d %s", pid, strings.ReplaceAll(string(cmdline), "\x00", " ")))
	}
	return out
}

func waitNoProcess(t *testing.T, chat string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for len(chatProcesses(chat)) > 0 && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	if procs := chatProcesses(chat); len(procs) > 0 {
		t.Errorf("processes of chat %s are left: %v", chat, procs)
	}
}

// childHumanMarker starts each chat's prompt of the human tools child.
const childHumanMarker = "E2E-CHILD-HUMAN-"

// childHumanScript: chat 1 calls the child's parked human tool
// (mcp__interceptor__request_access) and ends its turn; later chats
// answer at once.
type childHumanScript struct{}

func (childHumanScript) Plan(c fakemodel.Conversation, tools []fakemodel.Tool) (fakemodel.Action, bool) {
	var park fakemodel.Tool
	for _, t := range tools {
		if t.Name == "mcp__interceptor__request_access" {
			park = t
		}
	}
	if park.Name == "" {
		return fakemodel.Action{Text: fakemodel.SideText}, false
	}
	if strings.Contains(string(c.Body), childHumanMarker+"2") || len(c.Results) > 0 {
		return fakemodel.Action{Text: fakemodel.FinalText}, true
	}
	return fakemodel.Action{Tool: park, Args: map[string]any{"what": "the production database"}}, true
}

// A Claude Code child with human_tools, for real: chat 1's model calls the
// parked request_access (no permission prompt first: the route allows its
// human tools), the call lands in the queue as a question tagged with chat
// 1, a person answers after the chat ended; chat 2's first model request
// carries the answer exactly once, and chat 3's no more often than chat
// 2's history does.
func runHumanToolsChild(t *testing.T) {
	sc, pm, env, mcp := newChildScenario(t, childClaude)
	sc.model = fakemodel.New(fakemodel.Options{RecordDir: sc.recordDir, Script: childHumanScript{}})
	pm.child = sc.model // before any request
	decl := sc.path("human-tools.json")
	sc.write(decl, `[{"name":"request_access","description":"Ask a person for access; they answer later, end your turn","mode":"park",`+
		`"inputSchema":{"type":"object","properties":{"what":{"type":"string"}},"required":["what"]}}]`)
	cs, q := testChildren(sc), approvals.New(sc.stateDir)
	all := childEnvWith(sc, env)
	if _, err := cs.Create(children.Child{Name: "asker", Client: "claude-code", WorkingDir: sc.proj, Env: all, MCPConfig: mcp, HumanTools: decl}); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if t.Failed() {
			dumpChildren(t, sc, "", "")
		}
	}()
	chat := func(n int) string {
		t.Helper()
		c, err := cs.StartChat("asker", fmt.Sprintf("%s%d: go on.", childHumanMarker, n))
		if err != nil {
			t.Fatal(err)
		}
		evs, _ := decideUntilDone(t, cs, q, []string{c.ID})
		checkChatEvents(t, "chat "+c.ID, evs[c.ID], false, childClaude)
		return c.ID
	}
	const answer = "E2E-CHILD-PARKED-ANSWER-granted"
	chat1 := chat(1)
	rs, err := q.List(approvals.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	var asked []approvals.Request
	for _, r := range rs {
		if r.IsInput() {
			asked = append(asked, r)
		} else {
			t.Errorf("chat 1 asked a permission (%s %s): the human tool should need none", r.Tool, r.Input)
		}
	}
	if len(asked) != 1 || asked[0].Chat != chat1 || asked[0].Tool != "request_access" || asked[0].Status != approvals.Pending {
		t.Fatalf("the queue after chat 1, want one pending question of chat %s: %+v", chat1, asked)
	}
	if _, err := q.AnswerInput(asked[0].ID, answer, "e2e person"); err != nil {
		t.Fatal(err)
	}
	chat(2)
	chat(3)
	firsts := map[int]int{} // chat -> occurrences of the answer in its first main request
	for _, r := range sc.model.Requests() {
		b := string(r.Body)
		n := 0
		for i := 1; i <= 3; i++ {
			if strings.Contains(b, fmt.Sprintf("%s%d", childHumanMarker, i)) {
				n = i
			}
		}
		if _, seen := firsts[n]; r.Main && n > 0 && !seen {
			firsts[n] = strings.Count(b, answer)
		}
	}
	if firsts[1] != 0 || firsts[2] != 1 || firsts[3] != 1 {
		t.Errorf("the answer's count in each chat's first model request: %v; want chat 1: 0, chat 2: 1, chat 3: 1 (chat 2's history only)", firsts)
	}
	if got, _ := q.Get(asked[0].ID); got.Status != approvals.Delivered {
		t.Errorf("the answered question is %s, want delivered", got.Status)
	}
}
