//go:build unix

package proxy

import (
	"regexp"
	"strings"
	"testing"

	"github.com/interceptor-dev/interceptor/internal/token"
	"github.com/tidwall/gjson"
)

// Tokens of the scripted sessions: tok3 holds '/', which a server may
// write as "\/" inside a JSON string.
const tok3 = "tok3/eyJzaWQiOiJzXzEiLCJzZXEiOjN9/abcdef0123456789"

func stand(tok string) string { return token.StandIn("session_token", tok) }

// call is a tools/call request from the client.
func call(id, tool, args string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + args + `}}`
}

// issued is a tools/call result from the server carrying tok in _meta and
// in a text line, as real token servers do.
func issued(id, text, tok string) string {
	return `> {"jsonrpc":"2.0","id":` + id + `,"result":{"_meta":{"session_token":"` + tok + `"},"content":[{"type":"text","text":"` + text + `\nsession_token: ` + tok + `"}]}}`
}

// noToken fails when any spelling of any of the tokens reaches the client.
func noToken(t *testing.T, out []string, toks ...string) {
	t.Helper()
	all := strings.Join(out, "\n")
	for _, tok := range toks {
		for _, form := range []string{tok, strings.ReplaceAll(tok, "/", `\/`), tok[5:25]} {
			if strings.Contains(all, form) {
				t.Fatalf("a token (%q) reached the client:\n%s", form, all)
			}
		}
	}
}

// Every token of the session stays hidden, not only the latest two: a
// rotated older token echoed later, and a token JSON-escaped with "\/" in
// a resource_link URI (issue 12.4).
func TestOlderAndEscapedTokensAreRedacted(t *testing.T) {
	escaped := strings.ReplaceAll(tok3, "/", `\/`)
	r := runScripted(t, testConfig(), []string{
		"<", issued("1", "started", tok1),
		"<", issued("2", "step a", tok2),
		"<", issued("3", "step b", tok3),
		"<",
		`> {"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"history: ` + tok1 + ` then ` + tok2 + `"},{"type":"resource_link","uri":"wf:\/\/s\/` + escaped + `","name":"s"},{"type":"text","text":"{\"prev\":\"` + strings.ReplaceAll(escaped, `\`, `\\`) + `\"}"}]}}`,
	}, []string{
		call("1", "start_session", `{}`), "<",
		call("2", "next_step", `{}`), "<",
		call("3", "next_step", `{}`), "<",
		call("4", "history", `{}`), "<",
	})
	noToken(t, r.out, tok1, tok2, tok3)
	last := r.out[3]
	for _, tok := range []string{tok1, tok2, tok3} {
		if !strings.Contains(last, strings.ReplaceAll(stand(tok), "/", `\/`)) && !strings.Contains(last, stand(tok)) {
			t.Errorf("the stand-in of %.4s… is missing: %s", tok, last)
		}
	}
	if !gjson.Valid(last) {
		t.Fatalf("not valid JSON: %s", last)
	}
}

// Server-to-client notifications and requests never carry a token to the
// client: a sampling/createMessage goes straight to a model (issue 12.4).
func TestServerMessagesAreRedacted(t *testing.T) {
	r := runScripted(t, testConfig(), []string{
		"<", issued("1", "started", tok1),
		`> {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":{"msg":"session ` + tok1 + ` opened"}}}`,
		`> {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p","progress":1,"message":"token=` + tok1 + `"}}`,
		`> {"jsonrpc":"2.0","id":"s1","method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"Summarize session_token: ` + tok1 + `"}}],"maxTokens":10}}`,
		`> not JSON, but a token: ` + tok1,
		"<",
	}, []string{
		call("1", "start_session", `{}`), "<", "<", "<", "<", "<",
		`{"jsonrpc":"2.0","id":"s1","result":{"role":"assistant","model":"m","content":{"type":"text","text":"ok"}}}`,
	})
	noToken(t, r.out, tok1)
	for i, l := range r.out[1:] {
		if !strings.Contains(l, stand(tok1)) {
			t.Errorf("server message %d lacks the stand-in: %s", i+1, l)
		}
	}
}

// Token references (issue 11): the model names any token of the session by
// its stand-in, in any argument; a call without a token gets the latest; a
// stand-in naming no held token never reaches the server.
func TestStandInsNameTokens(t *testing.T) {
	unknown := "[session_token deadbeef held by interceptor]"
	r := runScripted(t, testConfig(), []string{
		"<", issued("1", "orchestrator started", tok1),
		"<", issued("2", "child started", tok2),
		"<", `> {"jsonrpc":"2.0","id":3,"result":{"content":[]}}`,
		"<", `> {"jsonrpc":"2.0","id":4,"result":{"content":[]}}`,
		"<", `> {"jsonrpc":"2.0","id":6,"result":{"content":[]}}`,
		"<", `> {"jsonrpc":"2.0","id":7,"result":{"content":[]}}`,
	}, []string{
		call("1", "start_session", `{"workflow_id":"parent"}`), "<",
		// The nested workflow: the child names its parent by stand-in.
		call("2", "start_session", `{"workflow_id":"child","parent_session_token":"`+stand(tok1)+`"}`), "<",
		call("3", "next_step", `{"step":"child work"}`), "<",
		call("4", "next_step", `{"step":"parent again","session_token":"`+stand(tok1)+`"}`), "<",
		call("5", "next_step", `{"session_token":"`+unknown+`"}`), "<",
		// Resuming a saved session: start_session given a stand-in.
		call("6", "start_session", `{"session_token":"`+stand(tok2)+`"}`), "<",
		// The old nameless placeholder names the latest.
		call("7", "next_step", `{"session_token":"`+token.Placeholder+`"}`), "<",
	})
	noToken(t, r.out, tok1, tok2)
	if len(r.seen) != 6 {
		t.Fatalf("the server got %d calls, want 6 (not the one with an unknown stand-in): %q", len(r.seen), r.seen)
	}
	for i, want := range []struct{ path, value string }{
		{"params.arguments.session_token", ""},
		{"params.arguments.parent_session_token", tok1},
		{"params.arguments.session_token", tok2},
		{"params.arguments.session_token", tok1},
		{"params.arguments.session_token", tok2},
		{"params.arguments.session_token", tok2},
	} {
		if got := gjson.Get(r.seen[i], want.path).Str; got != want.value {
			t.Errorf("server call %d: %s = %q, want %q\n%s", i+1, want.path, got, want.value, r.seen[i])
		}
	}
	refused := gjson.Parse(r.out[4])
	if refused.Get("id").Raw != "5" || !refused.Get("result.isError").Bool() || !strings.Contains(refused.Get("result.content.0.text").Str, "deadbeef") {
		t.Errorf("the call with an unknown stand-in: %s; want a tool error naming the handle", r.out[4])
	}
	if strings.Count(r.stderr, "stand-in") != 1 {
		t.Errorf("want one stderr line for the refused call:\n%s", r.stderr)
	}
}

// Choosing the token (issue 11): prose that mentions the key is not a
// token; a result with two different token-shaped values stores nothing
// and says so on one line; --token-pattern settles it; --keep-if no
// longer defaults to checkpoint_handle.
func TestTokenChoice(t *testing.T) {
	const other = "ATTACKER0123456789abcdefghij"
	script := []string{
		"<", `> {"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"How it works:\n  - session_token: The current session token\nresume_checkpoint({ session_token: resumed_session_token })\nsession_token: ` + tok1 + `"}]}}`,
		"<", `> {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"session_token: ` + tok2 + `\nquoted:\nsession_token: ` + other + `"}]}}`,
		"<", `> {"jsonrpc":"2.0","id":3,"result":{"content":[]}}`,
	}
	client := []string{
		call("1", "start_session", `{}`), "<",
		call("2", "next_step", `{}`), "<",
		call("3", "checkpoint", `{"checkpoint_handle":"cp-1"}`), "<",
	}
	t.Run("ambiguous", func(t *testing.T) {
		r := runScripted(t, testConfig(), script, client)
		if got := gjson.Get(r.seen[1], "params.arguments.session_token").Str; got != tok1 {
			t.Fatalf("next_step got %q, want the token of the first result (not the prose)", got)
		}
		if got := gjson.Get(r.seen[2], "params.arguments.session_token").Str; got != tok1 {
			t.Fatalf("after an ambiguous result the call got %q, want the token held before", got)
		}
		if n := strings.Count(r.stderr, "interceptor proxy: "); n != 1 || !strings.Contains(r.stderr, "different") || strings.Contains(r.stderr, other) || strings.Contains(r.stderr, tok2) {
			t.Fatalf("want one stderr line about the ambiguous result, no token in it:\n%s", r.stderr)
		}
	})
	t.Run("token-pattern", func(t *testing.T) {
		cfg := testConfig()
		cfg.Pattern = regexp.MustCompile(`^(?:tok[0-9]\..*)$`)
		r := runScripted(t, cfg, script, client)
		if got := gjson.Get(r.seen[2], "params.arguments.session_token").Str; got != tok2 {
			t.Fatalf("with --token-pattern the call got %q, want the token that matches", got)
		}
		noToken(t, r.out, tok1, tok2)
	})
}
