//go:build unix

package proxy

import (
	"bufio"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/interceptor-dev/interceptor/internal/proxy/proxytest"
)

// The scripted server (TestMain's "script" mode) follows a script, one
// step a line:
//
//	<           read one line from the proxy and log it (what the server saw)
//	> MESSAGE   write MESSAGE and a newline
//	>file PATH  write the contents of PATH and a newline (for huge lines)
//
// then reads stdin to its end and exits 0.
const (
	scriptEnv = "INTERCEPTOR_PROXY_TEST_SCRIPT"
	seenEnv   = "INTERCEPTOR_PROXY_TEST_SEEN"
)

func runScriptServer() int {
	script, err := os.ReadFile(os.Getenv(scriptEnv))
	if err != nil {
		return 3
	}
	seen, err := os.Create(os.Getenv(seenEnv))
	if err != nil {
		return 3
	}
	in := bufio.NewReader(os.Stdin)
	for _, step := range strings.Split(strings.TrimRight(string(script), "\n"), "\n") {
		switch {
		case step == "<":
			line, err := in.ReadBytes('\n')
			seen.Write(line)
			if err != nil {
				return 4 // the proxy closed our stdin before the script was done
			}
		case strings.HasPrefix(step, ">file "):
			data, err := os.ReadFile(strings.TrimPrefix(step, ">file "))
			if err != nil {
				return 3
			}
			os.Stdout.Write(append(data, '\n'))
		case strings.HasPrefix(step, "> "):
			os.Stdout.WriteString(strings.TrimPrefix(step, "> ") + "\n")
		default:
			return 3
		}
	}
	io.Copy(io.Discard, in)
	return 0
}

// scripted is one run of the proxy around the scripted server.
type scripted struct {
	out    []string // what the client got, a line each
	seen   []string // what the server got, a line each
	stderr string   // the proxy's log and the server's stderr
}

// runScripted runs the proxy with cfg around a server following script,
// and a client following client (the same steps as the server's, from the
// client's side: "<" waits for a line from the proxy), which then closes
// its end.
func runScripted(t *testing.T, cfg Config, script, client []string) scripted {
	t.Helper()
	dir := t.TempDir()
	scriptPath, seenPath := filepath.Join(dir, "script"), filepath.Join(dir, "seen")
	if err := os.WriteFile(scriptPath, []byte(strings.Join(script, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var stderr proxytest.SyncBuffer
	cfg.Log = &stderr
	rw := newRW(t, cfg)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	s := &Stdio{
		Command: []string{os.Args[0]},
		Env:     append(os.Environ(), childEnv+"=script", scriptEnv+"="+scriptPath, seenEnv+"="+seenPath),
		In:      inR, Out: outW, Err: &stderr,
		Grace: 5 * time.Second,
	}
	var code int
	var err error
	done := make(chan struct{})
	go func() {
		defer close(done)
		code, err = s.Run(rw)
		outW.Close()
	}()
	got := make(chan string, 1000)
	go func() {
		defer close(got)
		br := bufio.NewReader(outR)
		for {
			line, err := br.ReadString('\n')
			if line != "" {
				got <- strings.TrimSuffix(line, "\n")
			}
			if err != nil {
				return
			}
		}
	}()
	var res scripted
	timeout := time.After(30 * time.Second)
	for _, step := range client {
		switch {
		case step == "<":
			select {
			case line, ok := <-got:
				if !ok {
					t.Fatalf("the proxy ended before the client's step %d; stderr:\n%s", len(res.out), stderr.String())
				}
				res.out = append(res.out, line)
			case <-timeout:
				t.Fatalf("no line from the proxy within 30s; got %q; stderr:\n%s", res.out, stderr.String())
			}
		case strings.HasPrefix(step, ">file "):
			f, err := os.Open(strings.TrimPrefix(step, ">file "))
			if err != nil {
				t.Fatal(err)
			}
			io.Copy(inW, f)
			f.Close()
			io.WriteString(inW, "\n")
		default:
			io.WriteString(inW, step+"\n")
		}
	}
	inW.Close()
	for line := range got {
		res.out = append(res.out, line)
	}
	select {
	case <-done:
	case <-timeout:
		t.Fatal("the proxy did not finish within 30s")
	}
	if err != nil {
		t.Fatal(err)
	}
	seen, _ := os.ReadFile(seenPath)
	res.stderr = stderr.String()
	if s := strings.TrimSuffix(string(seen), "\n"); s != "" {
		res.seen = strings.Split(s, "\n")
	}
	if code != 0 {
		t.Fatalf("the scripted server exited %d (3: bad script, 4: stdin closed early); stderr:\n%s", code, res.stderr)
	}
	return res
}

// A client may spell an id 2.0 and the server answer 2: the same id
// (JSON-RPC compares values). The answer must be rewritten as the answer to
// that request: its token captured and redacted.
func TestResponseIDsMatchByValue(t *testing.T) {
	for _, ids := range [][2]string{{`2.0`, `2`}, {`2`, `2.0`}, {`1e2`, `100`}, {`-0`, `0`}, {`"a\u0062"`, `"ab"`}} {
		t.Run(ids[0]+"~"+ids[1], func(t *testing.T) {
			r := runScripted(t, testConfig(), []string{
				"<",
				`> {"jsonrpc":"2.0","id":` + ids[1] + `,"result":{"_meta":{"session_token":"` + tok1 + `"},"content":[{"type":"text","text":"started\nsession_token: ` + tok1 + `"}]}}`,
				"<",
				`> {"jsonrpc":"2.0","id":9,"result":{"content":[]}}`,
			}, []string{
				`{"jsonrpc":"2.0","id":` + ids[0] + `,"method":"tools/call","params":{"name":"start_session","arguments":{}}}`,
				"<",
				`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"next_step","arguments":{}}}`,
				"<",
			})
			if strings.Contains(strings.Join(r.out, "\n"), tok1) {
				t.Fatalf("the token reached the client:\n%s", r.out)
			}
			if len(r.seen) != 2 || !strings.Contains(r.seen[1], `"session_token":"`+tok1+`"`) {
				t.Fatalf("next_step went out without the token: %q", r.seen)
			}
		})
	}
}
