//go:build unix

package proxy

import (
	"bytes"
	"fmt"
	"github.com/interceptor-dev/interceptor/internal/proxy/proxytest"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// childEnv makes the test binary act as a fake server (see TestMain).
const childEnv = "INTERCEPTOR_PROXY_TEST_CHILD"

func TestMain(m *testing.M) {
	switch os.Getenv(childEnv) {
	case "":
		code := m.Run()
		// The token server is built once, outside any test's TempDir.
		if tokenServerDir != "" {
			os.RemoveAll(tokenServerDir)
		}
		os.Exit(code)
	case "echo":
		// Echo every byte back, say something on stderr, exit with a code
		// of its own when stdin ends.
		fmt.Fprint(os.Stderr, "fake server: \x1b[1mstarting\x1b[0m\n")
		io.Copy(os.Stdout, os.Stdin)
		fmt.Fprint(os.Stderr, "fake server: stdin closed\n")
		os.Exit(7)
	case "stubborn":
		// Ignore stdin's end and SIGTERM: only a kill stops it. Ready is
		// said once SIGTERM is ignored (a loaded machine can take longer
		// than the test's grace periods to get here).
		signal.Ignore(syscall.SIGTERM)
		fmt.Println(`{"jsonrpc":"2.0","method":"ready"}`)
		io.Copy(io.Discard, os.Stdin)
		time.Sleep(time.Hour)
	case "script":
		os.Exit(runScriptServer())
	case "sdk", "sdk-2026":
		// A go-sdk server (proxytest.ModernServer), every revision or only
		// 2026-07-28.
		os.Exit(proxytest.ServeModernStdio(os.Getenv(childEnv) == "sdk-2026"))
	case "sigterm":
		// Exit 42 on SIGTERM.
		c := make(chan os.Signal, 1)
		signal.Notify(c, syscall.SIGTERM)
		fmt.Println(`{"jsonrpc":"2.0","method":"ready"}`)
		<-c
		os.Exit(42)
	}
	os.Exit(3)
}

// startStdio runs a proxy around a fake server mode of this test binary.
type proxyRun struct {
	in     *io.PipeWriter // to the proxy, as the client
	stderr *os.File
	done   chan struct{}
	code   int
	err    error
	sigs   chan os.Signal
}

func startStdio(t *testing.T, rw *Rewriter, mode string, grace time.Duration, out io.Writer) *proxyRun {
	t.Helper()
	inR, inW := io.Pipe()
	stderr, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stderr.Close() })
	p := &proxyRun{in: inW, stderr: stderr, done: make(chan struct{}), sigs: make(chan os.Signal, 1)}
	s := &Stdio{
		Command: []string{os.Args[0]},
		Env:     append(os.Environ(), childEnv+"="+mode),
		In:      inR, Out: out, Err: stderr,
		Signals: p.sigs, Grace: grace,
	}
	go func() {
		defer close(p.done)
		p.code, p.err = s.Run(rw)
		inR.Close()
	}()
	return p
}

func (p *proxyRun) wait(t *testing.T, within time.Duration) {
	t.Helper()
	select {
	case <-p.done:
	case <-time.After(within):
		t.Fatalf("the proxy did not stop within %s", within)
	}
	if p.err != nil {
		t.Fatal(p.err)
	}
}

func TestStdioPassesEverythingThrough(t *testing.T) {
	rw := holding(t, tok1)
	var out bytes.Buffer
	p := startStdio(t, rw, "echo", 5*time.Second, &out)
	// The fake server echoes: what the client gets must be exactly what it
	// sent (nothing here is a response to a tracked request; requests the
	// server echoes back carry a method, so they are not responses).
	big := `{"jsonrpc":"2.0","id":"big","method":"resources/read","params":{"blob":"` + strings.Repeat("A\\u00e9 ", 400_000) + `"}}`
	msgs := []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`[{"jsonrpc":"2.0","id":3,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p","progress":1}}]`,
		`{"jsonrpc":"2.0","id":4,"result":{"model":"m","role":"assistant","content":{"type":"text","text":"sampled"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3,"reason":"user"}}`,
		`{ "jsonrpc" : "2.0" , "id" : 5 , "method" : "tools/call" , "params" : { "name" : "start_session" } }`,
		big,
		"{\"jsonrpc\":\"2.0\",\"method\":\"crlf\"}\r",
		``,
		`not json`,
	}
	var sent strings.Builder
	for _, m := range msgs {
		sent.WriteString(m + "\n")
	}
	sent.WriteString(`{"jsonrpc":"2.0","method":"no newline at the end"}`)
	go func() {
		io.WriteString(p.in, sent.String())
		p.in.Close()
	}()
	p.wait(t, 10*time.Second)
	if got := out.String(); got != sent.String() {
		i := 0
		for i < len(got) && i < len(sent.String()) && got[i] == sent.String()[i] {
			i++
		}
		t.Fatalf("relay is not byte for byte: %d bytes sent, %d got, first difference at %d: %.80q", sent.Len(), len(got), i, got[i:])
	}
	if p.code != 7 {
		t.Fatalf("exit code %d, want the server's 7", p.code)
	}
	stderr, _ := os.ReadFile(p.stderr.Name())
	if string(stderr) != "fake server: \x1b[1mstarting\x1b[0m\nfake server: stdin closed\n" {
		t.Fatalf("server stderr: %q", stderr)
	}
}

func TestStdioKillsAStubbornServer(t *testing.T) {
	r, w := io.Pipe()
	p := startStdio(t, newRW(t, testConfig()), "stubborn", 150*time.Millisecond, w)
	line := make([]byte, 64)
	if n, err := r.Read(line); err != nil || !strings.Contains(string(line[:n]), "ready") {
		t.Fatalf("server not ready: %q %v", line[:n], err)
	}
	go io.Copy(io.Discard, r)
	start := time.Now()
	p.in.Close() // client EOF
	p.wait(t, 5*time.Second)
	if p.code != 128+int(syscall.SIGKILL) {
		t.Fatalf("exit code %d, want %d (killed)", p.code, 128+int(syscall.SIGKILL))
	}
	if d := time.Since(start); d < 300*time.Millisecond {
		t.Fatalf("killed after %s, before two grace periods", d)
	}
}

func TestStdioForwardsSignals(t *testing.T) {
	r, w := io.Pipe()
	p := startStdio(t, newRW(t, testConfig()), "sigterm", 5*time.Second, w)
	line := make([]byte, 64)
	if n, err := r.Read(line); err != nil || !strings.Contains(string(line[:n]), "ready") {
		t.Fatalf("server not ready: %q %v", line[:n], err)
	}
	go io.Copy(io.Discard, r)
	p.sigs <- syscall.SIGTERM
	p.wait(t, 5*time.Second)
	if p.code != 42 {
		t.Fatalf("exit code %d, want 42 (the server's answer to SIGTERM)", p.code)
	}
}

func TestStdioClientGoneStopsServer(t *testing.T) {
	r, w := io.Pipe()
	p := startStdio(t, newRW(t, testConfig()), "echo", 5*time.Second, w)
	r.Close() // the client stops reading: writes to it fail
	io.WriteString(p.in, "{\"jsonrpc\":\"2.0\",\"method\":\"x\"}\n")
	p.wait(t, 5*time.Second)
	if p.code != 7 {
		t.Fatalf("exit code %d, want 7 (the server saw stdin close)", p.code)
	}
}

func TestStdioMissingCommand(t *testing.T) {
	s := &Stdio{Command: []string{filepath.Join(t.TempDir(), "nope")}, In: strings.NewReader(""), Out: io.Discard, Err: io.Discard}
	code, err := s.Run(newRW(t, testConfig()))
	if err == nil || code != 127 {
		t.Fatalf("code %d err %v", code, err)
	}
}

// tokenServerDir is the dir tokenServer made ("": none yet), which
// TestMain removes.
var tokenServerDir string

// tokenServer builds the end-to-end test token server once.
var tokenServer = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "proxy-tokenserver")
	if err != nil {
		return "", err
	}
	tokenServerDir = dir
	bin := filepath.Join(dir, "tokenserver")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/interceptor-dev/interceptor/e2e/tokenserver").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("building the token server: %v\n%s", err, out)
	}
	return bin, nil
})

func TestStdioTokenServer(t *testing.T) {
	bin, err := tokenServer()
	if err != nil {
		t.Fatal(err)
	}
	for _, structured := range []bool{false, true} {
		t.Run(fmt.Sprintf("structured=%t", structured), func(t *testing.T) {
			logPath := filepath.Join(t.TempDir(), "calls.jsonl")
			args := []string{bin, "--log", logPath}
			if structured {
				args = append(args, "--structured")
			}
			var stderr bytes.Buffer
			done := make(chan int, 1)
			cs := proxytest.SDKClient(t, func(in io.Reader, out io.Writer) {
				s := &Stdio{Command: args, In: in, Out: out, Err: &stderr}
				code, err := s.Run(newRW(t, testConfig()))
				if err != nil {
					t.Error(err)
				}
				done <- code
			})
			seen := proxytest.CheckWorkflow(t, cs)
			cs.Close()
			select {
			case code := <-done:
				if code != 0 {
					t.Fatalf("exit code %d, stderr %s", code, stderr.String())
				}
			case <-time.After(10 * time.Second):
				t.Fatal("the proxy did not stop after the client closed")
			}
			proxytest.CheckServerLog(t, proxytest.ReadServerLog(t, logPath), seen)
		})
	}
}
