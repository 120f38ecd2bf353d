//go:build linux

package main

// The store phase (issue 25, items 2, 5 and 6): what the token store and
// the redaction cost as sessions and payloads grow.
//
//   - captures of many distinct sessions at once, into one state dir and
//     into one state dir per worker (the floor: no lock is shared);
//   - gc of many stale sessions while captures run: no capture may lose its
//     token, and their latency beside the same captures without gc;
//   - capture --redact against plain capture, on a 1 MiB result;
//   - the proxy's peak RSS relaying 1 MiB results.

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/interceptor-dev/interceptor/internal/state"
	"github.com/interceptor-dev/interceptor/internal/token"
	"github.com/tidwall/gjson"
)

// Targets of issue 25.
const (
	targetDistinctP99 = 1.3 // capture p99, one dir vs a dir per worker
	targetRedact      = 1.5 // capture --redact vs capture, 1 MiB
	targetProxyRSSMiB = 40.0
)

type storeResult struct {
	workers                 int
	shared, perWorker       []time.Duration // capture wall times, distinct sessions
	stale                   int
	seedTook, gcTook        time.Duration
	gcCaptures, gcLost      int
	gcFailed                []string
	duringGC, withoutGC     []time.Duration
	redact, plain           []time.Duration // cpu per run, interleaved
	redactSize              int
	proxyHWMKiB             int64
	proxyResults, proxySize int
}

// storePost is a Claude Code post-tool event of session carrying tok on a
// text line.
func storePost(session, tok string) []byte {
	return []byte(`{"session_id":"` + session + `","hook_event_name":"PostToolUse","tool_name":"mcp__wf__next_step","tool_input":{},"tool_response":[{"type":"text","text":"done\nsession_token: ` + tok + `\n"}]}`)
}

func storeToken(what string, i int) string {
	return fmt.Sprintf("tok.%s.%07d.0123456789abcdef", what, i)
}

// captureRun runs one capture and returns its wall time; a run that prints
// on stderr or fails is an error.
func captureRun(b *bins, dir string, payload []byte, extra ...string) (time.Duration, []byte, error) {
	argv := append([]string{"capture", "--server", "wf", "--state-dir", dir}, extra...)
	cmd := exec.Command(b.hook, argv...)
	cmd.Env = baseEnv
	cmd.Stdin = bytes.NewReader(payload)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	t0 := time.Now()
	err := cmd.Run()
	took := time.Since(t0)
	if err == nil && errb.Len() > 0 {
		err = fmt.Errorf("stderr: %s", firstLine(errb.String()))
	}
	return took, out.Bytes(), err
}

func benchStore(cfg *config, b *bins) (*storeResult, error) {
	res := &storeResult{workers: cfg.conc}
	if err := benchDistinct(cfg, b, res); err != nil {
		return nil, err
	}
	if err := benchGC(cfg, b, res); err != nil {
		return nil, err
	}
	if err := benchRedact(cfg, b, res); err != nil {
		return nil, err
	}
	if err := benchProxyRSS(b, res); err != nil {
		return nil, err
	}
	return res, nil
}

// benchDistinct: cfg.conc workers, each capturing into its own session, in
// rounds that alternate one shared state dir and a state dir per worker,
// so both see the same machine.
func benchDistinct(cfg *config, b *bins, res *storeResult) error {
	shared, err := stateDir(cfg, "store-shared")
	if err != nil {
		return err
	}
	own := make([]string, cfg.conc)
	for w := range own {
		if own[w], err = stateDir(cfg, fmt.Sprintf("store-own-%02d", w)); err != nil {
			return err
		}
	}
	rounds, per := 6, cfg.concTime/2
	if cfg.smoke {
		rounds = 2
	}
	var mu sync.Mutex
	for r := 0; r < rounds; r++ {
		perWorker := r%2 == 1
		deadline := time.Now().Add(per)
		var wg sync.WaitGroup
		var firstErr atomic.Value
		for w := 0; w < cfg.conc; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				dir := shared
				if perWorker {
					dir = own[w]
				}
				for i := 0; time.Now().Before(deadline); i++ {
					took, _, err := captureRun(b, dir, storePost(fmt.Sprintf("s%02d", w), storeToken(fmt.Sprintf("w%02d", w), i)))
					if err != nil {
						firstErr.CompareAndSwap(nil, err)
						return
					}
					mu.Lock()
					if perWorker {
						res.perWorker = append(res.perWorker, took)
					} else {
						res.shared = append(res.shared, took)
					}
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		if e := firstErr.Load(); e != nil {
			return fmt.Errorf("distinct sessions: a capture failed: %v", e)
		}
	}
	return nil
}

// benchGC seeds stale sessions, then runs gc while captures of fresh
// sessions, and of stale ones written again, run beside it; afterwards
// every capture's token must be held.
func benchGC(cfg *config, b *bins, res *storeResult) error {
	res.stale = 100_000
	if cfg.smoke {
		res.stale = 20_000
	}
	dir, err := stateDir(cfg, "store-gc")
	if err != nil {
		return err
	}
	progress("store: seeding %d stale sessions", res.stale)
	t0 := time.Now()
	st := state.New(dir)
	old := time.Now().Add(-30 * 24 * time.Hour)
	sdir := filepath.Join(dir, "tokens", "wf")
	for i := 0; i < res.stale; i++ {
		id, tok := fmt.Sprintf("stale-%07d", i), storeToken("stale", i)
		err := st.Update("wf", id, "bench", false, func(h token.Holding) (token.Holding, bool) {
			h["session_token"] = token.Live{Values: token.Held{tok}, Default: tok}
			return h, true
		})
		if err != nil {
			return err
		}
		if err := os.Chtimes(filepath.Join(sdir, state.SessionFile(id)), old, old); err != nil {
			return err
		}
	}
	res.seedTook = time.Since(t0)

	// The same captures without gc first: the figure to compare with.
	run := func(until func() bool, into *[]time.Duration, stored map[string]string, tag string) error {
		var mu sync.Mutex
		var wg sync.WaitGroup
		var n atomic.Int64
		for w := 0; w < 4; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for !until() {
					i := int(n.Add(1))
					id := fmt.Sprintf("%s-fresh-%07d", tag, i)
					if i%2 == 0 {
						id = fmt.Sprintf("stale-%07d", (i*7919)%res.stale) // a stale session written again
					}
					tok := storeToken(tag, i)
					took, _, err := captureRun(b, dir, storePost(id, tok))
					mu.Lock()
					if err != nil {
						res.gcFailed = append(res.gcFailed, fmt.Sprintf("%s: %v", id, err))
					} else {
						*into = append(*into, took)
						stored[id] = tok
					}
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		return nil
	}
	// What each session was last given: a stale session the captures
	// beside gc write again may have been written before gc started too.
	stored := map[string]string{}
	stop := time.Now().Add(2 * time.Second)
	if err := run(func() bool { return time.Now().After(stop) }, &res.withoutGC, stored, "pre"); err != nil {
		return err
	}
	// gc starts after the captures above: what they stored is fresh.
	progress("store: gc of %d stale sessions with captures beside it", res.stale)
	gc := exec.Command(b.interceptor, "gc", "--older-than", "7d", "--state-dir", dir)
	gc.Env = baseEnv
	var gcErr bytes.Buffer
	gc.Stderr = &gcErr
	t0 = time.Now()
	if err := gc.Start(); err != nil {
		return err
	}
	var done atomic.Bool
	waited := make(chan error, 1)
	go func() { waited <- gc.Wait(); done.Store(true) }()
	n0 := len(res.duringGC)
	if err := run(done.Load, &res.duringGC, stored, "gc"); err != nil {
		return err
	}
	if err := <-waited; err != nil {
		return fmt.Errorf("gc: %v: %s", err, firstLine(gcErr.String()))
	}
	res.gcTook = time.Since(t0)
	res.gcCaptures = len(res.duringGC) - n0
	for id, tok := range stored {
		// Every one was written after the sessions were made stale: a
		// fresh file gc must keep.
		if rec, err := st.Get("wf", id); err != nil || rec.Token != tok {
			res.gcLost++
		}
	}
	return nil
}

// benchRedact: capture and capture --redact on a 1 MiB result, interleaved.
func benchRedact(cfg *config, b *bins, res *storeResult) error {
	dir, err := stateDir(cfg, "store-redact")
	if err != nil {
		return err
	}
	res.redactSize = 1 << 20
	var text strings.Builder
	for i := 0; text.Len() < res.redactSize; i++ {
		fmt.Fprintf(&text, padLine, i)
	}
	tok := storeToken("big", 1)
	payload := []byte(`{"session_id":"big","hook_event_name":"PostToolUse","tool_name":"mcp__wf__next_step","tool_input":{},"tool_response":[{"type":"text","text":"` +
		text.String()[:res.redactSize/2] + `\nsession_token: ` + tok + `\n` + text.String()[res.redactSize/2:] + `"}]}`)
	if !gjson.ValidBytes(payload) {
		return fmt.Errorf("the 1 MiB redact payload is not JSON")
	}
	cpu := func(extra ...string) (time.Duration, error) {
		cmd := exec.Command(b.hook, append([]string{"capture", "--server", "wf", "--state-dir", dir}, extra...)...)
		cmd.Env = baseEnv
		cmd.Stdin = bytes.NewReader(payload)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil || errb.Len() > 0 {
			return 0, fmt.Errorf("capture %v: %v %s", extra, err, firstLine(errb.String()))
		}
		if len(extra) > 0 && (bytes.Contains(out.Bytes(), []byte(tok)) || !bytes.Contains(out.Bytes(), []byte("held by interceptor"))) {
			return 0, fmt.Errorf("capture --redact did not redact the 1 MiB result")
		}
		return cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(), nil
	}
	for i := 0; i < cfg.warm+cfg.runs; i++ {
		p, err := cpu()
		if err != nil {
			return err
		}
		r, err := cpu("--redact")
		if err != nil {
			return err
		}
		if i >= cfg.warm {
			res.plain, res.redact = append(res.plain, p), append(res.redact, r)
		}
	}
	return nil
}

// benchProxyRSS relays 1 MiB results through `interceptor proxy` to this
// program acting as the server (-serve-big), and reads the proxy's peak RSS.
func benchProxyRSS(b *bins, res *storeResult) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	res.proxyResults, res.proxySize = 30, 1<<20
	cmd := exec.Command(b.interceptor, "proxy", "--server-name", "wf", "--", self, "-serve-big", strconv.Itoa(res.proxySize))
	cmd.Env = baseEnv
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	outPipe, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		return err
	}
	defer cmd.Process.Kill()
	out := bufio.NewReaderSize(outPipe, 64<<10)
	rpc := func(id int, method, params string) ([]byte, error) {
		if _, err := fmt.Fprintf(in, `{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`+"\n", id, method, params); err != nil {
			return nil, err
		}
		return out.ReadBytes('\n')
	}
	if _, err := rpc(0, "tools/list", "{}"); err != nil {
		return err
	}
	for i := 1; i <= res.proxyResults; i++ {
		line, err := rpc(i, "tools/call", `{"name":"next_step","arguments":{}}`)
		if err != nil {
			return fmt.Errorf("proxy: %v: %s", err, firstLine(errb.String()))
		}
		if len(line) < res.proxySize || bytes.Contains(line, []byte(bigServerTokenPrefix)) {
			return fmt.Errorf("proxy: result %d is %d bytes or holds a token", i, len(line))
		}
	}
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", cmd.Process.Pid))
	if err != nil {
		return err
	}
	for _, l := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			res.proxyHWMKiB, _ = strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
		}
	}
	in.Close()
	cmd.Wait()
	return nil
}

const bigServerTokenPrefix = "tok.bigserver."

// serveBig is the server benchProxyRSS relays to: every tools/call gets a
// result of size bytes with a new token in _meta and on a text line.
func serveBig(size int) {
	in := bufio.NewReaderSize(os.Stdin, 64<<10)
	w := bufio.NewWriterSize(os.Stdout, 64<<10)
	var text strings.Builder
	for i := 0; text.Len() < size; i++ {
		fmt.Fprintf(&text, padLine, i)
	}
	n := 0
	for {
		line, err := in.ReadBytes('\n')
		if err != nil {
			return
		}
		msg := gjson.ParseBytes(line)
		id := msg.Get("id").Raw
		switch msg.Get("method").Str {
		case "tools/list":
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"tools":[{"name":"next_step","inputSchema":{"type":"object","properties":{"session_token":{"type":"string"}}}}]}}`+"\n", id)
		case "tools/call":
			n++
			tok := fmt.Sprintf("%s%07d.0123456789abcdef", bigServerTokenPrefix, n)
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"_meta":{"session_token":%q},"content":[{"type":"text","text":"%s\nsession_token: %s\n"}]}}`+"\n", id, tok, text.String(), tok)
		default:
			if id != "" {
				fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{}}`+"\n", id)
			}
		}
		w.Flush()
	}
}

func (r *report) writeStore(w io.Writer) {
	s := r.store
	if s == nil {
		return
	}
	p99 := func(xs []time.Duration) time.Duration { return quantile(sortedDur(xs), 0.99) }
	p50 := func(xs []time.Duration) time.Duration { return quantile(sortedDur(xs), 0.5) }
	fmt.Fprintf(w, "## Store: locks, gc and redaction (issue 25)\n\n")
	fmt.Fprintf(w, "%d capture processes at once, each into a session of its own, in rounds alternating one state dir for all and one state dir per worker (no lock shared: the floor):\n\n", s.workers)
	fmt.Fprintf(w, "| state | captures | p50 ms | p99 ms |\n|---|--:|--:|--:|\n| one dir | %d | %s | %s |\n| a dir per worker | %d | %s | %s |\n\n",
		len(s.shared), ms(p50(s.shared)), ms(p99(s.shared)), len(s.perWorker), ms(p50(s.perWorker)), ms(p99(s.perWorker)))
	rt := ratio(p99(s.shared), p99(s.perWorker))
	r.judge(fmt.Sprintf("capture p99, %d distinct sessions at once: <= %.1fx a dir per worker (issue 25)", s.workers, targetDistinctP99), rt <= targetDistinctP99,
		"%.2fx (%s ms vs %s ms)", rt, ms(p99(s.shared)), ms(p99(s.perWorker)))

	fmt.Fprintf(w, "gc of %d stale sessions (seeded in %s) took %s; %d captures ran beside it (half fresh sessions, half stale ones written again), 4 at a time: p50 %s ms, p99 %s ms; the same without gc: p50 %s ms, p99 %s ms. Captures that failed: %d; tokens lost: %d.\n\n",
		s.stale, s.seedTook.Round(time.Millisecond), s.gcTook.Round(time.Millisecond), s.gcCaptures, ms(p50(s.duringGC)), ms(p99(s.duringGC)), ms(p50(s.withoutGC)), ms(p99(s.withoutGC)), len(s.gcFailed), s.gcLost)
	for i, f := range s.gcFailed {
		if i == 5 {
			break
		}
		fmt.Fprintf(w, "- failed: %s\n", f)
	}
	r.judge(fmt.Sprintf("no capture loses its token during a gc of %d stale sessions (issue 25)", s.stale), s.gcLost == 0 && len(s.gcFailed) == 0 && s.gcCaptures > 0,
		"%d captures beside gc, %d failed, %d tokens lost", s.gcCaptures, len(s.gcFailed), s.gcLost)

	red, plain := p50(s.redact), p50(s.plain)
	fmt.Fprintf(w, "\ncapture on a %s result, CPU per run, %d runs each interleaved: plain %s ms, --redact %s ms.\n\n", sizeLabel(s.redactSize), len(s.plain), ms(plain), ms(red))
	r.judge(fmt.Sprintf("capture --redact on %s: <= %.1fx plain capture (issue 25)", sizeLabel(s.redactSize), targetRedact), ratio(red, plain) <= targetRedact,
		"%.2fx (%s ms vs %s ms CPU)", ratio(red, plain), ms(red), ms(plain))

	mib := float64(s.proxyHWMKiB) / 1024
	fmt.Fprintf(w, "`interceptor proxy` relaying %d results of %s (a token in each, redacted): peak RSS %.1f MiB.\n\n", s.proxyResults, sizeLabel(s.proxySize), mib)
	r.judge(fmt.Sprintf("proxy peak RSS with %s results: < %.0f MiB (issue 25)", sizeLabel(s.proxySize), targetProxyRSSMiB), mib < targetProxyRSSMiB, "%.1f MiB", mib)
}
