//go:build unix

package proxy

import (
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/interceptor-dev/interceptor/internal/testfiles"
	"github.com/tidwall/gjson"
)

// writeFile writes a message (a huge line) for a script's >file step.
func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// checkBounds runs a session in which each side sends messages the proxy
// must not relay (wrap makes them so): a client request, a server response
// to a tools/call, a server notification and a server request. Requests
// get an error reply, the response is replaced by an error, the
// notification is dropped, one stderr line each, and the session goes on.
func checkBounds(t *testing.T, cfg Config, wrap func(string) string) {
	t.Helper()
	clientReq := writeFile(t, "client-req", `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"next_step","arguments":{"a":`+wrap(`"x"`)+`}}}`)
	serverResp := writeFile(t, "server-resp", `{"jsonrpc":"2.0","id":6,"result":{"content":[{"type":"text","text":"ok"}],"_meta":{"session_token":"`+tok1+`","x":`+wrap(`"y"`)+`}}}`)
	serverNote := writeFile(t, "server-note", `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":`+wrap(`"z"`)+`}}`)
	serverReq := writeFile(t, "server-req", `{"jsonrpc":"2.0","id":"s1","method":"sampling/createMessage","params":{"messages":`+wrap(`"w"`)+`}}`)
	r := runScripted(t, cfg, []string{
		"<",
		">file " + serverResp,
		">file " + serverNote,
		">file " + serverReq,
		"<",
		`> {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"still here"}}`,
	}, []string{
		">file " + clientReq,
		"<",
		`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"start_session","arguments":{}}}`,
		"<",
		"<",
	})
	if len(r.out) != 3 {
		t.Fatalf("the client got %d lines, want 3: %.300q", len(r.out), r.out)
	}
	for i, want := range []struct{ id, path, contains string }{
		{`5`, "error.message", "not relayed to the server"},
		{`6`, "error.message", "the server's response was not relayed"},
		{``, "params.data", "still here"},
	} {
		m := gjson.Parse(r.out[i])
		if m.Get("id").Raw != want.id || !strings.Contains(m.Get(want.path).Str, want.contains) {
			t.Errorf("client line %d: %.300s; want id %s and %q in %s", i+1, r.out[i], want.id, want.contains, want.path)
		}
	}
	if len(r.seen) != 2 || !strings.Contains(r.seen[0], `"id":6`) || gjson.Get(r.seen[1], "id").Str != "s1" || !gjson.Get(r.seen[1], "error.message").Exists() {
		t.Errorf("the server got %.300q; want the start_session call and an error reply to s1", r.seen)
	}
	if n := strings.Count(r.stderr, "interceptor proxy: "); n != 4 || strings.Count(r.stderr, "\n") != 4 {
		t.Errorf("stderr has %d proxy lines, want one per message refused (4):\n%.2000s", n, r.stderr)
	}
}

func TestDeepMessagesAreRefused(t *testing.T) {
	// 8 million levels: gjson's validator recursed through them and the
	// process died of a stack overflow (issue 12.9).
	const depth = 8_000_000
	checkBounds(t, testConfig(), func(v string) string {
		return strings.Repeat("[", depth) + v + strings.Repeat("]", depth)
	})
}

func TestOversizedMessagesAreRefused(t *testing.T) {
	cfg := testConfig()
	cfg.MaxMessage = 1 << 20
	checkBounds(t, cfg, func(v string) string {
		return `[` + v + `,"` + strings.Repeat("A", 3<<20) + `"]`
	})
}

// An overlong line is read through, not kept: memory does not grow with it.
func TestLineReaderDoesNotKeepOverlongLines(t *testing.T) {
	const size = 64 << 20
	line := io.MultiReader(strings.NewReader(`{"id":"big","method":"m","params":"`), testfiles.Repeat('A', size), strings.NewReader("\"}\n{\"id\":2}\n"))
	lr := newLineReader(line, 1<<20)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	msg, over, err := lr.next()
	runtime.ReadMemStats(&after)
	if msg != nil || over == nil || err != nil || over.ID != `"big"` || over.Method != "m" || over.Size < size {
		t.Fatalf("next = %.40q, %+v, %v", msg, over, err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 8<<20 {
		t.Fatalf("reading a %d MiB line allocated %d MiB", size>>20, alloc>>20)
	}
	if msg, over, err := lr.next(); string(msg) != "{\"id\":2}\n" || over != nil || err != nil {
		t.Fatalf("the next line: %q %v %v", msg, over, err)
	}
}
