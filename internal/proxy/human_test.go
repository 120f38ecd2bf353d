package proxy

import (
	"strings"
	"testing"
	"time"

	"github.com/interceptor-dev/interceptor/internal/carry"
	"github.com/tidwall/gjson"
)

// fakeHuman answers every call with the arguments it got, after release.
type fakeHuman struct{ release chan struct{} }

func (fakeHuman) Tools() ([]string, error) {
	return []string{`{"name":"ask_user","description":"Ask","inputSchema":{"type":"object"}}`}, nil
}
func (fakeHuman) Has(name string) bool { return name == "ask_user" }
func (h fakeHuman) Call(name, args string) (string, bool) {
	<-h.release
	return "answer to " + args, false
}

func TestHumanToolsInTheProxy(t *testing.T) {
	h := fakeHuman{release: make(chan struct{})}
	rw, err := New(Config{Options: carry.Options{Arg: "session_token", MetaKey: "session_token"}, Human: h})
	if err != nil {
		t.Fatal(err)
	}
	later := make(chan string, 1)
	rw.SetLater(func(b []byte) { later <- string(b) })

	// tools/list: the server's tools, then the human ones.
	if out := rw.FromClient([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)); out.Drop {
		t.Fatal("tools/list not relayed")
	}
	out := rw.FromServer([]byte(`{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"next_step","inputSchema":{"type":"object"}}]}}`))
	names := gjson.GetBytes(out.Msg, "result.tools.#.name").String()
	if names != `["next_step","ask_user"]` || !gjson.ValidBytes(out.Msg) {
		t.Fatalf("tools/list result: %s", out.Msg)
	}
	// A server tool of the same name wins.
	rw.FromClient([]byte(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`))
	out = rw.FromServer([]byte(`{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"ask_user"}]}}`))
	if n := gjson.GetBytes(out.Msg, "result.tools.#").Int(); n != 1 {
		t.Fatalf("a human tool shadowed the server's: %s", out.Msg)
	}

	// A human tool's call never reaches the server; its answer comes later,
	// while other messages keep flowing.
	call := rw.FromClient([]byte(`{"jsonrpc":"2.0","id":"c1","method":"tools/call","params":{"name":"ask_user","arguments":{"q":"which?"}}}`))
	if !call.Drop || len(call.Back) != 0 {
		t.Fatalf("human call relayed or answered at once: %+v", call)
	}
	if out := rw.FromClient([]byte(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"next_step","arguments":{}}}`)); out.Drop {
		t.Fatal("a server tool's call was not relayed while a human call waits")
	}
	close(h.release)
	select {
	case got := <-later:
		if !strings.HasSuffix(got, "\n") || gjson.Get(got, "id").Str != "c1" ||
			gjson.Get(got, "result.content.0.text").Str != `answer to {"q":"which?"}` || gjson.Get(got, "result.isError").Exists() {
			t.Fatalf("answer: %q", got)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no answer")
	}
}
