package proxy

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/interceptor-dev/interceptor/internal/carry"
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
	rw = newRW(t, Config{Options: carry.Options{Arg: "session_token", MetaKey: "session_token"}, Human: h})
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

// The client gets a reference in place of the server's requestState, and
// the server gets its own bytes back on the retry, whatever escapes the
// client respells the reference with; a requestState the proxy did not
// hand out goes on as the client sent it.
func TestRequestStateRoundTrip(t *testing.T) {
	rw := holding(t, tok1)
	state := `v1<` + tok1 + `>\u0026sig`
	rw.fromClient([]byte(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"confirm","arguments":{},` + modernMeta + `}}`))
	shown := rw.fromServer([]byte(`{"jsonrpc":"2.0","id":5,"result":{"resultType":"input_required","inputRequests":{},"requestState":"` + state + `"}}`))
	got := gjson.GetBytes(shown, "result.requestState").Str
	if !strings.HasPrefix(got, requestStateRef) || strings.Contains(got, "v1") || strings.Contains(got, "sig") {
		t.Fatalf("the client was shown requestState %q, want a reference holding none of the server's", got)
	}
	// The client echoes the value, escaped its own way.
	echoed := strings.Replace(got, "i", `\u0069`, 1)
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

// TestEncodedTokenInRequestState: a server that binds the token into its
// requestState encoded (standard or URL-safe base64, padded or not, at any
// of the three alignments inside a longer blob; hex) showed it to the
// client, which redaction of the token's own spellings does not see. No
// spelling of the state reaches the client, and the server gets its bytes
// back. Without a held value the state is replaced all the same.
func TestEncodedTokenInRequestState(t *testing.T) {
	encodings := map[string]func([]byte) string{
		"std":       base64.StdEncoding.EncodeToString,
		"url":       base64.URLEncoding.EncodeToString,
		"std nopad": base64.RawStdEncoding.EncodeToString,
		"url nopad": base64.RawURLEncoding.EncodeToString,
		"hex":       hex.EncodeToString,
		"hex upper": func(b []byte) string { return strings.ToUpper(hex.EncodeToString(b)) },
	}
	for name, enc := range encodings {
		for align := range 3 {
			for _, rw := range []*Rewriter{holding(t, tok1), newRW(t, testConfig())} {
				blob := []byte(`{"v":1,"pad":"` + strings.Repeat("x", align) + `","token":"` + tok1 + `","at":1763800000}`)
				state := enc(blob)
				id := fmt.Sprint(10 + align)
				rw.fromClient([]byte(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"confirm","arguments":{},` + modernMeta + `}}`))
				shown := rw.fromServer([]byte(`{"jsonrpc":"2.0","id":` + id + `,"result":{"resultType":"input_required","inputRequests":{},"requestState":"` + state + `"}}`))
				got := gjson.GetBytes(shown, "result.requestState").Str
				for _, part := range []string{state, state[8:40], enc([]byte(tok1))[4:24]} {
					if strings.Contains(string(shown), part) {
						t.Errorf("%s, alignment %d: the client got a part of the state (%q): %s", name, align, part, shown)
					}
				}
				retry := rw.fromClient([]byte(`{"jsonrpc":"2.0","id":99,"method":"tools/call","params":{"name":"confirm","arguments":{},"requestState":"` + got + `",` + modernMeta + `}}`))
				if rs := gjson.GetBytes(retry, "params.requestState").Str; rs != state {
					t.Errorf("%s, alignment %d: the server got %q back, want its own %q", name, align, rs, state)
				}
			}
		}
	}
}

// TestForgottenRequestState: a retry naming a reference the proxy no longer
// holds (evicted, or handed out by an earlier proxy process) is answered
// with an error the client reads; the server never gets the reference.
func TestForgottenRequestState(t *testing.T) {
	rw := holding(t, tok1)
	ref := requestStateRef + "00112233445566778899aabbccddeeff"
	for _, c := range []struct{ method, params, want string }{
		{"tools/call", `"name":"confirm","arguments":{}`, "result.isError"},
		{"prompts/get", `"name":"p"`, "error.message"},
	} {
		out := rw.FromClient([]byte(`{"jsonrpc":"2.0","id":3,"method":"` + c.method + `","params":{` + c.params + `,"requestState":"` + ref + `",` + modernMeta + `}}`))
		if !out.Drop || !gjson.GetBytes(out.Back, c.want).Exists() || !strings.Contains(string(out.Back), "no longer held by the proxy") {
			t.Errorf("%s with a forgotten requestState: drop %t, back %s", c.method, out.Drop, out.Back)
		}
	}
}

// requestStates stays bounded: the oldest are forgotten first, and the
// newest is kept whatever its size (its retry must work).
func TestRequestStatesBounded(t *testing.T) {
	var s requestStates
	var refs []string
	for range 3 * maxRequestStates {
		refs = append(refs, s.mint(`"o"`))
	}
	if len(s.orig) != maxRequestStates || len(s.order) != maxRequestStates {
		t.Fatalf("%d states kept", len(s.orig))
	}
	if _, ok := s.lookup(refs[0]); ok {
		t.Fatal("the oldest was kept")
	}
	if refs[1] == refs[2] {
		t.Fatal("two references are the same")
	}
	big := `"` + strings.Repeat("b", maxRequestStateBytes/2) + `"`
	s.mint(big)
	last := s.mint(big)
	if s.size > maxRequestStateBytes {
		t.Fatalf("%d bytes kept", s.size)
	}
	if _, ok := s.lookup(last); !ok {
		t.Fatal("the newest was forgotten")
	}
	huge := s.mint(`"` + strings.Repeat("h", maxRequestStateBytes) + `"`)
	if _, ok := s.lookup(huge); !ok || len(s.orig) != 1 {
		t.Fatalf("a state over the bound: kept %t, %d states", ok, len(s.orig))
	}
}
