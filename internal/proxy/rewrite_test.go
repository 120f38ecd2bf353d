package proxy

import (
	"bytes"
	"fmt"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/interceptor-dev/interceptor/internal/carry"
	"github.com/interceptor-dev/interceptor/internal/rawjson"
	"github.com/interceptor-dev/interceptor/internal/state"
	"github.com/interceptor-dev/interceptor/internal/token"
	"github.com/tidwall/gjson"
)

const (
	tok1 = "tok1.eyJzaWQiOiJzXzEiLCJzZXEiOjF9.0123456789abcdef"
	tok2 = "tok2.eyJzaWQiOiJzXzEiLCJzZXEiOjJ9.fedcba9876543210"
)

func testConfig() Config {
	return Config{
		Server:  "wf",
		Options: carry.Options{Arg: "session_token", MetaKey: "session_token", SkipTools: []string{"start_session"}},
	}
}

func newRW(t testing.TB, cfg Config) *Rewriter {
	t.Helper()
	rw, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return rw
}

// holding returns a rewriter that holds tok, captured the way it is in
// real use: from a tools/call result.
func holding(t testing.TB, tok string) *Rewriter {
	t.Helper()
	rw := newRW(t, testConfig())
	rw.fromClient([]byte(`{"jsonrpc":"2.0","id":"boot","method":"tools/call","params":{"name":"start_session","arguments":{}}}`))
	rw.fromServer([]byte(`{"jsonrpc":"2.0","id":"boot","result":{"content":[],"_meta":{"session_token":"` + tok + `"}}}`))
	if got := rw.Token(); got != tok {
		t.Fatalf("setup: holds %q, want %q", got, tok)
	}
	return rw
}

func same(a, b []byte) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

func TestToolsListRemovesTheArgument(t *testing.T) {
	rw := newRW(t, testConfig())
	req := []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{}}`)
	if out := rw.fromClient(req); !same(out, req) {
		t.Fatalf("tools/list request changed: %s", out)
	}
	resp := `{"jsonrpc":"2.0", "id":7, "result":{"tools":[` +
		`{"name":"next_step", "inputSchema":{"type":"object","properties":{"step":{"type":"string"},"session_token":{"type":"string"}},"required":["step","session_token"]}},` +
		`{"name":"start_session","inputSchema":{"type":"object","properties":{"session_token":{"type":"string"}},"required":["session_token"]}},` +
		`{"name":"report","inputSchema":{"type":"object","properties":{"session_token":{"type":"string"}},"required":["session_token"]},"outputSchema":{"type":"object","properties":{"session_token":{"type":"string"},"ok":{"type":"boolean"}},"required":["ok","session_token"]}},` +
		`{"name":"plain","inputSchema":{"type":"object"}}` +
		`], "nextCursor":"c1"}}`
	want := `{"jsonrpc":"2.0", "id":7, "result":{"tools":[` +
		`{"name":"next_step", "inputSchema":{"type":"object","properties":{"step":{"type":"string"}},"required":["step"]}},` +
		`{"name":"start_session","inputSchema":{"type":"object","properties":{"session_token":{"type":"string"}},"required":["session_token"]}},` +
		`{"name":"report","inputSchema":{"type":"object","properties":{},"required":[]},"outputSchema":{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}},` +
		`{"name":"plain","inputSchema":{"type":"object"}}` +
		`], "nextCursor":"c1"}}`
	if got := string(rw.fromServer([]byte(resp))); got != want {
		t.Fatalf("tools/list result:\n got %s\nwant %s", got, want)
	}
	// The response is consumed: the same id later is not rewritten again.
	if out := rw.fromServer([]byte(resp)); string(out) != resp {
		t.Fatalf("an untracked response was rewritten: %s", out)
	}
}

func TestToolsCallInjects(t *testing.T) {
	call := func(id, args string) string {
		s := `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"next_step"`
		if args != "" {
			s += `,"arguments":` + args
		}
		return s + `}}`
	}
	for _, tc := range []struct {
		name, in, want string
	}{
		{"number id", call(`3`, `{"step": "a",  "n":1.50}`), call(`3`, `{"step": "a",  "n":1.50,"session_token":"`+tok1+`"}`)},
		{"string id", call(`"x-1"`, `{}`), call(`"x-1"`, `{"session_token":"`+tok1+`"}`)},
		{"no arguments", call(`4`, ``), `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"next_step","arguments":{"session_token":"` + tok1 + `"}}}`},
		{"null arguments", call(`5`, `null`), call(`5`, `{"session_token":"`+tok1+`"}`)},
		{"placeholder copied back", call(`6`, `{"session_token":"`+token.Placeholder+`","step":"b"}`), call(`6`, `{"session_token":"`+tok1+`","step":"b"}`)},
		{"empty token", call(`7`, `{"session_token":""}`), call(`7`, `{"session_token":"`+tok1+`"}`)},
		{"carries a token", call(`8`, `{"session_token":"own"}`), ""},
		{"checkpoint_handle is not a token", call(`9`, `{"checkpoint_handle":"h"}`), call(`9`, `{"checkpoint_handle":"h","session_token":"`+tok1+`"}`)},
		{"skipped tool", `{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"start_session","arguments":{}}}`, ""},
		{"arguments not an object", call(`11`, `[1]`), ""},
		{"not valid JSON", call(`12`, `{"step":}`), ""},
		{"truncated", `{"jsonrpc":"2.0","id":15,"method":"tools/call","params":{"name":"next_step","arguments":{"`, ""},
		{"other method", `{"jsonrpc":"2.0","id":13,"method":"tools/callx","params":{"name":"next_step","arguments":{}}}`, ""},
		{"batch", `[{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}, ` + call(`14`, `{"step":"c"}`) + `]`,
			`[{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}, ` + call(`14`, `{"step":"c","session_token":"`+tok1+`"}`) + `]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rw := holding(t, tok1)
			in := []byte(tc.in)
			out := rw.fromClient(in)
			if tc.want == "" {
				if !same(out, in) {
					t.Fatalf("changed:\n got %s\nwant it untouched", out)
				}
				return
			}
			if string(out) != tc.want {
				t.Fatalf("\n got %s\nwant %s", out, tc.want)
			}
			if string(in) != tc.in {
				t.Fatalf("the input was modified in place: %s", in)
			}
		})
	}
	t.Run("keep-if", func(t *testing.T) {
		cfg := testConfig()
		cfg.KeepIf = []string{"checkpoint_handle"}
		rw := newRW(t, cfg)
		rw.fromClient([]byte(`{"jsonrpc":"2.0","id":"boot","method":"tools/call","params":{"name":"start_session","arguments":{}}}`))
		rw.fromServer([]byte(`{"jsonrpc":"2.0","id":"boot","result":{"content":[],"_meta":{"session_token":"` + tok1 + `"}}}`))
		in := []byte(call(`9`, `{"checkpoint_handle":"h"}`))
		if out := rw.fromClient(in); !same(out, in) {
			t.Fatalf("--keep-if checkpoint_handle: injected anyway: %s", out)
		}
	})
	t.Run("nothing held", func(t *testing.T) {
		rw := newRW(t, testConfig())
		in := []byte(call(`1`, `{}`))
		if out := rw.fromClient(in); !same(out, in) {
			t.Fatalf("injected without a token: %s", out)
		}
	})
}

func TestToolsCallResultCapturesAndRedacts(t *testing.T) {
	for _, tc := range []struct {
		name, result string
	}{
		{"_meta", `{"_meta":{"session_token":"` + tok2 + `","trace":"t"},"content":[{"type":"text","text":"ok\nsession_token: ` + tok2 + `\nbye"}]}`},
		{"structuredContent", `{"content":[{"type":"text","text":"{\"session_token\":\"` + tok2 + `\",\"seq\":2}"}],"structuredContent":{"seq":2,"session_token":"` + tok2 + `"}}`},
		{"text only", `{"content":[{"type":"image","data":"AAAA","mimeType":"image/png"},{"type":"text","text":"Step accepted.\n**session_token**: ` + "`" + tok2 + "`" + `"}]}`},
		{"embedded resource", `{"_meta":{"session_token":"` + tok2 + `"},"content":[{"type":"resource","resource":{"uri":"x:/a","text":"token=` + tok2 + `"}}]}`},
		{"unknown place", `{"_meta":{"session_token":"` + tok2 + `"},"content":[],"extra":{"deep":["` + tok2 + `"]}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rw := holding(t, tok1)
			if tc.name == "text only" {
				// A server that writes its token only in text (once _meta
				// has carried it, lines are no longer read: fixation_test.go).
				rw = newRW(t, testConfig())
				rw.fromClient([]byte(call(`"boot"`, "start_session", `{}`)))
				rw.fromServer([]byte(`{"jsonrpc":"2.0","id":"boot","result":{"content":[{"type":"text","text":"session_token: ` + tok1 + `"}]}}`))
				if rw.Token() != tok1 {
					t.Fatalf("setup: holds %q", rw.Token())
				}
			}
			rw.fromClient([]byte(`{"jsonrpc":"2.0","id":21,"method":"tools/call","params":{"name":"next_step","arguments":{}}}`))
			out := rw.fromServer([]byte(`{"jsonrpc":"2.0","id":21,"result":` + tc.result + `}`))
			if got := rw.Token(); got != tok2 {
				t.Fatalf("holds %q, want the new token", got)
			}
			if bytes.Contains(out, []byte(tok2)) || bytes.Contains(out, []byte(tok1)) {
				t.Fatalf("a token reaches the client: %s", out)
			}
			if !gjson.ValidBytes(out) {
				t.Fatalf("not valid JSON: %s", out)
			}
			stand := token.StandIn("session_token", tok2)
			for _, p := range []string{"result._meta.session_token", "result.structuredContent.session_token"} {
				if v := gjson.GetBytes(out, p); v.Exists() && v.Str != stand {
					t.Fatalf("%s is %q, not the token's stand-in: %s", p, v.Str, out)
				}
			}
		})
	}
	t.Run("exact bytes", func(t *testing.T) {
		rw := holding(t, tok1)
		rw.fromClient([]byte(`{"jsonrpc":"2.0","id":22,"method":"tools/call","params":{"name":"next_step","arguments":{}}}`))
		in := `{"jsonrpc":"2.0","id":22,"result":{"_meta":{"session_token":"` + tok2 + `", "n": 1.0},"content":[{"type":"text","text":"Accepted \u00e9.\nsession_token: ` + tok2 + `"}],"isError":false}}`
		stand := token.StandIn("session_token", tok2)
		want := `{"jsonrpc":"2.0","id":22,"result":{"_meta":{"session_token":"` + stand + `", "n": 1.0},"content":[{"type":"text","text":"Accepted é.\nsession_token: ` + stand + `"}],"isError":false}}`
		if got := string(rw.fromServer([]byte(in))); got != want {
			t.Fatalf("\n got %s\nwant %s", got, want)
		}
	})
	t.Run("old token in an error", func(t *testing.T) {
		rw := holding(t, tok1)
		rw.fromClient([]byte(`{"jsonrpc":"2.0","id":23,"method":"tools/call","params":{"name":"next_step","arguments":{}}}`))
		out := rw.fromServer([]byte(`{"jsonrpc":"2.0","id":23,"result":{"isError":true,"content":[{"type":"text","text":"stale token ` + tok1 + `"}]}}`))
		if bytes.Contains(out, []byte(tok1)) || !bytes.Contains(out, []byte(token.StandIn("session_token", tok1))) {
			t.Fatalf("the held token is not redacted: %s", out)
		}
		if rw.Token() != tok1 {
			t.Fatalf("an error result replaced the held token")
		}
		rw.fromClient([]byte(`{"jsonrpc":"2.0","id":24,"method":"tools/call","params":{"name":"next_step","arguments":{}}}`))
		out = rw.fromServer([]byte(`{"jsonrpc":"2.0","id":24,"error":{"code":-32602,"message":"bad token ` + tok1 + `","data":{"t":"` + tok1 + `"}}}`))
		if bytes.Contains(out, []byte(tok1)) || !gjson.ValidBytes(out) {
			t.Fatalf("the held token is not redacted from a JSON-RPC error: %s", out)
		}
	})
	t.Run("invalid token refused", func(t *testing.T) {
		var log bytes.Buffer
		cfg := testConfig()
		cfg.Log = &log
		rw := newRW(t, cfg)
		rw.fromClient([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"start_session"}}`))
		rw.fromServer([]byte(`{"jsonrpc":"2.0","id":1,"result":{"_meta":{"session_token":"has space"},"content":[]}}`))
		if rw.Token() != "" || !strings.Contains(log.String(), "cannot be taken") || strings.Contains(log.String(), "has space") {
			t.Fatalf("held %q, log %q", rw.Token(), log.String())
		}
	})
}

func TestEverythingElsePassesThrough(t *testing.T) {
	rw := holding(t, tok1)
	// Requests of ours are pending, so the server side looks at messages.
	for _, m := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"next_step","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":"L","method":"tools/list"}`,
	} {
		rw.fromClient([]byte(m))
	}
	client := []string{
		`{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"roots":[]}}`,
		`{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"` + tok1 + `"}}`,
		`not json at all`,
		`  `,
		``,
		`[]`,
		`[1,"a",null]`,
	}
	for _, m := range client {
		if out := rw.fromClient([]byte(m)); string(out) != m {
			t.Errorf("client message changed:\n got %s\nwant %s", out, m)
		}
	}
	server := []string{
		// A server request reusing one of our ids is not our response.
		`{"jsonrpc":"2.0","id":1,"method":"sampling/createMessage","params":{"messages":[]}}`,
		`{"jsonrpc":"2.0","id":"L","method":"roots/list"}`,
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":0.5}}`,
		`{"jsonrpc":"2.0","id":99,"result":{"_meta":{"session_token":"` + tok2 + `"}}}`,
		`{"jsonrpc":"2.0","id":"1","result":{}}`, // "1" is not 1
		`{"id":1,` + "\x00" + `broken`,
	}
	for _, m := range server {
		if out := rw.fromServer([]byte(m)); string(out) != m {
			t.Errorf("server message changed:\n got %s\nwant %s", out, m)
		}
	}
	if rw.Token() != tok1 {
		t.Fatalf("an untracked message changed the held token")
	}
}

func TestPersistResumes(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	cfg := testConfig()
	cfg.Persist, cfg.Store, cfg.Session = true, state.New(dir), "client-1"
	rw := newRW(t, cfg)
	if rw.Token() != "" {
		t.Fatal("holds a token before any")
	}
	rw.fromClient([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"start_session"}}`))
	rw.fromServer([]byte(`{"jsonrpc":"2.0","id":1,"result":{"_meta":{"session_token":"` + tok1 + `"},"content":[]}}`))
	rec, err := state.New(dir).Get("wf", "client-1")
	if err != nil || rec.Token != tok1 {
		t.Fatalf("stored %q, %v", rec.Token, err)
	}
	// A restarted client resumes; another session does not.
	if got := newRW(t, cfg).Token(); got != tok1 {
		t.Fatalf("resumed %q, want the stored token", got)
	}
	other := cfg
	other.Session = "client-2"
	if got := newRW(t, other).Token(); got != "" {
		t.Fatalf("another session resumed %q", got)
	}
	// Without --persist nothing is read or written.
	plain := cfg
	plain.Persist = false
	if got := newRW(t, plain).Token(); got != "" {
		t.Fatalf("resumed %q without --persist", got)
	}
	bad := cfg
	bad.Server = ""
	if _, err := New(bad); err == nil {
		t.Fatal("--persist without a server name accepted")
	}
}

// fromClient and fromServer are FromClient and FromServer for messages that
// are relayed (not dropped): the message as it goes on.
func (r *Rewriter) fromClient(msg []byte) []byte { return relayed(r.FromClient(msg)) }
func (r *Rewriter) fromServer(msg []byte) []byte { return relayed(r.FromServer(msg)) }

func relayed(o Out) []byte {
	if o.Drop || o.Back != nil {
		panic("the message was not relayed: " + string(o.Back))
	}
	return o.Msg
}

// hold makes tok the session token, as a captured result does.
func (r *Rewriter) hold(tok string) {
	holdSeq++
	id := fmt.Sprintf(`"hold-%d"`, holdSeq)
	r.fromClient([]byte(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"next_step","arguments":{}}}`))
	r.FromServer([]byte(`{"jsonrpc":"2.0","id":` + id + `,"result":{"content":[],"_meta":{"session_token":` + string(rawjson.AppendString(nil, tok)) + `}}}`))
}

var holdSeq int

// Each secret's run is its longest run, however often the holding changes
// (runs of values held before are reused).
func TestSecretRuns(t *testing.T) {
	rw := newRW(t, testConfig())
	var held []string
	for i := range token.MaxHeld + 5 {
		tok := fmt.Sprintf("t%d/%s~%d", i, strings.Repeat("x", i%7), i)
		if i%9 == 8 {
			tok = held[len(held)-5] // an older token comes back
		}
		rw.hold(tok)
		held = append(held, tok)
		for _, s := range rw.secrets {
			if s.run != longestRun(s.value) {
				t.Fatalf("after %d captures, the run of %q is %q, want %q", i, s.value, s.run, longestRun(s.value))
			}
		}
		if len(rw.secrets) != min(len(slices.Compact(slices.Sorted(slices.Values(held)))), token.MaxHeld) || rw.secrets[0].value != tok {
			t.Fatalf("after %d captures: %d secrets, the first %q", i, len(rw.secrets), rw.secrets[0].value)
		}
	}
	if r := longestRun("ab/cdef%gh.i~j/k/0123456789abcdefghij"); r != "456789abcdefghij" {
		t.Fatalf("longestRun = %q", r)
	}
}

// FuzzCandidates checks that the prefilter never leaves out a held token
// that a message carries, in any spelling redaction replaces, among other
// held tokens: a token it missed would reach the client. (Values shorter
// than token.MinStandIn are never hidden.)
func FuzzCandidates(f *testing.F) {
	f.Add("tok1/abc.DEF_0123456789~x", "other-token-0123456789abcdef", "prefix ", " suffix", uint8(0))
	f.Add("eyJhbGciOiJIUzI1NiJ9.eyJzIjoxfQ.c2lnbmF0dXJlMDEyMzQ1", "eyJhbGciOiJIUzI1NiJ9.eyJzIjoyfQ.b3RoZXJzaWduYXR1cmU5", "", "", uint8(3))
	f.Add(`a"b\c/d0123456789`, "zzzzzzzzzzzzzzzz1", "{", "}", uint8(1))
	f.Fuzz(func(t *testing.T, tok, other, before, after string, form uint8) {
		if token.Validate(tok) != nil || token.Validate(other) != nil || tok == other || len(tok) < token.MinStandIn {
			return
		}
		esc := string(rawjson.AppendString(nil, tok))
		esc = esc[1 : len(esc)-1]
		spelled := []string{
			tok,
			esc,
			strings.ReplaceAll(esc, "/", `\/`),
			url.PathEscape(tok),
			// inside a JSON text block, itself inside a JSON string
			strings.Trim(string(rawjson.AppendString(nil, string(rawjson.AppendString(nil, tok)))), `"`),
		}[int(form)%5]
		msg := []byte(before + spelled + after)
		rw := newRW(t, testConfig())
		for i := range 5 {
			rw.hold(fmt.Sprintf("%s-%d", other, i))
		}
		rw.hold(tok)
		rw.hold(other)
		var cands []string
		for _, n := range rw.candidates(msg) {
			cands = append(cands, n.Held...)
		}
		if !slices.Contains(cands, tok) {
			t.Fatalf("the held token %q spelled %q in %q is not a candidate", tok, spelled, msg)
		}
	})
}

// In a batch, a call naming an unknown token is taken out (and answered);
// the rest goes on, rewritten.
func TestBatchWithAnUnknownStandIn(t *testing.T) {
	rw := holding(t, tok1)
	unknown := "[session_token deadbeef held by interceptor]"
	in := `[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"next_step","arguments":{"session_token":"` + unknown + `"}}}, {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"next_step","arguments":{}}}]`
	out := rw.FromClient([]byte(in))
	want := `[{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"next_step","arguments":{"session_token":"` + tok1 + `"}}}]`
	if out.Drop || string(out.Msg) != want {
		t.Fatalf("forwarded %s (drop %t)\nwant %s", out.Msg, out.Drop, want)
	}
	back := gjson.ParseBytes(out.Back)
	if !strings.HasSuffix(string(out.Back), "\n") || back.Get("id").Int() != 1 || !back.Get("result.isError").Bool() {
		t.Fatalf("answer to the sender: %q", out.Back)
	}
	// A batch of nothing but refused calls goes nowhere.
	only := `[{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"next_step","arguments":{"session_token":"` + unknown + `"}}}]`
	if out := rw.FromClient([]byte(only)); !out.Drop || len(out.Back) == 0 {
		t.Fatalf("a batch of one refused call: drop %t, answer %q", out.Drop, out.Back)
	}
}

// TestTextBlockWithoutType: the proxy reads a result as hooks do
// (carry.ReadResult): a content block without a type that has a text is
// a text block (hooks read Gemini CLI's parts so; MCP wants a type, and a
// server that leaves it out still wrote the text itself), while an
// embedded resource's text and a resource link's description stay unread.
func TestTextBlockWithoutType(t *testing.T) {
	rw := newRW(t, testConfig())
	rw.fromClient([]byte(call(`"boot"`, "start_session", `{}`)))
	rw.fromServer([]byte(`{"jsonrpc":"2.0","id":"boot","result":{"content":[{"text":"Started.\nsession_token: ` + tok1 + `"}]}}`))
	if got := rw.Token(); got != tok1 {
		t.Fatalf("a text block without a type: holds %q, want its token", got)
	}
	rw.fromClient([]byte(call("2", "read_file", `{}`)))
	rw.fromServer([]byte(`{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"resource","resource":{"uri":"file:///a","text":"session_token: ` + tok2 + `"}},` +
		`{"type":"resource_link","uri":"file:///a","name":"a","description":"session_token: ` + tok2 + `"}]}}`))
	if got := rw.Token(); got != tok1 {
		t.Fatalf("a resource's text was taken: holds %q", got)
	}
}
