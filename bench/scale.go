//go:build linux

package main

// The scale phase (issue 25): what a gated call, a poll, a pending list and
// a long poll's wake cost as the state behind them grows. Each is measured
// in the same rounds at a small size and at a large one (the target is the
// ratio between them), and beside a floor.

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/interceptor-dev/interceptor/internal/approvals"
	"github.com/interceptor-dev/interceptor/internal/children"
	"github.com/interceptor-dev/interceptor/internal/hooks"
	"github.com/interceptor-dev/interceptor/internal/rawjson"
	"github.com/interceptor-dev/interceptor/internal/state"
	"github.com/tidwall/gjson"
)

// scaleSizes are the large states: issue 25's sizes, a fifth of them in
// smoke mode (seeding the full ones takes CI 10 to 20 s more).
type scaleSizes struct {
	sessions int // token sessions stored beside the approve hook's own
	decided  int // decided approval records
	events   int // events in a chat's log
}

func sizesFor(cfg *config) scaleSizes {
	if cfg.smoke {
		return scaleSizes{sessions: 2_000, decided: 2_000, events: 20_000}
	}
	return scaleSizes{sessions: 10_000, decided: 10_000, events: 100_000}
}

// Targets of issue 25.
const (
	smallEvents = 10

	targetApproveScale = 1.5 // approve with many sessions stored vs 1
	targetPollScale    = 3.0 // poll with nothing new, a long log vs smallEvents
	targetQueueScale   = 2.0 // pending and approvals list, many decided vs none
	targetWake         = 20 * time.Millisecond
	targetIdleCPU      = 0.01 // of a core, over an idle long poll
)

// callRow is one request to a long-lived `interceptor mcp --role supervisor`,
// timed from the request written to its reply read.
type callRow struct {
	name, note string
	conn       *mcpConn
	tool, args string
	check      func(text string) error
	base       *callRow // the same at the small size
	floor      *callRow
	samples    []time.Duration
}

func (c *callRow) median() time.Duration { return quantile(sortedDur(c.samples), 0.5) }
func (c *callRow) p90() time.Duration    { return quantile(sortedDur(c.samples), 0.9) }

func sortedDur(xs []time.Duration) []time.Duration {
	out := slices.Clone(xs)
	slices.Sort(out)
	return out
}

type scaleResult struct {
	sizes   scaleSizes
	seeding []string   // what was stored, and how long it took
	procs   []*row     // whole processes
	calls   []*callRow // calls to long-lived servers
	wakes   []*callRow // long-poll wakes, and the inotify floor
	idleCPU float64    // share of a core an idle long poll used
	idleFor time.Duration
}

// benchScale seeds the large states, then measures.
func benchScale(cfg *config, b *bins, fx []fixture, rng *rand.Rand) (*scaleResult, error) {
	res := &scaleResult{sizes: sizesFor(cfg)}
	pre, err := findFixture(fx, fixtureName(claude, "PreToolUse.text.json"))
	if err != nil {
		return nil, err
	}
	floorRead := &row{kind: "floor", note: "reads stdin, exits", c: &candidate{
		name: "floor: read stdin", input: pre.label, argv: []string{b.floorRead}, stdin: pre.data, check: noOutput}}
	approves, err := res.approveRows(cfg, b, pre, floorRead)
	if err != nil {
		return nil, err
	}
	q0, qN, lists, err := res.listRows(cfg, b, floorRead)
	if err != nil {
		return nil, err
	}
	res.procs = append(append([]*row{floorRead}, approves...), lists...)
	progress("scale: %d warm-up + %d runs of approve and approvals list, small and large, interleaved", cfg.warm, cfg.runs)
	var cands []*candidate
	for _, r := range res.procs {
		cands = append(cands, r.c)
	}
	if err := measure(cands, cfg.warm, cfg.runs, 0, cfg.budget, rng); err != nil {
		return nil, err
	}
	for _, r := range res.procs {
		r.st = summarize(r.c)
	}

	// Chats: one of smallEvents events and one of sz.events, both
	// running (their client idles), in one state dir.
	chatDir, err := stateDir(cfg, "scale-chats")
	if err != nil {
		return nil, err
	}
	t0 := time.Now()
	chats, stop, err := startIdleChats(cfg, b, chatDir, []int{smallEvents, res.sizes.events})
	if stop != nil {
		defer stop()
	}
	if err != nil {
		return nil, err
	}
	res.seeded(fmt.Sprintf("two running chats of %d and %d events (children.Chat.Append)", smallEvents, res.sizes.events), t0)
	var srv [3]*mcpConn // the chats', the small queue's, the large queue's
	for i, dir := range []string{chatDir, q0, qN} {
		if srv[i], err = startMCP(b, dir); err != nil {
			return nil, err
		}
		defer srv[i].close()
	}
	if err := res.callRows(cfg, srv[0], srv[1], srv[2], chats[0], chats[1], rng); err != nil {
		return nil, err
	}

	// The long poll's wake, against a process woken by inotify alone.
	wakeRounds := 30
	if cfg.smoke {
		wakeRounds = 5
	}
	progress("scale: %d rounds of long-poll wakes, 0 and %d decided, and the inotify floor", wakeRounds, res.sizes.decided)
	if res.wakes, err = benchWakes(cfg, b, srv[1], srv[2], q0, qN, res.sizes.decided, wakeRounds, rng); err != nil {
		return nil, err
	}
	return res, res.idlePoll(cfg, b, chatDir, chats[1])
}

// seeded notes what was stored since t0, and how long it took.
func (res *scaleResult) seeded(what string, t0 time.Time) {
	res.seeding = append(res.seeding, fmt.Sprintf("%s: %s", what, time.Since(t0).Round(time.Millisecond)))
}

// approveRows are the approve hook with one stored session (its own) and
// with many more.
func (res *scaleResult) approveRows(cfg *config, b *bins, pre fixture, floorRead *row) ([]*row, error) {
	hook1, err := stateDir(cfg, "scale-approve-1")
	if err != nil {
		return nil, err
	}
	hookN, err := stateDir(cfg, "scale-approve-n")
	if err != nil {
		return nil, err
	}
	t0 := time.Now()
	for _, d := range []string{hook1, hookN} {
		if err := state.New(d).Put(state.Record{Server: "wf", Session: pre.session, Token: "tok-bench-own-0123456789abcdef"}); err != nil {
			return nil, err
		}
	}
	st := state.New(hookN)
	for i := 0; i < res.sizes.sessions; i++ {
		if err := st.Put(state.Record{Server: "wf", Session: fmt.Sprintf("bench-session-%06d", i), Token: fmt.Sprintf("tok-bench-%06d-0123456789abcdef", i)}); err != nil {
			return nil, err
		}
	}
	res.seeded(fmt.Sprintf("%d token sessions (state.Put)", res.sizes.sessions+1), t0)
	denied := func(out []byte) error {
		if !bytes.Contains(out, []byte(`"permissionDecision":"deny"`)) {
			return fmt.Errorf("no deny reply: %q", firstLine(string(out)))
		}
		return nil
	}
	approve := func(dir string) []string {
		// --timeout 1ms: queue the call, let it expire, deny. All of a
		// gated call's own cost, without waiting for a person.
		return []string{b.hook, "approve", "--client", claude.Name, "--timeout", "1ms", "--state-dir", dir}
	}
	approve1 := &row{kind: "scale", floor: floorRead, note: "1 session stored", c: &candidate{
		name: b.hookName() + " approve", input: pre.label + ", 1 session", argv: approve(hook1), stdin: pre.data, check: denied}}
	approveN := &row{kind: "scale", floor: approve1, note: fmt.Sprintf("%d sessions stored", res.sizes.sessions+1), c: &candidate{
		name: b.hookName() + " approve", input: fmt.Sprintf("%s, %d sessions", pre.label, res.sizes.sessions+1), argv: approve(hookN), stdin: pre.data, check: denied}}
	return []*row{approve1, approveN}, nil
}

// listRows are approvals list on a queue (q0, qN) with one pending request
// and none or many decided ones.
func (res *scaleResult) listRows(cfg *config, b *bins, floorRead *row) (q0, qN string, rows []*row, err error) {
	if q0, err = stateDir(cfg, "scale-queue-0"); err != nil {
		return "", "", nil, err
	}
	if qN, err = stateDir(cfg, "scale-queue-n"); err != nil {
		return "", "", nil, err
	}
	decided := res.sizes.decided
	t0 := time.Now()
	if err := seedDecided(qN, decided); err != nil {
		return "", "", nil, err
	}
	res.seeded(fmt.Sprintf("%d decided approval records (written as the one-dir layout kept them)", decided), t0)
	// The first use migrates them (a no-op for a build that predates it).
	t0 = time.Now()
	if out, err := exec.Command(b.interceptor, "approvals", "list", "--state-dir", qN).CombinedOutput(); err != nil {
		return "", "", nil, fmt.Errorf("approvals list: %v: %s", err, out)
	}
	res.seeded(fmt.Sprintf("first `approvals list` on them (migrates %d records to open/ and history/)", decided), t0)
	for _, d := range []string{q0, qN} {
		if _, err := approvals.New(d).Enqueue(approvals.Request{Client: "bench", Session: "s", Tool: "bench_tool", Input: `{"a":1}`, Deadline: time.Now().Add(24 * time.Hour)}); err != nil {
			return "", "", nil, err
		}
	}
	listed := func(out []byte) error {
		if !bytes.Contains(out, []byte("bench_tool")) {
			return fmt.Errorf("the pending request is not listed: %q", firstLine(string(out)))
		}
		return nil
	}
	list0 := &row{kind: "scale", floor: floorRead, note: "1 pending, 0 decided", c: &candidate{
		name: "interceptor approvals list", input: "0 decided", argv: []string{b.interceptor, "approvals", "list", "--state-dir", q0}, check: listed}}
	listN := &row{kind: "scale", floor: list0, note: fmt.Sprintf("1 pending, %d decided", decided), c: &candidate{
		name: "interceptor approvals list", input: fmt.Sprintf("%d decided", decided), argv: []string{b.interceptor, "approvals", "list", "--state-dir", qN}, check: listed}}
	return q0, qN, []*row{list0, listN}, nil
}

// pollArgs are poll's arguments: from from on in chat, waiting wait
// seconds (0: not at all).
func pollArgs(chat string, from int, wait float64) string {
	a := rawjson.AppendString([]byte(`{"session_id":`), chat)
	a = append(a, `,"from_seq":`...)
	a = strconv.AppendInt(a, int64(from), 10)
	if wait > 0 {
		a = append(a, `,"wait_seconds":`...)
		a = strconv.AppendFloat(a, wait, 'f', -1, 64)
	}
	return string(append(a, '}'))
}

// pollCheck accepts a poll's result of events events.
func pollCheck(events int) func(string) error {
	return func(text string) error {
		if j := gjson.Parse(text); j.Get("type").Str != "ok" || int(j.Get("events.#").Int()) != events {
			return fmt.Errorf("poll returned %.200s", text)
		}
		return nil
	}
}

// callRows are poll on a short and a long chat (small, large on srvC),
// and pending on a queue with none or many decided (srv0, srvN).
func (res *scaleResult) callRows(cfg *config, srvC, srv0, srvN *mcpConn, small, large string, rng *rand.Rand) error {
	events, decided := res.sizes.events, res.sizes.decided
	pendingCheck := func(text string) error {
		if gjson.Get(text, "pending.#").Int() != 1 {
			return fmt.Errorf("pending returned %.200s", text)
		}
		return nil
	}
	floorCall := &callRow{name: "floor: tools/list", note: "the stdio round trip", conn: srvC}
	poll0 := &callRow{name: "poll, nothing new", note: fmt.Sprintf("%d events", smallEvents), conn: srvC, tool: "poll",
		args: pollArgs(small, smallEvents, 0), check: pollCheck(0), floor: floorCall}
	pollN := &callRow{name: "poll, nothing new", note: fmt.Sprintf("%d events", events), conn: srvC, tool: "poll",
		args: pollArgs(large, events, 0), check: pollCheck(0), floor: floorCall, base: poll0}
	last0 := &callRow{name: "poll, the last event (not where the last read stopped: found by bisection)", note: fmt.Sprintf("%d events", smallEvents), conn: srvC, tool: "poll",
		args: pollArgs(small, smallEvents-1, 0), check: pollCheck(1), floor: floorCall}
	lastN := &callRow{name: "poll, the last event (not where the last read stopped: found by bisection)", note: fmt.Sprintf("%d events", events), conn: srvC, tool: "poll",
		args: pollArgs(large, events-1, 0), check: pollCheck(1), floor: floorCall, base: last0}
	pend0 := &callRow{name: "pending", note: "1 pending, 0 decided", conn: srv0, tool: "pending", args: `{}`, check: pendingCheck, floor: floorCall}
	pendN := &callRow{name: "pending", note: fmt.Sprintf("1 pending, %d decided", decided), conn: srvN, tool: "pending", args: `{}`, check: pendingCheck, floor: floorCall, base: pend0}
	res.calls = []*callRow{floorCall, poll0, pollN, last0, lastN, pend0, pendN}
	runs := cfg.runs * 4
	progress("scale: %d warm-up + %d rounds of poll and pending calls, small and large, interleaved", cfg.warm, runs)
	return measureCalls(res.calls, cfg.warm, runs, cfg.budget, rng)
}

// idlePoll measures the CPU an idle long poll on the large running chat
// uses.
func (res *scaleResult) idlePoll(cfg *config, b *bins, chatDir, large string) error {
	res.idleFor = 10 * time.Second
	if cfg.smoke {
		res.idleFor = 2 * time.Second
	}
	progress("scale: an idle %s long poll", res.idleFor)
	srvI, err := startMCP(b, chatDir)
	if err != nil {
		return err
	}
	defer srvI.close()
	cpu0 := procCPU(srvI.cmd.Process.Pid)
	text, took, err := srvI.call("poll", pollArgs(large, res.sizes.events, res.idleFor.Seconds()))
	if err != nil {
		return err
	}
	if err := pollCheck(0)(text); err != nil {
		return err
	}
	if took < res.idleFor {
		return fmt.Errorf("the idle long poll returned after %s, before its %s", took, res.idleFor)
	}
	res.idleCPU = float64(procCPU(srvI.cmd.Process.Pid)-cpu0) / float64(took)
	return nil
}

// seedDecided writes n decided records into dir's queue as the one-dir
// layout (approvals/<id>.json) held them: fsyncing each through the queue
// would take minutes, and the first use of a current build migrates them.
func seedDecided(dir string, n int) error {
	qdir := filepath.Join(dir, "approvals")
	if err := os.MkdirAll(qdir, 0o700); err != nil {
		return err
	}
	base := time.Now().Add(-time.Hour)
	input := `{"command":"` + strings.Repeat("x", 300) + `"}`
	for i := 0; i < n; i++ {
		at := base.Add(time.Duration(i) * time.Millisecond)
		r := approvals.Request{ID: fmt.Sprintf("%08x%05x%012x", uint32(at.Unix()), at.Nanosecond()/1000, i), Client: claude.Name, Session: "s",
			Tool: "Bash", Input: input, Created: at, Deadline: at.Add(time.Minute), Status: approvals.Allowed,
			DecidedBy: "bench", DecidedAt: at.Add(time.Second), Origin: "bench"}
		if err := os.WriteFile(filepath.Join(qdir, r.ID+".json"), []byte(r.JSON()+"\n"), 0o600); err != nil {
			return err
		}
	}
	return nil
}

// startIdleChats starts one chat of claude per size, each of a fake
// client (its executable, printing its stream-json's first event) that
// then idles, and appends to each log until it holds that many events.
// stop cancels them.
func startIdleChats(cfg *config, b *bins, dir string, sizes []int) ([]string, func(), error) {
	bin := filepath.Join(cfg.workDir, "fake-client")
	if err := os.MkdirAll(bin, 0o700); err != nil {
		return nil, nil, err
	}
	script := "#!/bin/sh\ncat >/dev/null\n" +
		`echo '{"type":"system","subtype":"init","session_id":"11111111-2222-4333-8444-555555555555"}'` + "\n" +
		"exec sleep 3600\n"
	if err := os.WriteFile(filepath.Join(bin, claude.Headless.Argv(hooks.ChatArgs{})[0]), []byte(script), 0o700); err != nil {
		return nil, nil, err
	}
	work := filepath.Join(cfg.workDir, "chat-work")
	if err := os.MkdirAll(work, 0o700); err != nil {
		return nil, nil, err
	}
	cs := children.New(dir)
	cs.Bin = b.interceptor
	var ids []string
	stop := func() {
		for _, id := range ids {
			cs.Cancel(id)
		}
	}
	for i, n := range sizes {
		c, err := cs.Create(children.Child{Name: "bench-" + strconv.Itoa(i), Client: claude.Name, WorkingDir: work,
			Env: map[string]string{"PATH": bin + ":/usr/bin:/bin"}})
		if err != nil {
			return ids, stop, err
		}
		chat, err := cs.StartChat(c.ID, "bench")
		if err != nil {
			return ids, stop, err
		}
		ids = append(ids, chat.ID)
		// The runner records the client's first event; then it idles.
		for deadline := time.Now().Add(10 * time.Second); ; {
			if total, err := chat.Total(); err == nil && total > 0 {
				break
			}
			if time.Now().After(deadline) {
				return ids, stop, fmt.Errorf("chat %s recorded no event within 10s", chat.ID)
			}
			time.Sleep(20 * time.Millisecond)
		}
		for total, _ := chat.Total(); total < n; {
			batch := make([]string, 0, 1000)
			for len(batch) < cap(batch) && total+len(batch) < n {
				batch = append(batch, fmt.Sprintf(`{"type":"content","text":"bench event %d: %s"}`, total+len(batch), strings.Repeat("lorem ipsum ", 8)))
			}
			if _, err := chat.Append(batch...); err != nil {
				return ids, stop, err
			}
			total += len(batch)
		}
	}
	return ids, stop, nil
}

// mcpConn is one `interceptor mcp --role supervisor` process, spoken to a
// line at a time.
type mcpConn struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
	id  int
}

func startMCP(b *bins, dir string) (*mcpConn, error) {
	cmd := exec.Command(b.interceptor, "mcp", "--role", "supervisor", "--state-dir", dir)
	cmd.Env = baseEnv
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	c := &mcpConn{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20)}
	if _, err := c.request("initialize", `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"0"}}`); err != nil {
		c.close()
		return nil, err
	}
	if _, err := io.WriteString(in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"); err != nil {
		c.close()
		return nil, err
	}
	return c, nil
}

func (c *mcpConn) send(method, params string) (int, error) {
	c.id++
	msg := `{"jsonrpc":"2.0","id":` + strconv.Itoa(c.id) + `,"method":"` + method + `","params":` + params + "}\n"
	_, err := io.WriteString(c.in, msg)
	return c.id, err
}

func (c *mcpConn) recv(id int) (gjson.Result, error) {
	line, err := c.out.ReadBytes('\n')
	if err != nil {
		return gjson.Result{}, fmt.Errorf("mcp server: %v", err)
	}
	j := gjson.ParseBytes(line)
	if int(j.Get("id").Int()) != id {
		return j, fmt.Errorf("mcp server answered %.200s, not request %d", line, id)
	}
	if e := j.Get("error"); e.Exists() {
		return j, fmt.Errorf("mcp server: %s", e.Raw)
	}
	return j, nil
}

func (c *mcpConn) request(method, params string) (gjson.Result, error) {
	id, err := c.send(method, params)
	if err != nil {
		return gjson.Result{}, err
	}
	return c.recv(id)
}

// call runs a tool and returns its text and the round trip.
func (c *mcpConn) call(tool, args string) (string, time.Duration, error) {
	params := string(rawjson.AppendString([]byte(`{"name":`), tool)) + `,"arguments":` + args + `}`
	t0 := time.Now()
	j, err := c.request("tools/call", params)
	d := time.Since(t0)
	if err != nil {
		return "", d, err
	}
	if j.Get("result.isError").Bool() {
		return "", d, fmt.Errorf("%s: %s", tool, j.Get("result.content.0.text").Str)
	}
	return j.Get("result.content.0.text").Str, d, nil
}

func (c *mcpConn) close() {
	c.in.Close()
	done := make(chan struct{})
	go func() { c.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		c.cmd.Process.Kill()
		<-done
	}
}

// measureCalls runs every call warm+n times in rounds (see inRounds).
func measureCalls(calls []*callRow, warm, n int, budget time.Duration, rng *rand.Rand) error {
	return inRounds(len(calls), warm, n, budget, rng, func(i int, keep bool) error {
		c := calls[i]
		var d time.Duration
		if c.tool == "" {
			t0 := time.Now()
			if _, err := c.conn.request("tools/list", `{}`); err != nil {
				return err
			}
			d = time.Since(t0)
		} else {
			text, took, err := c.conn.call(c.tool, c.args)
			if err == nil {
				err = c.check(text)
			}
			if err != nil {
				return fmt.Errorf("%s (%s): %v", c.name, c.note, err)
			}
			d = took
		}
		if keep {
			c.samples = append(c.samples, d)
		}
		return nil
	})
}

// benchWakes times a long poll's wake: pending with wait_seconds blocks on
// an empty queue, a request is queued, and the reply is read. The floor is
// the same wake of a process that only waits on inotify (floors/wake).
func benchWakes(cfg *config, b *bins, srv0, srvN *mcpConn, q0, qN string, decided, rounds int, rng *rand.Rand) ([]*callRow, error) {
	floor := &callRow{name: "floor: a process woken by inotify", note: "rename into a watched dir, to its line read"}
	w0 := &callRow{name: "pending long poll wakes", note: "0 decided", conn: srv0, floor: floor}
	wN := &callRow{name: "pending long poll wakes", note: fmt.Sprintf("%d decided", decided), conn: srvN, floor: floor, base: w0}
	dirs := map[*callRow]string{w0: q0, wN: qN}
	rows := []*callRow{floor, w0, wN}
	wakeDir, err := stateDir(cfg, "scale-wake-floor")
	if err != nil {
		return nil, err
	}
	// Empty both queues: the long poll must wait.
	for _, d := range []string{q0, qN} {
		q := approvals.New(d)
		rs, err := q.List(approvals.Filter{Pending: true})
		if err != nil {
			return nil, err
		}
		for _, r := range rs {
			if _, err := q.Expire(r.ID, "bench"); err != nil {
				return nil, err
			}
		}
	}
	for r := 0; r < rounds+1; r++ {
		for _, i := range rng.Perm(len(rows)) {
			x := rows[i]
			var d time.Duration
			var err error
			if x == floor {
				d, err = floorWake(b, wakeDir, r)
			} else {
				d, err = pendingWake(x.conn, approvals.New(dirs[x]))
			}
			if err != nil {
				return nil, fmt.Errorf("%s (%s): %v", x.name, x.note, err)
			}
			if r > 0 { // the first round warms up
				x.samples = append(x.samples, d)
			}
		}
	}
	return rows, nil
}

// settle is how long a long poll gets to block before the change it waits
// for is made.
const settle = 80 * time.Millisecond

func pendingWake(c *mcpConn, q *approvals.Store) (time.Duration, error) {
	params := `{"name":"pending","arguments":{"wait_seconds":30}}`
	id, err := c.send("tools/call", params)
	if err != nil {
		return 0, err
	}
	time.Sleep(settle)
	r, err := q.Enqueue(approvals.Request{Client: "bench", Session: "s", Tool: "bench_wake", Input: `{}`, Deadline: time.Now().Add(time.Minute)})
	if err != nil {
		return 0, err
	}
	t0 := time.Now()
	j, err := c.recv(id)
	d := time.Since(t0)
	if err != nil {
		return 0, err
	}
	if !strings.Contains(j.Get("result.content.0.text").Str, r.ID) {
		return 0, fmt.Errorf("the long poll returned %.200s", j.Raw)
	}
	_, err = q.Expire(r.ID, "bench")
	return d, err
}

func floorWake(b *bins, dir string, round int) (time.Duration, error) {
	cmd := exec.Command(b.floorWake, dir)
	cmd.Env = baseEnv
	out, err := cmd.StdoutPipe()
	if err != nil {
		return 0, err
	}
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	defer cmd.Wait()
	br := bufio.NewReader(out)
	if l, err := br.ReadString('\n'); err != nil || l != "ready\n" {
		cmd.Process.Kill()
		return 0, fmt.Errorf("floor wake: %q %v", l, err)
	}
	time.Sleep(settle)
	tmp := filepath.Join(dir, ".tmp-"+strconv.Itoa(round))
	if err := os.WriteFile(tmp, []byte("x"), 0o600); err != nil {
		return 0, err
	}
	if err := os.Rename(tmp, filepath.Join(dir, "r-"+strconv.Itoa(round))); err != nil {
		return 0, err
	}
	t0 := time.Now()
	l, err := br.ReadString('\n')
	d := time.Since(t0)
	if err != nil || l != "woke\n" {
		return 0, fmt.Errorf("floor wake: %q %v", l, err)
	}
	return d, nil
}

// procCPU is the CPU time of a process so far, all its threads
// (/proc/PID/task/*/schedstat, nanoseconds).
func procCPU(pid int) time.Duration {
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", pid))
	var ns int64
	for _, t := range tasks {
		b, err := os.ReadFile(t)
		if err != nil {
			continue
		}
		if f := strings.Fields(string(b)); len(f) > 0 {
			n, _ := strconv.ParseInt(f[0], 10, 64)
			ns += n
		}
	}
	return time.Duration(ns)
}

func (r *report) writeScale(w io.Writer) {
	s := r.scale
	if s == nil {
		return
	}
	fmt.Fprintf(w, "## Scale: cost against history (issue 25)\n\n")
	fmt.Fprintf(w, "Seeded: %s.\n\n", strings.Join(s.seeding, "; "))
	fmt.Fprintf(w, "Whole processes, interleaved in random order each round:\n\n")
	fmt.Fprintf(w, "| command | state | median ms | p90 ms | CPU ms | ratio |\n|---|---|--:|--:|--:|--:|\n")
	for _, x := range s.procs {
		rat := ""
		if x.floor != nil {
			rat = fmt.Sprintf("%.2fx %s", ratio(x.st.median, x.floor.st.median), scaleBaseName(x.floor))
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s |\n", x.c.name, x.note, ms(x.st.median), ms(x.st.p90), ms(x.st.cpu), rat)
	}
	fmt.Fprintf(w, "\nCalls to long-lived `interceptor mcp --role supervisor` servers (request written to reply read), %d rounds, interleaved:\n\n", len(s.calls[0].samples))
	writeCalls(w, s.calls)
	fmt.Fprintf(w, "\nLong-poll wakes: `pending` with wait_seconds blocks on an empty queue; a request is queued; time from Enqueue's return (just after its rename and lock release; a reply already waiting reads as a few µs) to the reply read. The floor is a process woken by inotify, from the rename's return to its line read:\n\n")
	writeCalls(w, s.wakes)
	fmt.Fprintf(w, "\nAn idle long poll (`poll` with wait_seconds %.0f on the running %d-event chat, nothing new): the server used %.3f%% of a core.\n\n", s.idleFor.Seconds(), s.sizes.events, 100*s.idleCPU)

	byRatio := func(x *row) float64 { return ratio(x.st.median, x.floor.st.median) }
	for _, x := range s.procs {
		if x.floor == nil || x.floor.kind == "floor" {
			continue
		}
		switch x.c.name {
		case "interceptor approve":
			r.judge(fmt.Sprintf("approve hook at %d stored sessions: <= %.1fx 1 session (issue 25)", s.sizes.sessions+1, targetApproveScale), byRatio(x) <= targetApproveScale,
				"%.2fx (%s ms vs %s ms)", byRatio(x), ms(x.st.median), ms(x.floor.st.median))
		case "interceptor approvals list":
			r.judge(fmt.Sprintf("`approvals list` with %d decided: <= %.0fx none (issue 25)", s.sizes.decided, targetQueueScale), byRatio(x) <= targetQueueScale,
				"%.2fx (%s ms vs %s ms)", byRatio(x), ms(x.st.median), ms(x.floor.st.median))
		}
	}
	for _, x := range s.calls {
		if x.base == nil {
			continue
		}
		rt := ratio(x.median(), x.base.median())
		switch x.tool {
		case "poll":
			r.judge(fmt.Sprintf("%s, %d events: <= %.0fx %d events (issue 25)", x.name, s.sizes.events, targetPollScale, smallEvents), rt <= targetPollScale,
				"%.2fx (%s ms vs %s ms)", rt, ms(x.median()), ms(x.base.median()))
		case "pending":
			r.judge(fmt.Sprintf("supervisor `pending` with %d decided: <= %.0fx none (issue 25)", s.sizes.decided, targetQueueScale), rt <= targetQueueScale,
				"%.2fx (%s ms vs %s ms)", rt, ms(x.median()), ms(x.base.median()))
		}
	}
	for _, x := range s.wakes {
		if x.floor != nil {
			r.judge(fmt.Sprintf("long-poll wake, %s: within %s (issue 25)", x.note, targetWake), x.median() <= targetWake,
				"%s ms median, p90 %s ms (%.1fx the inotify floor)", ms(x.median()), ms(x.p90()), ratio(x.median(), x.floor.median()))
		}
	}
	r.judge(fmt.Sprintf("idle %s long poll: < %.0f%% of a core (issue 25)", s.idleFor, 100*targetIdleCPU), s.idleCPU < targetIdleCPU, "%.3f%%", 100*s.idleCPU)
}

func scaleBaseName(f *row) string {
	if f.kind == "floor" {
		return "read floor"
	}
	return "small"
}

func writeCalls(w io.Writer, calls []*callRow) {
	fmt.Fprintf(w, "| call | state | median ms | p90 ms | vs floor | vs small |\n|---|---|--:|--:|--:|--:|\n")
	for _, x := range calls {
		vf, vs := "", ""
		if x.floor != nil {
			vf = fmt.Sprintf("%.2fx", ratio(x.median(), x.floor.median()))
		}
		if x.base != nil {
			vs = fmt.Sprintf("%.2fx", ratio(x.median(), x.base.median()))
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s |\n", x.name, x.note, ms(x.median()), ms(x.p90()), vf, vs)
	}
}
