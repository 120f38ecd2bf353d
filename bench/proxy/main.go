// Command proxy measures what `interceptor proxy` adds to a stdio MCP
// connection (issue 7): the latency per tools/call round trip, median and
// p99, against a direct connection to the same server, and how many
// messages per second pass through.
//
//	go run ./bench/proxy              # from the module root
//	go run ./bench/proxy -n 5000 -msgs 500000
//
// The server is this program itself (-serve): a minimal token server that
// answers every tools/call at once with a new token in _meta and in a text
// line, so the numbers are the proxy's own cost, not a server's. Direct
// and proxied connections run side by side and their round trips alternate,
// so both see the same machine noise. The proxy does its real work on every
// call: it injects the held token into the request and takes the new one
// out of the result.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tidwall/gjson"
)

func main() {
	serve := flag.Bool("serve", false, "act as the minimal token server (used by the benchmark itself)")
	echo := flag.Bool("echo", false, "act as a server that echoes every line (pure relay throughput)")
	n := flag.Int("n", 3000, "measured round trips per connection")
	warmup := flag.Int("warmup", 300, "round trips discarded first")
	msgs := flag.Int("msgs", 200000, "messages for the throughput runs")
	bin := flag.String("interceptor", "", "interceptor binary (default: build ./cmd/interceptor with CGO_ENABLED=0)")
	flag.Parse()
	switch {
	case *serve:
		runServer()
		return
	case *echo:
		io.Copy(os.Stdout, os.Stdin)
		return
	}
	if err := run(*bin, *n, *warmup, *msgs); err != nil {
		fmt.Fprintln(os.Stderr, "bench/proxy:", err)
		os.Exit(1)
	}
}

// tokenPrefix starts every token the benchmark server issues: a line that
// holds it was not redacted.
const tokenPrefix = "eyJzaWQiOiJzX2JlbmNoIiwic2VxIjo"

// runServer answers tools/call with a fresh token, any other request with
// an empty result, and ignores notifications.
func runServer() {
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	out := bufio.NewWriterSize(os.Stdout, 1<<16)
	seq := 0
	for {
		line, err := in.ReadSlice('\n')
		if len(line) > 0 {
			id := gjson.GetBytes(line, "id")
			if id.Exists() {
				if gjson.GetBytes(line, "method").Str == "tools/call" {
					seq++
					tok := fmt.Sprintf(tokenPrefix+"%08d.%064d", seq, seq)
					fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"result":{"_meta":{"session_token":"%s"},"content":[{"type":"text","text":"Step accepted (seq %d).\nsession_token: %s"}]}}`+"\n", id.Raw, tok, seq, tok)
				} else {
					fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"result":{}}`+"\n", id.Raw)
				}
			}
		}
		if in.Buffered() == 0 {
			out.Flush()
		}
		if err != nil {
			out.Flush()
			return
		}
	}
}

type conn struct {
	cmd *exec.Cmd
	w   io.WriteCloser
	r   *bufio.Reader
}

func start(argv ...string) (*conn, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stderr = os.Stderr
	w, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	r, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return &conn{cmd: cmd, w: w, r: bufio.NewReaderSize(r, 1<<20)}, nil
}

func (c *conn) close() {
	c.w.Close()
	c.cmd.Wait()
}

// roundTrip sends one tools/call and reads its answer.
func (c *conn) roundTrip(id int, withToken bool) (time.Duration, string, error) {
	args := `{"step":"review","notes":"a short note of typical size for a workflow step"}`
	if withToken {
		args = `{"step":"review","notes":"a short note of typical size for a workflow step","session_token":"eyJzaWQiOiJzX2JlbmNoIiwic2VxIjo00000001.0000000000000000000000000000000000000000000000000000000000000001"}`
	}
	req := `{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"tools/call","params":{"name":"next_step","arguments":` + args + `}}` + "\n"
	t := time.Now()
	if _, err := io.WriteString(c.w, req); err != nil {
		return 0, "", err
	}
	line, err := c.r.ReadString('\n')
	d := time.Since(t)
	return d, line, err
}

func run(bin string, n, warmup, msgs int) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	if bin == "" {
		dir, err := os.MkdirTemp("", "bench-proxy")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		bin = filepath.Join(dir, "interceptor")
		build := exec.Command("go", "build", "-o", bin, "./cmd/interceptor")
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		build.Stderr = os.Stderr
		if err := build.Run(); err != nil {
			return fmt.Errorf("building interceptor (run from the module root): %w", err)
		}
	}
	if err := latency(self, bin, n, warmup); err != nil {
		return err
	}
	return throughput(self, bin, msgs)
}

// latency prints the latency of tools/call round trips, direct and
// proxied side by side, alternating.
func latency(self, bin string, n, warmup int) error {
	direct, err := start(self, "-serve")
	if err != nil {
		return err
	}
	defer direct.close()
	proxied, err := start(bin, "proxy", "--", self, "-serve")
	if err != nil {
		return err
	}
	defer proxied.close()
	// The proxy holds a token only after a first result.
	if _, _, err := proxied.roundTrip(0, false); err != nil {
		return err
	}
	var dd, pd []time.Duration
	for i := 1; i <= warmup+n; i++ {
		d1, _, err := direct.roundTrip(i, true)
		if err != nil {
			return err
		}
		d2, line, err := proxied.roundTrip(i, false)
		if err != nil {
			return err
		}
		if strings.Contains(line, tokenPrefix) || !strings.Contains(line, `"id":`+strconv.Itoa(i)+`,`) {
			return fmt.Errorf("the proxy did not redact or mixed up answers: %.200s", line)
		}
		if i > warmup {
			dd, pd = append(dd, d1), append(pd, d2)
		}
	}
	slices.Sort(dd)
	slices.Sort(pd)
	q := func(d []time.Duration, p float64) time.Duration { return d[min(len(d)-1, int(p*float64(len(d))))] }
	us := func(d time.Duration) string { return fmt.Sprintf("%.1f µs", float64(d.Nanoseconds())/1e3) }
	fmt.Printf("## interceptor proxy: added latency per tools/call round trip\n\n")
	fmt.Printf("%d round trips each after %d warm-up, direct and proxied alternating; server answers at once.\n\n", n, warmup)
	fmt.Printf("| connection | median | p90 | p99 |\n|---|---|---|---|\n")
	fmt.Printf("| direct | %s | %s | %s |\n", us(q(dd, .5)), us(q(dd, .9)), us(q(dd, .99)))
	fmt.Printf("| through the proxy | %s | %s | %s |\n", us(q(pd, .5)), us(q(pd, .9)), us(q(pd, .99)))
	fmt.Printf("| **added** | **%s** | %s | **%s** |\n\n", us(q(pd, .5)-q(dd, .5)), us(q(pd, .9)-q(dd, .9)), us(q(pd, .99)-q(dd, .99)))
	fmt.Printf("Target: under 500 µs added median.\n\n")
	return nil
}

// throughput prints messages per second, pipelined, counted in both
// directions, direct and through the proxy.
func throughput(self, bin string, msgs int) error {
	fmt.Printf("## messages per second (pipelined, both directions counted)\n\n| what | direct | through the proxy |\n|---|---|---|\n")
	for _, tc := range []struct {
		name string
		argv []string
		line func(i int) string
	}{
		{"tools/call + result (token injected, captured, redacted)", []string{self, "-serve"}, func(i int) string {
			return `{"jsonrpc":"2.0","id":` + strconv.Itoa(i) + `,"method":"tools/call","params":{"name":"next_step","arguments":{"step":"review"}}}` + "\n"
		}},
		{"notifications, echoed (pure relay)", []string{self, "-echo"}, func(i int) string {
			return `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p","progress":` + strconv.Itoa(i) + `,"message":"working on the next step"}}` + "\n"
		}},
	} {
		var rates [2]float64
		for k, argv := range [][]string{tc.argv, append([]string{bin, "proxy", "--"}, tc.argv...)} {
			rate, err := pipelined(argv, msgs, tc.line)
			if err != nil {
				return fmt.Errorf("throughput %s: %w", tc.name, err)
			}
			rates[k] = rate
		}
		fmt.Printf("| %s | %.0f | %.0f |\n", tc.name, rates[0], rates[1])
	}
	return nil
}

// pipelined writes msgs lines to a server started as argv while reading
// its answers, and returns the messages per second, both ways counted.
func pipelined(argv []string, msgs int, line func(int) string) (float64, error) {
	c, err := start(argv...)
	if err != nil {
		return 0, err
	}
	defer c.close()
	t := time.Now()
	go func() {
		bw := bufio.NewWriterSize(c.w, 1<<16)
		for i := 0; i < msgs; i++ {
			bw.WriteString(line(i))
		}
		bw.Flush()
	}()
	for i := 0; i < msgs; i++ {
		if _, err := c.r.ReadSlice('\n'); err != nil {
			return 0, fmt.Errorf("after %d: %w", i, err)
		}
	}
	return float64(2*msgs) / time.Since(t).Seconds(), nil
}
