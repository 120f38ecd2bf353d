package proxy

import (
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"
)

const modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

// The proxy's own results (a refused call, a human tool's answer) carry
// resultType when the request is of 2026-07-28, which requires it of every
// result; a legacy request gets them as before.
func TestOwnResultsCarryResultType(t *testing.T) {
	rw := holding(t, tok1)
	unknown := `"session_token":"[session_token deadbeef held by interceptor]"`
	out := rw.FromClient([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"next_step","arguments":{` + unknown + `},` + modernMeta + `}}`))
	if !out.Drop || gjson.GetBytes(out.Back, "result.resultType").Str != "complete" || !gjson.GetBytes(out.Back, "result.isError").Bool() {
		t.Errorf("a refused 2026-07-28 call: %s", out.Back)
	}
	out = rw.FromClient([]byte(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"next_step","arguments":{` + unknown + `}}}`))
	if !out.Drop || gjson.GetBytes(out.Back, "result.resultType").Exists() || !gjson.GetBytes(out.Back, "result.isError").Bool() {
		t.Errorf("a refused legacy call: %s", out.Back)
	}

	h := fakeHuman{release: make(chan struct{})}
	close(h.release)
	rw = newRW(t, Config{Arg: "session_token", MetaKey: "session_token", Human: h})
	later := make(chan string, 2)
	rw.SetLater(func(b []byte) { later <- string(b) })
	rw.FromClient([]byte(`{"jsonrpc":"2.0","id":"m","method":"tools/call","params":{"name":"ask_user","arguments":{},` + modernMeta + `}}`))
	rw.FromClient([]byte(`{"jsonrpc":"2.0","id":"l","method":"tools/call","params":{"name":"ask_user","arguments":{}}}`))
	for range 2 {
		select {
		case got := <-later:
			rt := gjson.Get(got, "result.resultType")
			if id := gjson.Get(got, "id").Str; (id == "m") != (rt.Str == "complete") || (id == "l") == rt.Exists() {
				t.Errorf("human tool answer to %s: %s", id, got)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("no answer")
		}
	}
}

// A requestState the client was shown with stand-ins goes back to the
// server as the server wrote it, whatever escapes the client respells it
// with; one the proxy did not hand out goes on as the client sent it.
func TestRequestStateRoundTrip(t *testing.T) {
	rw := holding(t, tok1)
	state := `v1<` + tok1 + `>\u0026sig`
	rw.fromClient([]byte(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"confirm","arguments":{},` + modernMeta + `}}`))
	shown := rw.fromServer([]byte(`{"jsonrpc":"2.0","id":5,"result":{"resultType":"input_required","inputRequests":{},"requestState":"` + state + `"}}`))
	got := gjson.GetBytes(shown, "result.requestState").Str
	if strings.Contains(got, tok1) || !strings.Contains(got, stand(tok1)) {
		t.Fatalf("the client was shown requestState %q", got)
	}
	// The client echoes the value, escaped its own way.
	echoed := strings.NewReplacer("<", `\u003c`, ">", `\u003e`, "&", `\u0026`).Replace(got)
	retry := rw.fromClient([]byte(`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"confirm","arguments":{},"inputResponses":{},"requestState":"` + echoed + `",` + modernMeta + `}}`))
	if rs := gjson.GetBytes(retry, "params.requestState").Raw; rs != `"`+state+`"` {
		t.Fatalf("the server got requestState %s, want the bytes it wrote, %q", rs, `"`+state+`"`)
	}
	if gjson.GetBytes(retry, "params.arguments.session_token").Str != tok1 {
		t.Fatalf("the retry has no token: %s", retry)
	}
	other := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"confirm","arguments":{"session_token":"x"},"requestState":"made up",` + modernMeta + `}}`
	if got := rw.fromClient([]byte(other)); string(got) != other {
		t.Fatalf("a requestState the proxy never handed out was changed: %s", got)
	}
}

// requestStates stays bounded: the oldest are forgotten first.
func TestRequestStatesBounded(t *testing.T) {
	var s requestStates
	for i := range 3 * maxRequestStates {
		s.remember(strings.Repeat("s", i+1), `"o"`)
	}
	if len(s.orig) != maxRequestStates || len(s.order) != maxRequestStates {
		t.Fatalf("%d states kept", len(s.orig))
	}
	if _, ok := s.lookup("s"); ok {
		t.Fatal("the oldest was kept")
	}
	big := strings.Repeat("b", maxRequestStateBytes/2)
	s.remember(big+"1", `"o"`)
	s.remember(big+"2", `"o"`)
	if s.size > maxRequestStateBytes {
		t.Fatalf("%d bytes kept", s.size)
	}
	if _, ok := s.lookup(big + "2"); !ok {
		t.Fatal("the newest was forgotten")
	}
}
