//go:build linux

package main

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"slices"
	"syscall"
	"time"
)

// A candidate is one command line run on one input, many times.
type candidate struct {
	name  string   // row label
	input string   // what it reads, for the table
	argv  []string // the command line
	stdin []byte

	// check validates one run's stdout; nil accepts anything. Whatever the
	// check, a run must exit 0 and print nothing on stderr.
	check func(stdout []byte) error

	samples []sample
	rssKiB  []int64 // peak RSS of each run under spawn
	hwmKiB  int64   // spawn's own peak RSS: RSS figures at or below it are hidden
	inFile  string  // stdin saved for spawn
}

// sample is one finished run, as the parent sees it.
type sample struct {
	wall time.Duration // fork to reaped, stdin fed through a pipe
	cpu  time.Duration // user+sys of the child (wait4 rusage)
}

// baseEnv is the whole environment of every child: nothing leaks in from the
// caller's (no GODEBUG, no INTERCEPTOR_*).
var baseEnv []string

// runOnce runs c once and validates it.
func runOnce(c *candidate) (sample, []byte, error) {
	cmd := exec.Command(c.argv[0], c.argv[1:]...)
	cmd.Env = baseEnv
	cmd.Stdin = bytes.NewReader(c.stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if err != nil {
		return sample{}, out.Bytes(), fmt.Errorf("%s: %v; stderr: %q", c.name, err, firstLine(errb.String()))
	}
	s := sample{wall: wall}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		s.cpu = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	return s, out.Bytes(), c.validate(out.Bytes(), errb.Bytes())
}

func (c *candidate) validate(stdout, stderr []byte) error {
	if len(stderr) > 0 {
		return fmt.Errorf("%s on %s: printed on stderr: %q", c.name, c.input, firstLine(string(stderr)))
	}
	if c.check != nil {
		if err := c.check(stdout); err != nil {
			return fmt.Errorf("%s on %s: %v", c.name, c.input, err)
		}
	}
	return nil
}

// minRounds is the fewest measured rounds a budget may cut a phase to.
const minRounds = 3

// spawnBin runs a child and reports its peak RSS (see bench/spawn); inputs
// is where stdin files for it are written.
var spawnBin, inputsDir string

// rssOnce runs c once under spawn and records its peak RSS. The child reads
// its stdin from a file here, not a pipe: the same bytes, read the same way.
func rssOnce(c *candidate) error {
	if c.inFile == "" {
		f, err := os.CreateTemp(inputsDir, "in-*.json")
		if err != nil {
			return err
		}
		if _, err := f.Write(c.stdin); err != nil {
			return err
		}
		if err := f.Close(); err != nil {
			return err
		}
		c.inFile = f.Name()
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return err
	}
	defer pr.Close()
	cmd := exec.Command(spawnBin, append([]string{c.inFile}, c.argv...)...)
	cmd.Env = baseEnv
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.ExtraFiles = []*os.File{pw}
	err = cmd.Start()
	pw.Close()
	if err != nil {
		return err
	}
	rep, _ := io.ReadAll(pr)
	if err := cmd.Wait(); err != nil {
		return fmt.Errorf("%s on %s (under spawn): %v; stderr: %q", c.name, c.input, err, firstLine(errb.String()))
	}
	if err := c.validate(out.Bytes(), errb.Bytes()); err != nil {
		return err
	}
	var rss, hwm int64
	if _, err := fmt.Sscan(string(rep), &rss, &hwm); err != nil {
		return fmt.Errorf("spawn reported %q: %v", rep, err)
	}
	c.rssKiB = append(c.rssKiB, rss)
	c.hwmKiB = max(c.hwmKiB, hwm)
	return nil
}

func firstLine(s string) string {
	if i := bytes.IndexByte([]byte(s), '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

// measure runs every candidate warm+n times in rounds. Each round runs every
// candidate once, in a fresh random order, so a noisy stretch of the machine
// lands on all of them alike. The first warm rounds are dropped. Then each
// runs rssRuns more times under spawn for its peak RSS. Any failed run stops
// the measurement: that is a broken hook, not noise.
//
// With a budget (smoke mode), no new round starts once it is spent, as long
// as minRounds rounds were measured: a loaded machine then yields fewer
// runs, not a slower CI. The report prints how many runs each figure has.
func measure(cands []*candidate, warm, n, rssRuns int, budget time.Duration, rng *rand.Rand) error {
	err := inRounds(len(cands), warm, n, budget, rng, func(i int, keep bool) error {
		s, _, err := runOnce(cands[i])
		if err == nil && keep {
			cands[i].samples = append(cands[i].samples, s)
		}
		return err
	})
	if err != nil {
		return err
	}
	for r := 0; r < rssRuns; r++ {
		for _, i := range rng.Perm(len(cands)) {
			if err := rssOnce(cands[i]); err != nil {
				return err
			}
		}
	}
	return nil
}

// inRounds calls do once per item per round, in a new random order each
// round, for warm+n rounds; keep is false in the warm rounds. With a budget,
// no round starts once it is spent and minRounds were measured.
func inRounds(items, warm, n int, budget time.Duration, rng *rand.Rand, do func(i int, keep bool) error) error {
	start := time.Now()
	for r := 0; r < warm+n; r++ {
		if budget > 0 && r >= warm+minRounds && time.Since(start) > budget {
			break
		}
		for _, i := range rng.Perm(items) {
			if err := do(i, r >= warm); err != nil {
				return err
			}
		}
	}
	return nil
}

// stats summarizes a candidate's samples.
type stats struct {
	median, p90, min time.Duration
	cpu              time.Duration // median
	rssKiB           int64         // max over runs
	rssMedKiB        int64
	hwmKiB           int64 // spawn's own peak: rssKiB at or below it is an upper bound
	n                int
}

func summarize(c *candidate) stats {
	ss := c.samples
	if len(ss) == 0 {
		return stats{}
	}
	walls := make([]time.Duration, len(ss))
	cpus := make([]time.Duration, len(ss))
	for i, s := range ss {
		walls[i], cpus[i] = s.wall, s.cpu
	}
	rss := slices.Sorted(slices.Values(c.rssKiB))
	slices.Sort(walls)
	slices.Sort(cpus)
	st := stats{
		hwmKiB: c.hwmKiB,
		median: quantile(walls, 0.5),
		p90:    quantile(walls, 0.9),
		min:    walls[0],
		cpu:    quantile(cpus, 0.5),
		n:      len(ss),
	}
	if len(rss) > 0 { // none when measured without rssRuns
		st.rssKiB, st.rssMedKiB = rss[len(rss)-1], quantile(rss, 0.5)
	}
	return st
}

// quantile of sorted xs, nearest rank.
func quantile[T int64 | time.Duration](xs []T, q float64) T {
	if len(xs) == 0 {
		return 0
	}
	i := int(q*float64(len(xs))+0.5) - 1
	if q == 0.5 && len(xs)%2 == 0 {
		return (xs[len(xs)/2-1] + xs[len(xs)/2]) / 2
	}
	return xs[max(0, min(i, len(xs)-1))]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f", float64(d)/1e6) }

func mib(kib int64) string { return fmt.Sprintf("%.1f", float64(kib)/1024) }

func ratio(a, b time.Duration) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}
