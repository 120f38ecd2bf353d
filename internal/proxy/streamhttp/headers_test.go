package streamhttp

import (
	"encoding/base64"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tidwall/gjson"
)

// meta is the _meta of a 2026-07-28 request.
const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

// The headers of a 2026-07-28 POST come from its body as the proxy sends
// it: Mcp-Name in the base64 form when the name is not header-safe, and
// Mcp-Param-* for the arguments the server's schema marks x-mcp-header,
// the token the proxy injected too (the client never had it). A tool whose
// annotations are not valid is not offered.
func TestModernHeadersFromTheBody(t *testing.T) {
	tools := `[
	 {"name":"route","inputSchema":{"type":"object","properties":{
	   "region":{"type":"string","x-mcp-header":"Region"},
	   "session_token":{"type":"string","x-mcp-header":"Session"},
	   "opts":{"type":"object","properties":{"n":{"type":"integer","x-mcp-header":"N"},"on":{"type":"boolean","x-mcp-header":"On"}}},
	   "none":{"type":"string","x-mcp-header":"None"}}}},
	 {"name":"number","inputSchema":{"type":"object","properties":{"x":{"type":"number","x-mcp-header":"X"}}}},
	 {"name":"in_items","inputSchema":{"type":"object","properties":{"l":{"type":"array","items":{"type":"string","x-mcp-header":"L"}}}}},
	 {"name":"twice","inputSchema":{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"A"},"b":{"type":"string","x-mcp-header":"a"}}}},
	 {"name":"ünï code","inputSchema":{"type":"object"}}]`
	var mu sync.Mutex
	got := map[string]http.Header{}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		id := gjson.GetBytes(body, "id")
		mu.Lock()
		got[id.String()] = r.Header.Clone()
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		switch {
		case gjson.GetBytes(body, "method").Str == "tools/list":
			io.WriteString(w, `{"jsonrpc":"2.0","id":`+id.Raw+`,"result":{"resultType":"complete","tools":`+tools+`}}`)
		case gjson.GetBytes(body, "params.name").Str == "start_session":
			io.WriteString(w, startSessionAnswer(id.Raw))
		default:
			io.WriteString(w, `{"jsonrpc":"2.0","id":`+id.Raw+`,"result":{"resultType":"complete","content":[]}}`)
		}
	}))
	defer ts.Close()
	send, stop := relayLines(t, &HTTP{URL: ts.URL})
	list := send(`{"jsonrpc":"2.0","id":"list","method":"tools/list","params":{` + meta + `}}`)
	var names []string
	list.Get("result.tools.#.name").ForEach(func(_, n gjson.Result) bool { names = append(names, n.Str); return true })
	if strings.Join(names, ",") != "route,ünï code" {
		t.Errorf("tools offered: %v (want the ones with invalid annotations left out)", names)
	}
	if list.Get(`result.tools.0.inputSchema.properties.session_token`).Exists() {
		t.Errorf("the token argument is still in the schema: %s", list.Raw)
	}
	send(`{"jsonrpc":"2.0","id":"start","method":"tools/call","params":{"name":"start_session","arguments":{},` + meta + `}}`)
	send(`{"jsonrpc":"2.0","id":"route","method":"tools/call","params":{"name":"route","arguments":{"region":" Zürich","opts":{"n":42.0,"on":false},"none":null},` + meta + `}}`)
	send(`{"jsonrpc":"2.0","id":"odd","method":"tools/call","params":{"name":"ünï code","arguments":{},` + meta + `}}`)
	send(`{"jsonrpc":"2.0","id":"res","method":"resources/read","params":{"uri":"=?base64?looks encoded?=",` + meta + `}}`)
	send(`{"jsonrpc":"2.0","id":"legacy","method":"tools/call","params":{"name":"route","arguments":{"region":"eu"}}}`)
	stop()
	b64 := func(s string) string { return "=?base64?" + base64.StdEncoding.EncodeToString([]byte(s)) + "?=" }
	mu.Lock()
	defer mu.Unlock()
	for _, c := range []struct{ id, header, want string }{
		{"list", "Mcp-Protocol-Version", "2026-07-28"},
		{"list", "Mcp-Method", "tools/list"},
		{"list", "Mcp-Name", ""},
		{"route", "Mcp-Method", "tools/call"},
		{"route", "Mcp-Name", "route"},
		{"route", "Mcp-Param-Region", b64(" Zürich")},
		{"route", "Mcp-Param-Session", token42},
		{"route", "Mcp-Param-N", "42"},
		{"route", "Mcp-Param-On", "false"},
		{"route", "Mcp-Param-None", ""},
		{"odd", "Mcp-Name", b64("ünï code")},
		{"res", "Mcp-Name", b64("=?base64?looks encoded?=")},
		{"legacy", "Mcp-Method", ""},
		{"legacy", "Mcp-Param-Region", ""},
	} {
		if g := got[c.id].Get(c.header); g != c.want {
			t.Errorf("%s: %s is %q, want %q", c.id, c.header, g, c.want)
		}
	}
}

// At 2026-07-28 a client's notifications/cancelled closes that request's
// response stream (which is how HTTP cancels), even before the server
// sent a byte of it; the notification is not POSTed, and the client gets
// nothing for the cancelled request.
func TestModernCancelClosesTheStream(t *testing.T) {
	started, cancelled := make(chan struct{}), make(chan string, 1)
	var mu sync.Mutex
	var posted []string
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		posted = append(posted, gjson.GetBytes(body, "method").Str)
		mu.Unlock()
		id := gjson.GetBytes(body, "id").Raw
		if gjson.GetBytes(body, "params.name").Str == "slow" {
			// Like the go-sdk's server: not a byte, headers included,
			// before the answer.
			close(started)
			select {
			case <-r.Context().Done():
				cancelled <- id
			case <-time.After(5 * time.Second):
			}
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"jsonrpc":"2.0","id":`+id+`,"result":{"resultType":"complete","content":[]}}`)
	}))
	defer ts.Close()
	write, read, stop := relayPipes(t, &HTTP{URL: ts.URL})
	// The slow call has no answer yet; the cancellation and the next call
	// do not wait for it, and the first line the client gets answers the
	// next call: nothing came for the cancelled one.
	write(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"slow","arguments":{},` + meta + `}}`)
	select {
	case <-started:
	case <-time.After(5 * time.Second):
		t.Fatal("the slow call did not reach the server")
	}
	write(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"user"}}`)
	write(`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"quick","arguments":{},` + meta + `}}`)
	r := read()
	if r.Get("id").Int() != 8 {
		t.Fatalf("after the cancellation the client got %s", r.Raw)
	}
	select {
	case id := <-cancelled:
		if id != "7" {
			t.Fatalf("request %s cancelled", id)
		}
	case <-time.After(3 * time.Second):
		t.Fatal("the server's stream for the cancelled request stayed open")
	}
	stop()
	mu.Lock()
	defer mu.Unlock()
	for _, m := range posted {
		if m == "notifications/cancelled" {
			t.Fatalf("the cancellation was POSTed: %v", posted)
		}
	}
}
