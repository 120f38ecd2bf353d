package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"testing"
	"testing/iotest"

	"github.com/interceptor-dev/interceptor/internal/rawjson"
	"github.com/tidwall/gjson"
)

// FuzzReadLine: readLine's lines are the input's non-blank lines, in order,
// trimmed; a line over max bytes (without its newline) is read through and
// only its head is returned, the head one Write of the whole line gives.
// A 16-byte buffer and one-byte reads make the buffer-full paths run on
// small inputs.
func FuzzReadLine(f *testing.F) {
	f.Add([]byte("{\"id\":1,\"method\":\"ping\"}\n\n  \r\n{\"id\":2}\r\n"), uint8(64), false)
	f.Add([]byte("{\"method\":\"tools/call\",\"params\":\"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\",\"id\":\"x\"}\n ok \n"), uint8(20), true)
	f.Add([]byte("last line without ending"), uint8(30), false)
	f.Add([]byte("{\"id\":0\n"), uint8(4), true) // the newline ends the id
	f.Add([]byte("[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]\r"), uint8(8), true)
	f.Fuzz(func(t *testing.T, in []byte, max uint8, oneByte bool) {
		limit := int(max) + 1
		// Each non-blank line, trimmed, or when over max whole, with its
		// newline (which ends a scalar value for the head).
		var want [][]byte
		for rest := in; len(rest) > 0; {
			l := rest
			if i := bytes.IndexByte(rest, '\n'); i >= 0 {
				l = rest[:i+1]
			}
			rest = rest[len(l):]
			if len(bytes.TrimSuffix(l, []byte("\n"))) > limit {
				want = append(want, l)
			} else if l = trimSpace(l); len(l) > 0 {
				want = append(want, l)
			}
		}
		var r io.Reader = bytes.NewReader(in)
		if oneByte {
			r = iotest.OneByteReader(r)
		}
		br := bufio.NewReaderSize(r, 16)
		for i := 0; ; i++ {
			line, over, err := readLine(br, limit)
			if err != nil && !errors.Is(err, io.EOF) {
				t.Fatalf("readLine: %v", err)
			}
			if len(line) == 0 && over == nil {
				if err == nil || i != len(want) {
					t.Fatalf("result %d: nothing, %v; want %d lines of %q", i, err, len(want), in)
				}
				return
			}
			if i >= len(want) {
				t.Fatalf("result %d (%q, %v) past the %d lines of %q", i, line, over, len(want), in)
			}
			w := want[i]
			switch {
			case over != nil && line != nil:
				t.Fatalf("both a line and a head")
			case over == nil && (!bytes.Equal(line, w) || len(line) > limit):
				t.Fatalf("line %d = %q, want %q (max %d)", i, line, w, limit)
			case over != nil:
				var whole rawjson.Head
				whole.Write(w)
				if len(bytes.TrimSuffix(w, []byte("\n"))) <= limit || over.ID != whole.ID || over.Method != whole.Method || over.Object != whole.Object || over.Depth != whole.Depth {
					t.Fatalf("line %d %q (max %d): head %+v, want one of a line over max like %+v", i, w, limit, *over, whole)
				}
			}
			if err != nil {
				if i != len(want)-1 {
					t.Fatalf("io.EOF after %d of %d lines", i+1, len(want))
				}
				return
			}
		}
	})
}

// FuzzServe: whatever arrives, the server answers in whole JSON-RPC lines,
// exactly one reply for each request (a line that is an object with a
// method and a string or number id; a method that is no string is an
// invalid request), with that id, and no reply with any other id but null;
// it never dies.
func FuzzServe(f *testing.F) {
	f.Add("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\"}}\n" +
		"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n{\"jsonrpc\":\"2.0\",\"id\":\"l\",\"method\":\"tools/list\"}\n" +
		"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"v\":\"\\u001b]0;x\\u0007\"}}}\n")
	f.Add("{\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":[1]}}\n{\"id\":1.0,\"method\":\"nope\"}\n{\"id\":true,\"method\":\"ping\"}\n[{\"id\":4,\"method\":\"ping\"}]\nnot json\n")
	f.Add("{\"id\":5,\"method\":\"tools/call\",\"params\":{\"name\":\"panic\"}}\n{\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":5}}\n{\"id\":5,\"result\":{}}\n")
	f.Add("{\"id\":6,\"method\":\"ping\",\"params\":" + string(bytes.Repeat([]byte("["), 600)) + string(bytes.Repeat([]byte("]"), 600)) + "}\n{\"id\":7,\"method\":7}\n{\"id\":{\"x\":1},\"method\":null}\n{\"id\":\"a\",\"id\":\"b\",\"method\":\"ping\"}")
	modern := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	f.Add("{\"id\":8,\"method\":\"server/discover\",\"params\":{" + modern + "}}\n{\"id\":9,\"method\":\"subscriptions/listen\",\"params\":{" + modern + "}}\n" +
		"{\"id\":10,\"method\":\"tools/list\",\"params\":{\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"1900-01-01\"}}}\n{\"id\":11,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\"," + modern + "}}\n")
	f.Fuzz(func(t *testing.T, in string) {
		s := &Server{Name: "fuzz", Version: "0", Tools: []Tool{
			{Name: "echo", Call: func(_ context.Context, a gjson.Result) (Result, error) { return Result{Text: a.Raw}, nil }},
			{Name: "panic", Call: func(context.Context, gjson.Result) (Result, error) { panic("boom") }},
		}}
		var out bytes.Buffer
		if err := s.Serve(context.Background(), iotest.HalfReader(bytes.NewReader([]byte(in))), &out); err != nil {
			t.Fatalf("Serve: %v", err)
		}
		want := map[string]int{} // id -> requests
		for _, l := range bytes.Split([]byte(in), []byte("\n")) {
			l = trimSpace(l)
			if len(l) == 0 {
				continue
			}
			var id, method gjson.Result
			if rawjson.DepthExceeds(l, rawjson.MaxDepth) {
				var h rawjson.Head // too deep for gjson: answered from its head
				h.Write(l)
				if h.Object && h.HasMethod && h.ID != "" {
					want[h.ID]++
				}
				continue
			}
			if m := gjson.ParseBytes(l); gjson.ValidBytes(l) && m.IsObject() {
				id, method = m.Get("id"), m.Get("method")
			}
			if method.Exists() && (id.Type == gjson.String || id.Type == gjson.Number) {
				want[id.Raw]++
			}
		}
		got := map[string]int{}
		for _, l := range bytes.Split(bytes.TrimSuffix(out.Bytes(), []byte("\n")), []byte("\n")) {
			if len(l) == 0 && out.Len() == 0 {
				break
			}
			m := gjson.ParseBytes(l)
			if m.Get("method").Str == "notifications/subscriptions/acknowledged" && !m.Get("id").Exists() && gjson.ValidBytes(l) {
				continue // subscriptions/listen's, before its reply
			}
			if !gjson.ValidBytes(l) || m.Get("jsonrpc").Str != "2.0" || !m.Get("id").Exists() || m.Get("result").Exists() == m.Get("error").Exists() {
				t.Fatalf("reply %q to %q", l, in)
			}
			if id := m.Get("id"); id.Type != gjson.Null {
				got[id.Raw]++
			}
		}
		for id, n := range want {
			if got[id] != n {
				t.Fatalf("%d replies with id %s, want %d; in %q, out %q", got[id], id, n, in, out.Bytes())
			}
		}
		for id, n := range got {
			if want[id] == 0 {
				t.Fatalf("%d replies with id %s, which no request has; in %q, out %q", n, id, in, out.Bytes())
			}
		}
	})
}
