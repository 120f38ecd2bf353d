package mcpserver

import (
	"strings"
	"testing"
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
