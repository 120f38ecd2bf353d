//go:build linux

// Command bench measures what the interceptor hook costs an agent: whole
// processes, built as releases are built, side by side with the floors any
// Go hook pays (bench/floors) and with a Node.js hook doing the same inject
// (bench/node/inject.js). It prints a markdown report.
//
//	go run ./bench            # full run, a few minutes
//	go run ./bench -smoke     # CI: well under a minute
//
// It exits non-zero only when something is broken (a hook failed, printed on
// stderr, or printed no reply where one was due), never because a figure
// missed its target: the report says so instead. See bench/README.md.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

type config struct {
	smoke      bool
	runs, warm int
	sizes      []int
	conc       int
	concTime   time.Duration
	traceRuns  int
	rssRuns    int
	budget     time.Duration // per measured phase; 0 is none
	fixtures   string
	workDir    string
	keep       bool
	node       string
	out        string
	seed       uint64
	phases     map[string]bool
	binary     string // a prebuilt interceptor to measure instead of building one
}

func main() {
	if len(os.Args) == 3 && os.Args[1] == "-serve-big" {
		n, err := strconv.Atoi(os.Args[2])
		if err != nil {
			os.Exit(2)
		}
		serveBig(n) // the server the store phase's proxy relays to
		return
	}
	if len(os.Args) >= 2 && (os.Args[1] == "-relay-child" || os.Args[1] == "-idle-floor") {
		relayChild(os.Args[2:]) // the relay phase's idle processes
		return
	}
	cfg, err := parseFlags(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(2)
	}
	if err := run(cfg); err != nil {
		fmt.Fprintln(os.Stderr, "bench: FAILED:", err)
		os.Exit(1)
	}
}

func parseFlags(args []string) (*config, error) {
	cfg := &config{}
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.BoolVar(&cfg.smoke, "smoke", false, "short run for CI: fewer runs, 1 KiB and 1 MiB only, 2 s of concurrency")
	fs.IntVar(&cfg.runs, "runs", 0, "measured runs of each command (default 150, smoke 10)")
	fs.IntVar(&cfg.warm, "warmup", 0, "warm-up runs of each command, not counted (default 10, smoke 3)")
	sizes := fs.String("sizes", "", "payload sizes of the scaling table (default 1K,16K,256K,1M,4M; smoke 1K,1M)")
	fs.IntVar(&cfg.conc, "conc", 64, "concurrent capture+inject processes")
	fs.DurationVar(&cfg.concTime, "conc-time", 0, "how long the concurrency run lasts (default 10s, smoke 2s)")
	fs.IntVar(&cfg.rssRuns, "rss-runs", 0, "runs of each command under bench/spawn for its peak RSS (default 10, smoke 2)")
	fs.IntVar(&cfg.traceRuns, "trace-runs", 0, "runs under GODEBUG=inittrace=1 (default 30, smoke 5)")
	fs.StringVar(&cfg.fixtures, "fixtures", "", "client payload fixtures (default testdata/fixtures of the module)")
	fs.StringVar(&cfg.workDir, "dir", "", "where binaries and state dirs go (default a new temp dir; its file system matters for capture)")
	fs.BoolVar(&cfg.keep, "keep", false, "keep the work dir")
	fs.StringVar(&cfg.node, "node", "node", "the Node.js binary for the baseline; \"\" skips it")
	fs.StringVar(&cfg.out, "o", "", "also write the report to this file")
	fs.Uint64Var(&cfg.seed, "seed", 0, "seed of the run order (default from the clock)")
	fs.DurationVar(&cfg.budget, "budget", 0, "stop starting rounds of a phase after this long, once 3 are measured (default none, smoke 6s)")
	phases := fs.String("phases", "typical,sizes,trace,conc,scale,store,relay", "which parts to run")
	fs.StringVar(&cfg.binary, "interceptor", "", "measure this interceptor binary instead of building one (an older build, for before and after figures)")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	def := func(v *int, full, smoke int) {
		if *v == 0 {
			*v = full
			if cfg.smoke {
				*v = smoke
			}
		}
	}
	def(&cfg.runs, 150, 10)
	def(&cfg.warm, 10, 1)
	def(&cfg.traceRuns, 30, 5)
	def(&cfg.rssRuns, 10, 1)
	if cfg.smoke && cfg.budget == 0 {
		cfg.budget = 6 * time.Second
	}
	if cfg.concTime == 0 {
		cfg.concTime = 10 * time.Second
		if cfg.smoke {
			cfg.concTime = 2 * time.Second
		}
	}
	if *sizes == "" {
		*sizes = "1K,16K,256K,1M,4M"
		if cfg.smoke {
			*sizes = "1K,1M"
		}
	}
	for _, s := range strings.Split(*sizes, ",") {
		n, err := parseSize(s)
		if err != nil {
			return nil, err
		}
		cfg.sizes = append(cfg.sizes, n)
	}
	cfg.phases = map[string]bool{}
	for _, p := range strings.Split(*phases, ",") {
		switch p = strings.TrimSpace(p); p {
		case "typical", "sizes", "trace", "conc", "scale", "store", "relay":
			cfg.phases[p] = true
		default:
			return nil, fmt.Errorf("unknown phase %q (want typical, sizes, trace, conc, scale, store, relay)", p)
		}
	}
	if cfg.seed == 0 {
		cfg.seed = uint64(time.Now().UnixNano())
	}
	return cfg, nil
}

// bins are the programs under test, built as releases are built.
type bins struct {
	interceptor, floorRead, floorAtomic, floorWake, spawn string
	// hook is the binary install writes into the hooks: interceptor-hook
	// when it sits beside interceptor (a release, this tree), else
	// interceptor itself (an older -interceptor build). The hook rows,
	// the targets, sizes, init trace and concurrency measure it.
	hook                          string
	goVersion                     string
	node, nodeVersion, nodeScript string
}

// hookName is the hook binary's name, as the rows name it.
func (b *bins) hookName() string { return filepath.Base(b.hook) }

// separateHook says the hooks run a binary of their own, which the
// typical table then compares with interceptor's own hook commands.
func (b *bins) separateHook() bool { return b.hook != b.interceptor }

func run(cfg *config) error {
	began := time.Now()
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	if cfg.fixtures == "" {
		cfg.fixtures = filepath.Join(root, "testdata", "fixtures")
	}
	if cfg.workDir == "" {
		if cfg.workDir, err = os.MkdirTemp("", "interceptor-bench-"); err != nil {
			return err
		}
		if !cfg.keep {
			defer os.RemoveAll(cfg.workDir)
		}
	} else if err := os.MkdirAll(cfg.workDir, 0o700); err != nil {
		return err
	}
	baseEnv = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + cfg.workDir, "LANG=C"}

	progress("building (CGO_ENABLED=0 -trimpath -ldflags='-s -w') into %s", cfg.workDir)
	b, err := build(root, cfg)
	if err != nil {
		return err
	}
	spawnBin, inputsDir = b.spawn, filepath.Join(cfg.workDir, "inputs")
	if err := os.MkdirAll(inputsDir, 0o700); err != nil {
		return err
	}
	fx, err := loadFixtures(cfg.fixtures)
	if err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(cfg.seed, 0x1badcafe))
	rep := &report{cfg: cfg, bins: b, machine: describeMachine(cfg.workDir)}

	if cfg.phases["typical"] {
		progress("typical events: %d warm-up + %d runs of each command, interleaved", cfg.warm, cfg.runs)
		if rep.typical, err = benchTypical(cfg, b, fx, rng); err != nil {
			return err
		}
	}
	if cfg.phases["sizes"] {
		progress("payload sizes %v: %d warm-up + %d runs each", cfg.sizes, cfg.warm, cfg.runs)
		if rep.sizes, err = benchSizes(cfg, b, fx, rng); err != nil {
			return err
		}
	}
	if cfg.phases["trace"] {
		progress("init trace: %d runs under GODEBUG=inittrace=1", cfg.traceRuns)
		if rep.trace, err = benchInitTrace(cfg, b, fx); err != nil {
			return err
		}
	}
	if cfg.phases["conc"] {
		progress("concurrency: %d workers, capture then inject, for %s", cfg.conc, cfg.concTime)
		if rep.conc, err = benchConcurrency(cfg, b, fx); err != nil {
			return err
		}
	}
	if cfg.phases["scale"] {
		progress("scale: seeding token sessions, decided approvals and chats")
		if rep.scale, err = benchScale(cfg, b, fx, rng); err != nil {
			return err
		}
	}
	if cfg.phases["store"] {
		progress("store: %d captures of distinct sessions at once, gc beside captures, --redact on 1 MiB, proxy RSS", cfg.conc)
		if rep.store, err = benchStore(cfg, b); err != nil {
			return err
		}
	}
	if cfg.phases["relay"] {
		if rep.relay, err = benchRelay(cfg); err != nil {
			return fmt.Errorf("relay: %w", err)
		}
	}
	rep.elapsed = time.Since(began)
	rep.machine.loadEnd = loadAvg()
	progress("done")

	var buf bytes.Buffer
	rep.write(&buf)
	os.Stdout.Write(buf.Bytes())
	if cfg.out != "" {
		if err := os.WriteFile(cfg.out, buf.Bytes(), 0o644); err != nil {
			return err
		}
	}
	if n := rep.brokenRuns(); n > 0 {
		return fmt.Errorf("%d hook runs failed under concurrency (see the report)", n)
	}
	return nil
}

var started = time.Now()

func progress(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "bench: [%5.1fs] "+format+"\n", append([]any{time.Since(started).Seconds()}, args...)...)
}

func moduleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %v", err)
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == os.DevNull {
		return "", fmt.Errorf("run from inside the interceptor module")
	}
	return filepath.Dir(mod), nil
}

func build(root string, cfg *config) (*bins, error) {
	b := &bins{
		interceptor: filepath.Join(cfg.workDir, "bin", "interceptor"),
		floorRead:   filepath.Join(cfg.workDir, "bin", "floor-read"),
		floorAtomic: filepath.Join(cfg.workDir, "bin", "floor-atomic"),
		floorWake:   filepath.Join(cfg.workDir, "bin", "floor-wake"),
		spawn:       filepath.Join(cfg.workDir, "bin", "spawn"),
	}
	b.hook = filepath.Join(cfg.workDir, "bin", "interceptor-hook")
	pkgs := map[string]string{
		"./cmd/interceptor":      b.interceptor,
		"./cmd/interceptor-hook": b.hook,
		"./bench/floors/read":    b.floorRead,
		"./bench/floors/atomic":  b.floorAtomic,
		"./bench/floors/wake":    b.floorWake,
		"./bench/spawn":          b.spawn,
	}
	if cfg.binary != "" {
		abs, err := filepath.Abs(cfg.binary)
		if err != nil {
			return nil, err
		}
		b.interceptor = abs
		delete(pkgs, "./cmd/interceptor")
		delete(pkgs, "./cmd/interceptor-hook")
		// As install does: the hook binary beside it, else itself.
		b.hook = filepath.Join(filepath.Dir(abs), "interceptor-hook")
		if fi, err := os.Stat(b.hook); err != nil || fi.IsDir() {
			b.hook = abs
		}
	}
	for pkg, out := range pkgs {
		cmd := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", out, pkg)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if msg, err := cmd.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("go build %s: %v\n%s", pkg, err, msg)
		}
	}
	v, err := exec.Command("go", "version").Output()
	if err != nil {
		return nil, err
	}
	b.goVersion = strings.TrimSpace(string(v))
	if cfg.node != "" {
		if p, err := exec.LookPath(cfg.node); err == nil {
			if v, err := exec.Command(p, "--version").Output(); err == nil {
				b.node, b.nodeVersion = p, strings.TrimSpace(string(v))
				b.nodeScript = filepath.Join(root, "bench", "node", "inject.js")
			}
		}
		if b.node == "" {
			progress("no %s found: the Node.js baseline is skipped", cfg.node)
		}
	}
	return b, nil
}

// stateDir makes a fresh private state dir under the work dir.
func stateDir(cfg *config, name string) (string, error) {
	d := filepath.Join(cfg.workDir, "state", name)
	if err := os.MkdirAll(d, 0o700); err != nil {
		return "", err
	}
	// MkdirAll leaves existing parents as they were; interceptor refuses a
	// state dir open to others, so make the chain private.
	for p := d; p != cfg.workDir && p != filepath.Dir(p); p = filepath.Dir(p) {
		if err := os.Chmod(p, 0o700); err != nil {
			return "", err
		}
	}
	return d, nil
}

// seedToken stores tok for server wf and session with the CLI itself.
func seedToken(b *bins, dir, session, tok string) error {
	c := &candidate{name: "token set", argv: []string{b.interceptor, "token", "set", "--state-dir", dir, "--server", "wf", "--session", session, tok}}
	cmd := exec.Command(c.argv[0], c.argv[1:]...)
	cmd.Env = baseEnv
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("interceptor token set: %v: %s", err, out)
	}
	return nil
}

// heldToken reads the token held for session with the CLI itself; "" when none.
func heldToken(b *bins, dir, session string) (string, error) {
	cmd := exec.Command(b.interceptor, "token", "show", "--state-dir", dir, "--server", "wf", "--session", session, "--reveal")
	cmd.Env = baseEnv
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		if strings.Contains(errb.String(), "no token held") {
			return "", nil
		}
		return "", fmt.Errorf("interceptor token show: %v: %s", err, errb.String())
	}
	for _, line := range strings.Split(out.String(), "\n") {
		if v, ok := strings.CutPrefix(line, "session_token:"); ok {
			return strings.TrimSpace(v), nil
		}
	}
	return "", fmt.Errorf("interceptor token show printed no token line: %q", out.String())
}
