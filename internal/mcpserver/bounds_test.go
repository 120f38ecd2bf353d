package mcpserver

import (
	"bufio"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/interceptor-dev/interceptor/internal/testfiles"
)

// TestDeepMessageRefused: a line nested far deeper than any real message
// (gjson's validator recurses per level) gets a parse error reply, and the
// server goes on serving; it used to die of a stack overflow.
func TestDeepMessageRefused(t *testing.T) {
	s := start(t, &Server{Name: "x", Version: "1"})
	s.send(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":` + strings.Repeat("[", 4<<20) + strings.Repeat("]", 4<<20) + `}}`)
	if r := s.recv(); r.Get("id").Int() != 1 || r.Get("error.code").Int() != codeParse || !strings.Contains(r.Get("error.message").Str, "nested deeper than 512") {
		t.Fatalf("deep line: %s", r.Raw)
	}
	s.send(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	if r := s.recv(); r.Get("id").Int() != 2 || r.Get("result").Raw != "{}" {
		t.Fatalf("after the deep line: %s", r.Raw)
	}
}

// TestOversizedMessageRefused: a line over MaxMessage gets an error naming
// the limit, with the request's id read from the line's head (it used to be
// "not valid JSON" with id null), and the server goes on serving.
func TestOversizedMessageRefused(t *testing.T) {
	s := start(t, &Server{Name: "x", Version: "1"})
	big := `{"jsonrpc":"2.0","method":"ping","params":{"pad":"` + strings.Repeat("A", MaxMessage) + `"},"id":"big"}`
	go s.send(big) // the pipe takes it only as fast as the server reads
	if r := s.recv(); r.Get("id").Str != "big" || r.Get("error.code").Int() != codeInvalidRequest || !strings.Contains(r.Get("error.message").Str, "message over 16777216 bytes") {
		t.Fatalf("oversized line: %s", r.Raw)
	}
	s.send(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	if r := s.recv(); r.Get("id").Int() != 2 || r.Get("result").Raw != "{}" {
		t.Fatalf("after the oversized line: %s", r.Raw)
	}
	// Exactly at the limit is still read.
	pad := MaxMessage - len(`{"jsonrpc":"2.0","id":3,"method":"ping","params":{"pad":""}}`)
	s.send(`{"jsonrpc":"2.0","id":3,"method":"ping","params":{"pad":"` + strings.Repeat("A", pad) + `"}}`)
	if r := s.recv(); r.Get("id").Int() != 3 || r.Get("result").Raw != "{}" {
		t.Fatalf("a line of exactly MaxMessage bytes: %s", r.Raw)
	}
}

// TestReadLineDoesNotKeepOverlongLines: an overlong line is read through,
// not kept, so memory does not grow with it (a 1 MiB limit here, where the
// line is 64 times longer); the next line is read whole.
func TestReadLineDoesNotKeepOverlongLines(t *testing.T) {
	const size, limit = 64 << 20, 1 << 20
	in := io.MultiReader(strings.NewReader(`{"id":7,"method":"tools/call","params":"`), testfiles.Repeat('A', size), strings.NewReader("\"}\n\n  \n{\"id\":2}\r\n"))
	r := bufio.NewReaderSize(in, 64<<10)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	line, over, err := readLine(r, limit)
	runtime.ReadMemStats(&after)
	if line != nil || over == nil || err != nil || over.ID != "7" || over.Method != "tools/call" || over.Size < size {
		t.Fatalf("readLine = %.40q, %+v, %v", line, over, err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 8<<20 {
		t.Fatalf("reading a %d MiB line allocated %d MiB", size>>20, alloc>>20)
	}
	if line, over, err := readLine(r, limit); string(line) != `{"id":2}` || over != nil || err != nil {
		t.Fatalf("the next line: %q %v %v", line, over, err)
	}
	if line, over, err := readLine(r, limit); line != nil || over != nil || err != io.EOF {
		t.Fatalf("at the end: %q %v %v", line, over, err)
	}
}
