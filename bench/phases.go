//go:build linux

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// row is one line of a results table.
type row struct {
	kind  string // "floor", "inject", "capture", "node", "context"
	c     *candidate
	st    stats
	floor *row // what its ratio is against; nil for floors and context rows
	note  string
}

// injectCheck accepts a reply that is one JSON document carrying tok.
func injectCheck(tok string) func([]byte) error {
	return func(out []byte) error {
		if len(bytes.TrimSpace(out)) == 0 {
			return fmt.Errorf("printed no reply (a token is held for the session)")
		}
		if !json.Valid(out) {
			return fmt.Errorf("reply is not valid JSON: %q", firstLine(string(out)))
		}
		if !bytes.Contains(out, []byte(`"`+tok+`"`)) {
			return fmt.Errorf("reply does not carry the held token %s: %q", tok, firstLine(string(out)))
		}
		return nil
	}
}

func noOutput(out []byte) error {
	if len(out) > 0 {
		return fmt.Errorf("printed %q, expected nothing", firstLine(string(out)))
	}
	return nil
}

func seedTok(f fixture) string { return "tok-seed-" + f.client }

// benchTypical measures inject and capture on every fixture, against the
// floors, with the Node baseline, all interleaved in the same rounds.
func benchTypical(cfg *config, b *bins, fx []fixture, rng *rand.Rand) ([]*row, error) {
	injState, err := stateDir(cfg, "typical-inject")
	if err != nil {
		return nil, err
	}
	claudePre, err := findFixture(fx, fixtureName(claude, "PreToolUse.text.json"))
	if err != nil {
		return nil, err
	}
	claudePost, err := findFixture(fx, fixtureName(claude, "PostToolUse.structured.json"))
	if err != nil {
		return nil, err
	}
	rows, err := typicalFloors(cfg, b, claudePre, claudePost)
	if err != nil {
		return nil, err
	}
	floorRead, floorAtomic := rows[0], rows[1]
	injects, claudeInject, err := injectRows(cfg, b, fx, injState, floorRead, claudePre)
	if err != nil {
		return nil, err
	}
	captures, err := captureRows(cfg, b, fx, floorAtomic)
	if err != nil {
		return nil, err
	}
	rows = append(append(rows, injects...), captures...)
	if b.separateHook() {
		cli, err := cliRows(cfg, b, injState, floorRead, floorAtomic, claudePre, claudePost)
		if err != nil {
			return nil, err
		}
		rows = append(rows, cli...)
	}
	if b.node != "" && claudeInject != nil {
		rows = append(rows,
			&row{kind: "node", floor: claudeInject, note: "bench/node/inject.js, same work", c: &candidate{
				name: "node inject.js", input: claudePre.label, stdin: claudePre.data, check: injectCheck(seedTok(claudePre)),
				argv: []string{b.node, b.nodeScript, "--server", "wf", "--state-dir", injState}}},
			&row{kind: "context", note: "Node's own start-up: an empty script", c: &candidate{
				name: "node -e ''", input: claudePre.label, stdin: claudePre.data, check: noOutput,
				argv: []string{b.node, "-e", ""}}})
	}
	var cands []*candidate
	for _, r := range rows {
		cands = append(cands, r.c)
	}
	if err := measure(cands, cfg.warm, cfg.runs, cfg.rssRuns, cfg.budget, rng); err != nil {
		return nil, err
	}
	for _, r := range rows {
		r.st = summarize(r.c)
	}
	return rows, nil
}

// typicalFloors are the typical table's floor and context rows: reading
// stdin (inject's floor) first, the atomic replace (capture's) second.
func typicalFloors(cfg *config, b *bins, claudePre, claudePost fixture) ([]*row, error) {
	floorRead := &row{kind: "floor", note: "reads stdin, exits", c: &candidate{
		name: "floor: read stdin", input: claudePre.label, argv: []string{b.floorRead}, stdin: claudePre.data, check: noOutput}}
	floorDir, err := stateDir(cfg, "typical-floor")
	if err != nil {
		return nil, err
	}
	floorAtomic := &row{kind: "floor", note: "reads stdin, temp file + rename", c: &candidate{
		name: "floor: atomic replace", input: claudePost.label, argv: []string{b.floorAtomic, floorDir}, stdin: claudePost.data, check: noOutput}}
	durDir, err := stateDir(cfg, "typical-floor-durable")
	if err != nil {
		return nil, err
	}
	durable := &row{kind: "context", note: "floor + flock + fsync file + fsync dir (what the store does for each file)", c: &candidate{
		name: "floor: atomic replace, locked + fsync", input: claudePost.label, argv: []string{b.floorAtomic, durDir, "-lock", "-fsync"}, stdin: claudePost.data, check: noOutput}}
	// interceptor's own start-up, no hook work: runtime, package init and
	// building the command tree; it ignores stdin.
	startup := &row{kind: "context", note: "start-up and command tree only, no hook work", c: &candidate{
		name: "interceptor version", input: "(ignores stdin)", argv: []string{b.interceptor, "version"}, stdin: claudePre.data,
		check: func(out []byte) error {
			if !bytes.HasPrefix(out, []byte("interceptor ")) {
				return fmt.Errorf("printed %q", firstLine(string(out)))
			}
			return nil
		}}}
	rows := []*row{floorRead, floorAtomic, durable, startup}
	if b.separateHook() {
		// The hook binary's start-up alone: it prints its usage.
		rows = append(rows, &row{kind: "context", note: "start-up only, no hook work", c: &candidate{
			name: b.hookName() + " --help", input: "(ignores stdin)", argv: []string{b.hook, "--help"}, stdin: claudePre.data,
			check: func(out []byte) error {
				if !bytes.HasPrefix(out, []byte("interceptor-hook ")) {
					return fmt.Errorf("printed %q", firstLine(string(out)))
				}
				return nil
			}}})
	}
	return rows, nil
}

// cliRows are interceptor's own inject and capture (the cobra commands,
// which hooks installed before interceptor-hook run) on the Claude Code
// fixtures, beside the hook binary's rows: what the lean binary saves.
func cliRows(cfg *config, b *bins, injState string, floorRead, floorAtomic *row, claudePre, claudePost fixture) ([]*row, error) {
	dir, err := stateDir(cfg, "typical-capture-cli")
	if err != nil {
		return nil, err
	}
	note := "result carries no token: nothing stored"
	if wantToken(claudePost) != "" {
		note = "stores the token"
	}
	return []*row{
		{kind: "cli", floor: floorRead, note: "the same hook in interceptor (cobra, the whole CLI)", c: &candidate{
			name: "interceptor inject", input: claudePre.label, stdin: claudePre.data, check: injectCheck(seedTok(claudePre)),
			argv: []string{b.interceptor, "inject", "--server", "wf", "--state-dir", injState}}},
		{kind: "cli", floor: floorAtomic, note: note + "; the same hook in interceptor", c: &candidate{
			name: "interceptor capture", input: claudePost.label, stdin: claudePost.data, check: noOutput,
			argv: []string{b.interceptor, "capture", "--server", "wf", "--state-dir", dir}}},
	}, nil
}

// injectRows are inject on every pre-tool fixture, a token held for each
// fixture's session in injState; claudeInject is Claude Code's, the Node
// baseline's floor.
func injectRows(cfg *config, b *bins, fx []fixture, injState string, floorRead *row, claudePre fixture) (rows []*row, claudeInject *row, err error) {
	for _, f := range fx {
		if !f.pre {
			continue
		}
		dir := injState
		if f.skipped {
			// start_session retires its session's token (the start's
			// result brings the next one): a state dir of its own, so the
			// fixtures of the same session still find theirs. Its first run
			// writes; the measured ones find nothing to retire.
			if dir, err = stateDir(cfg, "typical-inject-start-"+strings.ReplaceAll(f.label, " ", "-")); err != nil {
				return nil, nil, err
			}
		}
		if err := seedToken(b, dir, f.session, seedTok(f)); err != nil {
			return nil, nil, err
		}
		check, note := injectCheck(seedTok(f)), ""
		switch {
		case !f.serverTool:
			// Droid's recorded pre-tool event is its ToolSearch call: not a
			// wf tool, so the right answer is no reply.
			check, note = noOutput, "not a wf tool: no reply"
		case f.skipped:
			check, note = noOutput, "start_session: no reply"
		}
		r := &row{kind: "inject", floor: floorRead, note: note, c: &candidate{
			name: b.hookName() + " inject", input: f.label, stdin: f.data, check: check,
			argv: []string{b.hook, "inject", "--server", "wf", "--state-dir", dir}}}
		if f.file == claudePre.file {
			claudeInject = r
		}
		rows = append(rows, r)
	}
	return rows, claudeInject, nil
}

// captureRows are capture on every post-tool fixture, each in a state dir
// of its own, gated by one run: the store must then hold exactly what the
// fixture carries.
func captureRows(cfg *config, b *bins, fx []fixture, floorAtomic *row) ([]*row, error) {
	var rows []*row
	for _, f := range fx {
		if f.pre {
			continue
		}
		dir, err := stateDir(cfg, "typical-capture-"+strings.TrimSuffix(f.file, ".json"))
		if err != nil {
			return nil, err
		}
		note := "result carries no token: nothing stored"
		if wantToken(f) != "" {
			note = "stores the token"
		}
		r := &row{kind: "capture", floor: floorAtomic, note: note, c: &candidate{
			name: b.hookName() + " capture", input: f.label, stdin: f.data, check: noOutput,
			argv: []string{b.hook, "capture", "--server", "wf", "--state-dir", dir}}}
		rows = append(rows, r)
		if _, _, err := runOnce(r.c); err != nil {
			return nil, err
		}
		got, err := heldToken(b, dir, f.session)
		if err != nil {
			return nil, err
		}
		if want := wantToken(f); got != want {
			return nil, fmt.Errorf("capture of %s stored %q, want %q", f.file, got, want)
		}
	}
	return rows, nil
}

// sizeRow is one payload size of the scaling table.
type sizeRow struct {
	size                  int
	inject, floorRead     *row
	capture, floorAtomic  *row
	injectLen, captureLen int
}

func benchSizes(cfg *config, b *bins, fx []fixture, rng *rand.Rand) ([]*sizeRow, error) {
	pre, err := findFixture(fx, fixtureName(claude, "PreToolUse.text.json"))
	if err != nil {
		return nil, err
	}
	post, err := findFixture(fx, fixtureName(claude, "PostToolUse.text.json"))
	if err != nil {
		return nil, err
	}
	injState, err := stateDir(cfg, "size-inject")
	if err != nil {
		return nil, err
	}
	if err := seedToken(b, injState, pre.session, seedTok(pre)); err != nil {
		return nil, err
	}
	var out []*sizeRow
	var cands []*candidate
	for _, size := range cfg.sizes {
		in, err := bigToolInput(pre, size)
		if err != nil {
			return nil, err
		}
		tok := "tok-big-" + strconv.Itoa(size) + "-0123456789abcdef" // token-shaped: long, letters and digits
		res, err := bigToolResult(post, size, tok)
		if err != nil {
			return nil, err
		}
		capDir, err := stateDir(cfg, "size-capture-"+strconv.Itoa(size))
		if err != nil {
			return nil, err
		}
		floorDir, err := stateDir(cfg, "size-floor-"+strconv.Itoa(size))
		if err != nil {
			return nil, err
		}
		l := sizeLabel(size)
		sr := &sizeRow{size: size, injectLen: len(in), captureLen: len(res)}
		sr.floorRead = &row{kind: "floor", c: &candidate{name: "floor: read stdin", input: l + " tool input", argv: []string{b.floorRead}, stdin: in, check: noOutput}}
		sr.inject = &row{kind: "inject", floor: sr.floorRead, c: &candidate{name: b.hookName() + " inject", input: l + " tool input", stdin: in,
			check: injectCheck(seedTok(pre)), argv: []string{b.hook, "inject", "--server", "wf", "--state-dir", injState}}}
		sr.floorAtomic = &row{kind: "floor", c: &candidate{name: "floor: atomic replace", input: l + " tool result", argv: []string{b.floorAtomic, floorDir}, stdin: res, check: noOutput}}
		sr.capture = &row{kind: "capture", floor: sr.floorAtomic, c: &candidate{name: b.hookName() + " capture", input: l + " tool result", stdin: res,
			check: noOutput, argv: []string{b.hook, "capture", "--server", "wf", "--state-dir", capDir}}}
		if _, _, err := runOnce(sr.capture.c); err != nil {
			return nil, err
		}
		if got, err := heldToken(b, capDir, post.session); err != nil {
			return nil, err
		} else if got != tok {
			return nil, fmt.Errorf("capture of the %s result stored %q, want %q", l, got, tok)
		}
		out = append(out, sr)
		cands = append(cands, sr.floorRead.c, sr.inject.c, sr.floorAtomic.c, sr.capture.c)
	}
	if err := measure(cands, cfg.warm, cfg.runs, cfg.rssRuns, cfg.budget, rng); err != nil {
		return nil, err
	}
	for _, sr := range out {
		for _, r := range []*row{sr.floorRead, sr.inject, sr.floorAtomic, sr.capture} {
			r.st = summarize(r.c)
		}
	}
	return out, nil
}

// initPkg is one package's line of GODEBUG=inittrace=1, as medians over runs.
type initPkg struct {
	name          string
	clockMS       float64
	bytes, allocs float64
	atMS          float64 // when it started, since process start
}

type initTrace struct {
	runs     int
	pkgs     []initPkg // interceptor inject, in init order
	floor    []initPkg // the read floor
	totalMS  float64   // sum of median clock over packages
	floorMS  float64
	lastAtMS float64 // median start of the last init: time spent before main
	floorAt  float64
}

var initLine = regexp.MustCompile(`^init (\S+) @([0-9.]+) ms, ([0-9.]+) ms clock, ([0-9]+) bytes, ([0-9]+) allocs`)

func benchInitTrace(cfg *config, b *bins, fx []fixture) (*initTrace, error) {
	pre, err := findFixture(fx, fixtureName(claude, "PreToolUse.text.json"))
	if err != nil {
		return nil, err
	}
	dir, err := stateDir(cfg, "inittrace")
	if err != nil {
		return nil, err
	}
	if err := seedToken(b, dir, pre.session, seedTok(pre)); err != nil {
		return nil, err
	}
	collect := func(argv []string) ([]initPkg, float64, float64, error) {
		type acc struct{ clock, bytes, allocs, at []float64 }
		var order []string
		per := map[string]*acc{}
		var lastAt []float64
		for i := 0; i < cfg.traceRuns; i++ {
			cmd := exec.Command(argv[0], argv[1:]...)
			cmd.Env = append(slices.Clone(baseEnv), "GODEBUG=inittrace=1")
			cmd.Stdin = bytes.NewReader(pre.data)
			var errb bytes.Buffer
			cmd.Stderr = &errb
			if err := cmd.Run(); err != nil {
				return nil, 0, 0, fmt.Errorf("%s under inittrace: %v", argv[0], err)
			}
			last := 0.0
			for _, line := range strings.Split(errb.String(), "\n") {
				m := initLine.FindStringSubmatch(line)
				if m == nil {
					continue
				}
				a := per[m[1]]
				if a == nil {
					a = &acc{}
					per[m[1]] = a
					order = append(order, m[1])
				}
				f := func(s string) float64 { v, _ := strconv.ParseFloat(s, 64); return v }
				a.at = append(a.at, f(m[2]))
				a.clock = append(a.clock, f(m[3]))
				a.bytes = append(a.bytes, f(m[4]))
				a.allocs = append(a.allocs, f(m[5]))
				last = max(last, f(m[2])+f(m[3]))
			}
			lastAt = append(lastAt, last)
		}
		var pkgs []initPkg
		total := 0.0
		for _, name := range order {
			a := per[name]
			p := initPkg{name: name, clockMS: medianF(a.clock), bytes: medianF(a.bytes), allocs: medianF(a.allocs), atMS: medianF(a.at)}
			total += p.clockMS
			pkgs = append(pkgs, p)
		}
		if len(pkgs) == 0 {
			return nil, 0, 0, fmt.Errorf("%s printed no inittrace lines", argv[0])
		}
		return pkgs, total, medianF(lastAt), nil
	}
	t := &initTrace{runs: cfg.traceRuns}
	if t.pkgs, t.totalMS, t.lastAtMS, err = collect([]string{b.hook, "inject", "--server", "wf", "--state-dir", dir}); err != nil {
		return nil, err
	}
	if t.floor, t.floorMS, t.floorAt, err = collect([]string{b.floorRead}); err != nil {
		return nil, err
	}
	return t, nil
}

func medianF(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 0 {
		return (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return s[len(s)/2]
}

// concResult is the concurrency run.
type concResult struct {
	workers           int
	elapsed           time.Duration
	captures, injects []time.Duration
	failures          map[string]int
	examples          map[string]string
	lastHeld          string
}

// lockTimeout is the one failure load alone can cause: capture waited its
// whole lock timeout, printed why, exited 0 and stored nothing. It misses
// the target but is the hook degrading as designed, so it does not fail the
// benchmark run; every other failure is a broken hook and does.
const lockTimeout = "capture gave up waiting for the store lock: token not stored"

var concToken = regexp.MustCompile(`^(` + regexp.QuoteMeta(seedTok(fixture{client: claude.Name})) + `|tok-w[0-9]{2}-i[0-9]{6}-0123456789abcdef)$`)

// benchConcurrency runs conc workers, each capturing a fresh token then
// injecting, all on one session, for concTime. Every run must exit 0 with
// nothing on stderr, and every inject must reply with a whole token one of
// the captures stored (never a torn or empty one): a token is seeded first,
// so one exists from the start.
func benchConcurrency(cfg *config, b *bins, fx []fixture) (*concResult, error) {
	pre, err := findFixture(fx, fixtureName(claude, "PreToolUse.text.json"))
	if err != nil {
		return nil, err
	}
	post, err := findFixture(fx, fixtureName(claude, "PostToolUse.structured.json"))
	if err != nil {
		return nil, err
	}
	dir, err := stateDir(cfg, "concurrency")
	if err != nil {
		return nil, err
	}
	if err := seedToken(b, dir, pre.session, seedTok(pre)); err != nil {
		return nil, err
	}
	postSame := withSession(post.data, post.session, pre.session)
	if !bytes.Contains(postSame, []byte(benchFixtureToken)) {
		return nil, fmt.Errorf("%s carries no token", post.file)
	}
	res := &concResult{workers: cfg.conc, failures: map[string]int{}, examples: map[string]string{}}
	var mu sync.Mutex
	fail := func(kind, example string) {
		mu.Lock()
		defer mu.Unlock()
		res.failures[kind]++
		if _, ok := res.examples[kind]; !ok {
			res.examples[kind] = example
		}
	}
	injectArgv := []string{b.hook, "inject", "--server", "wf", "--state-dir", dir}
	captureArgv := []string{b.hook, "capture", "--server", "wf", "--state-dir", dir}
	start := time.Now()
	deadline := start.Add(cfg.concTime)
	var wg sync.WaitGroup
	for w := 0; w < cfg.conc; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var caps, injs []time.Duration
			for i := 0; time.Now().Before(deadline); i++ {
				tok := fmt.Sprintf("tok-w%02d-i%06d-0123456789abcdef", w, i)
				c := &candidate{name: "capture", argv: captureArgv, stdin: bytes.ReplaceAll(postSame, []byte(benchFixtureToken), []byte(tok)), check: noOutput}
				if s, _, err := runOnce(c); err != nil {
					kind := "capture failed"
					if strings.Contains(err.Error(), "still held by another process") {
						kind = lockTimeout
					}
					fail(kind, err.Error())
				} else {
					caps = append(caps, s.wall)
				}
				c = &candidate{name: "inject", argv: injectArgv, stdin: pre.data}
				s, out, err := runOnce(c)
				if err != nil {
					fail("inject failed", err.Error())
					continue
				}
				injs = append(injs, s.wall)
				var reply struct {
					HookSpecificOutput struct {
						UpdatedInput struct {
							SessionToken string `json:"session_token"`
						} `json:"updatedInput"`
					} `json:"hookSpecificOutput"`
				}
				if len(bytes.TrimSpace(out)) == 0 {
					fail("inject without reply", "inject printed nothing though a token is held")
				} else if err := json.Unmarshal(out, &reply); err != nil {
					fail("inject reply not JSON", firstLine(string(out)))
				} else if t := reply.HookSpecificOutput.UpdatedInput.SessionToken; !concToken.MatchString(t) {
					fail("inject with a wrong token", fmt.Sprintf("injected %q", t))
				}
			}
			mu.Lock()
			res.captures = append(res.captures, caps...)
			res.injects = append(res.injects, injs...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	res.elapsed = time.Since(start)
	slices.Sort(res.captures)
	slices.Sort(res.injects)
	if res.lastHeld, err = heldToken(b, dir, pre.session); err != nil {
		return nil, err
	}
	if !concToken.MatchString(res.lastHeld) {
		fail("store", fmt.Sprintf("after the run the store holds %q", res.lastHeld))
	}
	return res, nil
}
