package hooks_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/interceptor-dev/interceptor/internal/hooks"
)

// The adapters' cost per event, for benchstat: go test -run '^$' -bench . -count 10
// Whole-process figures (start-up, I/O) are in bench/, `go run ./bench`.

type benchFixture struct {
	name string // e.g. claude-code-pre-text
	pre  bool
	data []byte
}

func loadBenchFixtures(b *testing.B) []benchFixture {
	b.Helper()
	paths, err := filepath.Glob(filepath.Join("..", "..", "testdata", "fixtures", "*.json"))
	if err != nil || len(paths) == 0 {
		b.Fatalf("no fixtures: %v", err)
	}
	var fx []benchFixture
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		// claude-code.PreToolUse.text.json -> claude-code-pre-text
		parts := strings.Split(strings.TrimSuffix(filepath.Base(p), ".json"), ".")
		event := strings.Join(parts[1:len(parts)-1], ".")
		pre := event == "PreToolUse" || event == "BeforeTool" || event == "tool.execute.before"
		phase := "post"
		if pre {
			phase = "pre"
		}
		fx = append(fx, benchFixture{name: parts[0] + "-" + phase + "-" + parts[len(parts)-1], pre: pre, data: data})
	}
	return fx
}

func BenchmarkParse(b *testing.B) {
	for _, f := range loadBenchFixtures(b) {
		b.Run(f.name, func(b *testing.B) {
			b.SetBytes(int64(len(f.data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := hooks.Parse(f.data, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// benchArgs is the event's tool input with a token set, as inject builds it.
func benchArgs(b *testing.B, ev *hooks.Event) []byte {
	raw := bytes.TrimSpace([]byte(ev.Input.Raw))
	if len(raw) < 2 || raw[0] != '{' {
		b.Fatalf("tool input is not an object: %q", raw)
	}
	return append([]byte(`{"session_token":"tok-0123456789abcdef0123456789abcdef",`), raw[1:]...)
}

func BenchmarkInputReply(b *testing.B) {
	for _, f := range loadBenchFixtures(b) {
		if !f.pre {
			continue
		}
		ev, err := hooks.Parse(f.data, nil)
		if err != nil {
			b.Fatal(err)
		}
		args := benchArgs(b, ev)
		b.Run(f.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ev.Client.InputReply(ev, args); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkPreTool is the adapter's whole share of one inject: parse, match
// the server, render the reply.
func BenchmarkPreTool(b *testing.B) {
	for _, f := range loadBenchFixtures(b) {
		if !f.pre {
			continue
		}
		ev0, err := hooks.Parse(f.data, nil)
		if err != nil {
			b.Fatal(err)
		}
		args := benchArgs(b, ev0)
		b.Run(f.name, func(b *testing.B) {
			b.SetBytes(int64(len(f.data)))
			b.ReportAllocs()
			for b.Loop() {
				ev, err := hooks.Parse(f.data, nil)
				if err != nil {
					b.Fatal(err)
				}
				if _, ok := ev.Client.Tool(ev, "wf"); !ok {
					b.Fatal("not a tool of wf")
				}
				if _, err := ev.Client.InputReply(ev, args); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// benchPad inserts a JSON string field of filler right after anchor so the
// payload is size bytes.
func benchPad(b *testing.B, data []byte, anchor, head, tail string, size int) []byte {
	i := bytes.Index(data, []byte(anchor))
	if i < 0 {
		b.Fatalf("no %s in payload", anchor)
	}
	i += len(anchor)
	n := size - len(data) - len(head) - len(tail)
	var pad bytes.Buffer
	for j := 0; pad.Len() < n; j++ {
		fmt.Fprintf(&pad, `line %06d: func handle(w http.ResponseWriter, r *http.Request) { /* quick brown fox */ }\n`, j)
	}
	fill := bytes.TrimSuffix(pad.Bytes()[:max(n, 0)], []byte(`\`))
	return bytes.Join([][]byte{data[:i], []byte(head), fill, []byte(tail), data[i:]}, nil)
}

// BenchmarkParseSize shows how parsing grows with the payload: a big tool
// input (pre) and a big tool result (post), Claude Code's shapes.
func BenchmarkParseSize(b *testing.B) {
	pre, err := os.ReadFile(filepath.Join("..", "..", "testdata", "fixtures", "claude-code.PreToolUse.text.json"))
	if err != nil {
		b.Fatal(err)
	}
	post, err := os.ReadFile(filepath.Join("..", "..", "testdata", "fixtures", "claude-code.PostToolUse.text.json"))
	if err != nil {
		b.Fatal(err)
	}
	for _, size := range []int{1 << 10, 64 << 10, 1 << 20, 4 << 20} {
		label := fmt.Sprintf("%dKiB", size>>10)
		if size >= 1<<20 {
			label = fmt.Sprintf("%dMiB", size>>20)
		}
		for _, c := range []struct {
			name string
			data []byte
		}{
			{"input-" + label, benchPad(b, pre, `"tool_input": {`, `"content": "`, `", `, size)},
			{"result-" + label, benchPad(b, post, `"tool_response": [`, `{"type": "text", "text": "`, `\nsession_token: tok-big\n"}, `, size)},
		} {
			b.Run(c.name, func(b *testing.B) {
				b.SetBytes(int64(len(c.data)))
				b.ReportAllocs()
				for b.Loop() {
					if _, err := hooks.Parse(c.data, nil); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
