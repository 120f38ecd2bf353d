package children

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/interceptor-dev/interceptor/internal/approvals"
	"github.com/interceptor-dev/interceptor/internal/hooks"
	"github.com/interceptor-dev/interceptor/internal/state"
	"github.com/interceptor-dev/interceptor/internal/token"
	"github.com/tidwall/gjson"
)

// The test binary is also the runner: StartChat runs
// `<bin> children runner --state-dir D --chat ID`.
func TestMain(m *testing.M) {
	if helperMain != nil && helperMain() {
		return
	}
	if len(os.Args) > 2 && os.Args[1] == "children" && os.Args[2] == "runner" {
		fs := flag.NewFlagSet("runner", flag.ExitOnError)
		dir := fs.String("state-dir", "", "")
		chat := fs.String("chat", "", "")
		fs.Parse(os.Args[3:])
		ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
		defer stop()
		if err := New(*dir).Run(ctx, *chat, time.Minute); err != nil {
			fmt.Fprintln(os.Stderr, "runner:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// helperMain, when set (eventlog_linux_test.go), runs a helper process's
// work and reports true when this process was one.
var helperMain func() bool

// fakeClaude puts a `claude` on a PATH of its own that logs its arguments
// and prints a recorded stream-json chat, then sleeps $FAKE_SLEEP seconds
// (with a child process of its own, to check process groups).
func fakeClaude(t *testing.T, fixture string) (pathDir, argsLog string) {
	t.Helper()
	dir := t.TempDir()
	argsLog = filepath.Join(dir, "args.log")
	abs, err := filepath.Abs(filepath.Join("testdata", fixture))
	if err != nil {
		t.Fatal(err)
	}
	script := fmt.Sprintf("#!/bin/sh\necho \"$*\" >> %q\ncat %q\nif [ -n \"$FAKE_SLEEP\" ]; then sleep \"$FAKE_SLEEP\" & wait; fi\n", argsLog, abs)
	if err := os.WriteFile(filepath.Join(dir, "claude"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir, argsLog
}

func testStore(t *testing.T) (*Store, *approvals.Store) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "state")
	s := New(dir)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	s.Bin = exe
	return s, approvals.New(dir)
}

func newChild(t *testing.T, s *Store, name, pathDir string, env map[string]string) Child {
	t.Helper()
	e := map[string]string{"PATH": pathDir + ":/usr/bin:/bin"}
	for k, v := range env {
		e[k] = v
	}
	c, err := s.Create(Child{Name: name, Client: "claude-code", WorkingDir: t.TempDir(), Env: e})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// pollUntilDone long-polls a chat from seq 0 until it ends, collecting
// every event and every status seen.
func pollUntilDone(t *testing.T, s *Store, q *approvals.Store, chat string) ([]gjson.Result, []string) {
	t.Helper()
	var evs []gjson.Result
	var statuses []string
	from := 0
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		out, err := pollJSON(context.Background(), s, q, PollRequest{ChatID: chat, FromSeq: from, Limit: 3, Wait: 5 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		j := gjson.Parse(out)
		if j.Get("type").Str != "ok" || j.Get("session_id").Str != chat {
			t.Fatalf("poll result: %s", out)
		}
		evs = append(evs, j.Get("events").Array()...)
		st := j.Get("status").Str
		if len(statuses) == 0 || statuses[len(statuses)-1] != st {
			statuses = append(statuses, st)
		}
		from = int(j.Get("read_position").Int())
		if from != int(j.Get("total_events").Int()) != j.Get("has_more").Bool() {
			t.Fatalf("has_more disagrees with read_position and total_events: %s", out)
		}
		if (st == "complete" || st == "failed") && !j.Get("has_more").Bool() {
			return evs, statuses
		}
	}
	t.Fatalf("chat %s did not end within 30s", chat)
	return nil, nil
}

func checkSeqs(t *testing.T, evs []gjson.Result) {
	t.Helper()
	for i, e := range evs {
		if int(e.Get("seq").Int()) != i {
			t.Fatalf("event %d has seq %d: the sequence has a gap or a repeat", i, e.Get("seq").Int())
		}
	}
}

func TestChatRunsResumesAndMasks(t *testing.T) {
	s, q := testStore(t)
	pathDir, argsLog := fakeClaude(t, "claude-code-chat1.jsonl")
	c := newChild(t, s, "worker", pathDir, nil)
	// A token the store holds, which the recorded chat shows in a result.
	fixture, _ := os.ReadFile("testdata/claude-code-chat1.jsonl")
	tok := ""
	for _, line := range strings.Split(string(fixture), "\n") {
		if i := strings.Index(line, "session_token: "); i >= 0 {
			tok = line[i+len("session_token: "):]
			tok = tok[:strings.IndexAny(tok, `"\`)]
			break
		}
	}
	if len(tok) < 100 {
		t.Fatalf("no token found in the fixture")
	}
	if err := state.New(s.StateDir).Put(state.Record{Token: tok, Server: "wf", Session: "x", Client: "claude-code", Updated: time.Now()}); err != nil {
		t.Fatal(err)
	}

	chat, err := s.StartChat("worker", "Run the workflow.")
	if err != nil {
		t.Fatal(err)
	}
	if chat.ID != c.ID+"-1" {
		t.Errorf("chat id %s, want %s-1", chat.ID, c.ID)
	}
	evs, statuses := pollUntilDone(t, s, q, chat.ID)
	checkSeqs(t, evs)
	var types []string
	for _, e := range evs {
		types = append(types, e.Get("event.type").Str)
	}
	want := "start tool_use tool_result tool_use tool_result tool_use tool_result content complete"
	if got := strings.Join(types, " "); got != want {
		t.Errorf("event types: %s\nwant: %s", got, want)
	}
	if statuses[len(statuses)-1] != "complete" {
		t.Errorf("statuses %v, want complete at the end", statuses)
	}
	if got := evs[0].Get("event.prompt").Str; got != "Run the workflow." {
		t.Errorf("start event's prompt %q", got)
	}
	// Every view masks the held token, and the session_token member the
	// hook-less raw events may carry.
	all, err := pollJSON(context.Background(), s, q, PollRequest{ChatID: chat.ID})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(all, tok) || strings.Contains(all, tok[:60]) {
		t.Errorf("poll shows a token the store holds")
	}
	if !strings.Contains(all, token.StandIn(TokenKey, tok)) {
		t.Errorf("poll shows no stand-in for the held token")
	}
	// The raw log keeps what the client printed (0600, in a 0700 dir).
	for _, p := range []string{s.Dir(), chat.Dir()} {
		if st, err := os.Stat(p); err != nil || st.Mode().Perm() != 0o700 {
			t.Errorf("%s: mode %v, want 0700 (%v)", p, st.Mode().Perm(), err)
		}
	}
	if st, err := os.Stat(chat.path(eventsFile)); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("event log mode %v, want 0600 (%v)", st.Mode().Perm(), err)
	}

	// The second chat resumes the session of the first.
	chat2, err := s.StartChat(c.Name, "Second prompt")
	if err != nil {
		t.Fatal(err)
	}
	evs2, _ := pollUntilDone(t, s, q, chat2.ID)
	checkSeqs(t, evs2)
	args, _ := os.ReadFile(argsLog)
	lines := strings.Split(strings.TrimSpace(string(args)), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], "--session-id "+c.Session) || !strings.Contains(lines[1], "--resume "+c.Session) {
		t.Errorf("claude ran with:\n%s\nwant --session-id %s, then --resume %s", args, c.Session, c.Session)
	}
	if !strings.Contains(lines[1], "--permission-prompt-tool mcp__interceptor__permit") {
		t.Errorf("no permission prompt route: %s", lines[1])
	}
	mcp, err := os.ReadFile(filepath.Join(chat2.Dir(), "mcp.json"))
	if err != nil || !strings.Contains(string(mcp), `"--chat","`+chat2.ID+`"`) {
		t.Errorf("the chat's MCP config does not tag approvals with the chat: %s (%v)", mcp, err)
	}
}

func TestRunnerDeathMarksChatFailed(t *testing.T) {
	s, q := testStore(t)
	pathDir, _ := fakeClaude(t, "claude-code-chat2.jsonl")
	newChild(t, s, "sleeper", pathDir, map[string]string{"FAKE_SLEEP": "60"})
	chat, err := s.StartChat("sleeper", "hello")
	if err != nil {
		t.Fatal(err)
	}
	ri := waitClient(t, chat)
	if st, _ := chat.State(); st != Running {
		t.Fatalf("state %s while the runner lives, want running", st)
	}
	syscall.Kill(ri.RunnerPID, syscall.SIGKILL)
	defer killGroup(ri.ClientPGID, syscall.SIGKILL)
	deadline := time.Now().Add(10 * time.Second)
	for chat.runnerAlive() && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	// One poll that notices the death shows it in its status and events.
	once, err := pollJSON(context.Background(), s, q, PollRequest{ChatID: chat.ID})
	if err != nil {
		t.Fatal(err)
	}
	if j := gjson.Parse(once); j.Get("status").Str != "failed" || j.Get("events|@reverse|0.event.type").Str != "complete" || j.Get("has_more").Bool() {
		t.Errorf("the poll that noticed the runner's death: %s", once)
	}
	evs, statuses := pollUntilDone(t, s, q, chat.ID)
	checkSeqs(t, evs)
	last := evs[len(evs)-1].Get("event")
	if statuses[len(statuses)-1] != "failed" || last.Get("type").Str != "complete" || !strings.Contains(last.Get("error").Str, "died") {
		t.Errorf("after the runner died: statuses %v, last event %s", statuses, last.Raw)
	}
	for deadline := time.Now().Add(5 * time.Second); groupAlive(ri.ClientPGID) && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
	if groupAlive(ri.ClientPGID) {
		t.Errorf("the orphaned client's group %d lives on after its chat was marked failed", ri.ClientPGID)
	}
}

// waitClient waits until the runner has started the client.
func waitClient(t *testing.T, chat *Chat) RunnerInfo {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if ri, err := chat.Runner(); err == nil && ri.ClientPGID > 0 {
			return ri
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("the runner did not start the client within 10s")
	return RunnerInfo{}
}

func TestCancelEndsTheProcessGroup(t *testing.T) {
	s, q := testStore(t)
	pathDir, _ := fakeClaude(t, "claude-code-chat2.jsonl")
	newChild(t, s, "sleeper", pathDir, map[string]string{"FAKE_SLEEP": "60"})
	chat, err := s.StartChat("sleeper", "hello")
	if err != nil {
		t.Fatal(err)
	}
	ri := waitClient(t, chat)
	if !groupAlive(ri.ClientPGID) {
		t.Fatal("the client's group is not running")
	}
	// A second chat cannot start while this one runs.
	if _, err := s.StartChat("sleeper", "again"); err == nil || !strings.Contains(err.Error(), "still running") {
		t.Errorf("a second chat while one runs: %v", err)
	}
	st, err := s.Cancel(chat.ID)
	if err != nil || st != Failed {
		t.Fatalf("cancel: %s, %v", st, err)
	}
	if groupAlive(ri.ClientPGID) {
		t.Errorf("processes of the client's group %d are left after cancel", ri.ClientPGID)
	}
	if chat.runnerAlive() {
		t.Errorf("the runner lives on after cancel")
	}
	evs, _ := pollUntilDone(t, s, q, chat.ID)
	checkSeqs(t, evs)
	last := evs[len(evs)-1].Get("event")
	if last.Get("status").Str != "failed" || !strings.Contains(last.Get("error").Str, "cancel") {
		t.Errorf("last event after cancel: %s", last.Raw)
	}
	n := 0
	for _, e := range evs {
		if e.Get("event.type").Str == "complete" {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d complete events, want exactly 1", n)
	}
}

// A pending request tagged with a chat makes the chat awaiting_permission
// and shows in its poll, never in another chat's; poll's wait returns when
// it appears.
func TestPollShowsTheChatsApprovals(t *testing.T) {
	s, q := testStore(t)
	pathDir, _ := fakeClaude(t, "claude-code-chat2.jsonl")
	newChild(t, s, "a", pathDir, map[string]string{"FAKE_SLEEP": "60"})
	newChild(t, s, "b", pathDir, map[string]string{"FAKE_SLEEP": "60"})
	ca, err := s.StartChat("a", "hello")
	if err != nil {
		t.Fatal(err)
	}
	cb, err := s.StartChat("b", "hello")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Cancel(ca.ID)
	defer s.Cancel(cb.ID)
	waitClient(t, ca)
	waitClient(t, cb)
	total, _ := ca.Total()
	for total < 2 { // start and content (complete comes at the client's exit)
		time.Sleep(20 * time.Millisecond)
		total, _ = ca.Total()
	}
	go func() {
		time.Sleep(300 * time.Millisecond)
		q.Enqueue(approvals.Request{Client: "claude-code", Tool: "mcp__wf__next_step", Input: `{"step":"one","session_token":"abc123secretvalue"}`,
			Deadline: time.Now().Add(time.Minute), Chat: ca.ID, ToolUseID: "toolu_1"})
	}()
	t0 := time.Now()
	out, err := pollJSON(context.Background(), s, q, PollRequest{ChatID: ca.ID, FromSeq: total, Wait: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if time.Since(t0) > 10*time.Second {
		t.Errorf("poll waited %s: it did not wake on the new request", time.Since(t0))
	}
	j := gjson.Parse(out)
	if j.Get("status").Str != "awaiting_permission" || j.Get("pending_approvals.#").Int() != 1 {
		t.Fatalf("poll of chat a: %s", out)
	}
	p := j.Get("pending_approvals.0")
	if p.Get("tool_name").Str != "mcp__wf__next_step" || p.Get("tool_use_id").Str != "toolu_1" || p.Get("input.step").Str != "one" || p.Get("created_at").Str == "" {
		t.Errorf("pending approval: %s", p.Raw)
	}
	if strings.Contains(out, "abc123secretvalue") {
		t.Errorf("the approval's session_token argument is shown: %s", p.Raw)
	}
	outB, err := pollJSON(context.Background(), s, q, PollRequest{ChatID: cb.ID})
	if err != nil {
		t.Fatal(err)
	}
	if jb := gjson.Parse(outB); jb.Get("status").Str != "running" || jb.Get("pending_approvals.#").Int() != 0 {
		t.Errorf("chat b shows chat a's approval: %s", outB)
	}
	if _, err := q.Decide(p.Get("id").Str, hooks.Decision{Allow: true, By: "test"}); err != nil {
		t.Fatal(err)
	}
	out, _ = pollJSON(context.Background(), s, q, PollRequest{ChatID: ca.ID})
	if st := gjson.Get(out, "status").Str; st != "running" {
		t.Errorf("status %s after the decision, want running", st)
	}
}

func TestVisibleAndIDs(t *testing.T) {
	if got := approvals.VisibleJSON("a\x1b[2Jb\u202ec\nd\u0085\u200b\U000e0041"); got != `a\u001b[2Jb\u202ec`+"\n"+`d\u0085\u200b\udb40\udc41` {
		t.Errorf("Visible: %q", got)
	}
	if _, _, err := ParseChatID("../../etc-1"); !errors.Is(err, ErrUnknown) {
		t.Errorf("ParseChatID accepted a path: %v", err)
	}
	if err := ValidName("../x"); err == nil {
		t.Errorf("ValidName accepted a path")
	}
	s, _ := testStore(t)
	pathDir, _ := fakeClaude(t, "claude-code-chat2.jsonl")
	newChild(t, s, "dup", pathDir, nil)
	if _, err := s.Create(Child{Name: "dup", Client: "claude-code", WorkingDir: t.TempDir()}); err == nil {
		t.Errorf("a second child named dup was created")
	}
	if _, err := s.Create(Child{Name: "x", Client: "cursor", WorkingDir: t.TempDir()}); err == nil {
		t.Errorf("a child of an unknown client was created")
	}
}

// A token a result shows before any hook stored it (Codex prints the
// result first) is masked too, as the capture hook would find it.
func TestViewerMasksUnheldTokenLines(t *testing.T) {
	tok := "eyJzaWQiOiJzXzEyMyJ9.0123456789abcdef0123456789abcdef"
	ev := `{"type":"tool_result","content":"Workflow started.\nsession_token: ` + tok + `","raw":{"item":{"result":{"content":[{"type":"text","text":"{\"session_token\":\"` + tok + `\"}"}]}}}}`
	out := NewViewer(filepath.Join(t.TempDir(), "state")).JSON(ev)
	if strings.Contains(out, tok) || !gjson.Valid(out) {
		t.Errorf("a token no store holds is shown: %s", out)
	}
	if !strings.Contains(out, token.StandIn(TokenKey, tok)) {
		t.Errorf("no stand-in: %s", out)
	}
	// Prose mentioning the key is not a token.
	prose := `{"type":"content","text":"Pass the session_token: it is required"}`
	if got := NewViewer(t.TempDir()).JSON(prose); got != prose {
		t.Errorf("prose changed: %s", got)
	}
}
