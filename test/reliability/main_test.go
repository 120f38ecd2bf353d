// Package reliability holds the reliability and security evidence for the
// interceptor binary: crash consistency under SIGKILL, lock contention between
// many processes, session isolation, hostile state dirs and hostile hook
// payloads, and a scan for the token in everything the binary prints or
// logs. Every test drives the real binary, built once by TestMain with
// CGO_ENABLED=0.
//
// The default run (plain `go test ./...`) takes well under two minutes on two
// cores. RELIABILITY_LONG=1 runs thousands of iterations; RESULTS.md holds
// the figures of both.
package reliability

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/interceptor-dev/interceptor/internal/hookrun"
)

var (
	bin      string // the interceptor binary under test
	hookBin  string // interceptor-hook: what install writes into the hooks
	repoRoot string
	long     = os.Getenv("RELIABILITY_LONG") == "1"
)

func TestMain(m *testing.M) {
	if helperMain() {
		return
	}
	os.Exit(buildAndRun(m))
}

func buildAndRun(m *testing.M) int {
	var err error
	if repoRoot, err = findRepoRoot(); err != nil {
		fmt.Fprintln(os.Stderr, "reliability:", err)
		return 1
	}
	dir, err := os.MkdirTemp("", "interceptor-reliability-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "reliability:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	// Readable and executable by anyone: one test runs the binary as an
	// unprivileged uid.
	if err := os.Chmod(dir, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, "reliability:", err)
		return 1
	}
	bin, hookBin = filepath.Join(dir, "interceptor"), filepath.Join(dir, "interceptor-hook")
	cmd := exec.Command("go", "build", "-o", dir, "./cmd/interceptor", "./cmd/interceptor-hook")
	cmd.Dir = repoRoot
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "reliability: building the binaries: %v\n%s", err, out)
		return 1
	}
	return m.Run()
}

func findRepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the test dir")
		}
		dir = parent
	}
}

// result is one run of the binary.
type result struct {
	args   []string
	stdout string
	stderr string
	code   int  // exit code; -1 when killed by a signal
	killed bool // ended by a signal
	took   time.Duration
}

func (r result) String() string {
	return fmt.Sprintf("interceptor %s: exit %d after %v\nstdout: %.300q\nstderr: %.300q",
		strings.Join(shortArgs(r.args), " "), r.code, r.took.Round(time.Millisecond), r.stdout, r.stderr)
}

func shortArgs(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		if len(a) > 60 {
			a = a[:60] + "…"
		}
		out[i] = a
	}
	return out
}

// runOpts tweak how the binary runs.
type runOpts struct {
	env     []string            // added to a clean environment
	cred    *syscall.Credential // run as this user
	timeout time.Duration       // default 10 s
	prefix  []string            // a wrapper command, e.g. prlimit
	started func(p *os.Process) // called once the process runs
}

// run runs the binary with stdin and returns what it did. The environment is
// the test's own minus every INTERCEPTOR_ variable, so nothing from the
// machine leaks into a run.
func run(t testing.TB, stdin []byte, o runOpts, args ...string) result {
	t.Helper()
	r, err := runErr(stdin, o, args...)
	if err != nil {
		t.Fatalf("running interceptor %v: %v", shortArgs(args), err)
	}
	return r
}

// binFor is the binary that runs args: a hook command runs in
// interceptor-hook, as the hooks install writes run it (the same hook
// harness as interceptor's, in a binary that starts faster); every other
// command in interceptor.
func binFor(args []string) string {
	if len(args) > 0 && slices.Contains(hookrun.Commands, args[0]) {
		return hookBin
	}
	return bin
}

func runErr(stdin []byte, o runOpts, args ...string) (result, error) {
	if o.timeout == 0 {
		o.timeout = 10 * time.Second
	}
	ctx, cancel := context.WithTimeout(context.Background(), o.timeout)
	defer cancel()
	argv := append(append([]string{}, o.prefix...), binFor(args))
	argv = append(argv, args...)
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	// On a hang, SIGQUIT first: the Go runtime then prints every goroutine's
	// stack on stderr, which the error shows.
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGQUIT) }
	cmd.WaitDelay = 3 * time.Second
	cmd.Env = cleanEnv(o.env)
	cmd.Stdin = bytes.NewReader(stdin)
	// Output goes to files, not pipes. A pipe's write end is also held by
	// every child the test forks meanwhile, until that child execs (tests
	// start many at once), so its end of file may come well after the
	// run exits: on an overloaded machine a run that exited 0 failed with
	// "WaitDelay expired before I/O complete". A file needs no end of file.
	out, err := outputFile()
	if err != nil {
		return result{}, err
	}
	defer out.Close()
	errb, err := outputFile()
	if err != nil {
		return result{}, err
	}
	defer errb.Close()
	cmd.Stdout, cmd.Stderr = out, errb
	if o.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: o.cred}
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return result{}, err
	}
	if o.started != nil {
		o.started(cmd.Process)
	}
	err = cmd.Wait()
	r := result{args: args, stdout: readAll(out), stderr: readAll(errb), took: time.Since(start)}
	if ctx.Err() != nil {
		return r, fmt.Errorf("still running after %v (hung); stderr after SIGQUIT:\n%s", o.timeout, r.stderr)
	}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			r.killed, r.code = true, -1
		}
	default:
		return r, err
	}
	return r, nil
}

// outputFile is an unnamed file for a run's output: created and removed
// at once, so nothing is left behind.
func outputFile() (*os.File, error) {
	f, err := os.CreateTemp("", "interceptor-rel-out-")
	if err != nil {
		return nil, err
	}
	os.Remove(f.Name())
	return f, nil
}

// readAll reads what a run wrote to f.
func readAll(f *os.File) string {
	b, _ := io.ReadAll(io.NewSectionReader(f, 0, 1<<30))
	return string(b)
}

func cleanEnv(extra []string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "INTERCEPTOR_") {
			env = append(env, kv)
		}
	}
	return append(env, extra...)
}

// lines counts stderr lines: a last line without a newline still counts.
func lines(s string) int {
	if s == "" {
		return 0
	}
	n := strings.Count(s, "\n")
	if !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}

// hookOK checks the hook contract on a run that must change nothing visible
// to the client: exit 0, no stdout, and wantLines stderr lines.
func hookOK(t testing.TB, r result, wantLines int, mention ...string) {
	t.Helper()
	if r.code != 0 {
		t.Errorf("exit %d; a hook always exits 0\n%s", r.code, r)
	}
	if r.stdout != "" {
		t.Errorf("stdout is not empty\n%s", r)
	}
	if n := lines(r.stderr); n != wantLines {
		t.Errorf("%d stderr lines; want %d\n%s", n, wantLines, r)
	}
	for _, m := range mention {
		if !strings.Contains(r.stderr, m) {
			t.Errorf("stderr does not mention %q\n%s", m, r)
		}
	}
	noPanic(t, r)
}

func noPanic(t testing.TB, r result) {
	t.Helper()
	for _, bad := range []string{"panic", "goroutine ", "internal error", "runtime error"} {
		if strings.Contains(r.stderr, bad) {
			t.Errorf("stderr shows a crash (%q)\n%s", bad, r)
		}
	}
}

// mkToken makes a long, distinctive token shaped like the reference server's
// (base64url payload "." hex MAC), about 400 bytes, printable ASCII.
func mkToken(tag string) string {
	sum := sha256.Sum256([]byte(tag))
	payload := base64.RawURLEncoding.EncodeToString(bytes.Repeat(append([]byte(tag+"|"), sum[:]...), 6))
	mac := sha256.Sum256([]byte(payload))
	t := "rt." + payload + "." + hex.EncodeToString(mac[:])
	return t
}

// privateDir is a fresh 0700 temp dir; fast puts it on tmpfs (/dev/shm)
// when there is one, for tests about logic rather than the disk.
func privateDir(t testing.TB, fast bool) string {
	t.Helper()
	if fast {
		if fi, err := os.Stat("/dev/shm"); err == nil && fi.IsDir() {
			if d, err := os.MkdirTemp("/dev/shm", "interceptor-rel-"); err == nil {
				t.Cleanup(func() { os.RemoveAll(d) })
				return d
			}
		}
	}
	return t.TempDir()
}

// tree maps every path under root (relative) to a description of what is
// there: "dir", "link:<target>", the content of a regular file, or the mode
// of anything else.
func tree(root string) map[string]string {
	out := map[string]string{}
	filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			l, _ := os.Readlink(path)
			out[rel] = "link:" + l
		case d.IsDir():
			out[rel] = "dir"
		case d.Type().IsRegular():
			b, _ := os.ReadFile(path)
			out[rel] = string(b)
		default:
			fi, _ := d.Info()
			out[rel] = "special:" + fi.Mode().String()
		}
		return nil
	})
	return out
}

// diffTrees lists what changed between two trees.
func diffTrees(a, b map[string]string) []string {
	var d []string
	for k, v := range a {
		if w, ok := b[k]; !ok {
			d = append(d, "removed "+k)
		} else if v != w {
			d = append(d, "changed "+k)
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			d = append(d, "added "+k)
		}
	}
	return d
}

func pick[T any](def, longer T) T {
	if long {
		return longer
	}
	return def
}
