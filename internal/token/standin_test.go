package token

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

func TestStandIn(t *testing.T) {
	a, b := StandIn("session_token", tokA), StandIn("session_token", tokB)
	if a == b || strings.Contains(a, tokA[:20]) || !strings.Contains(a, Handle(tokA)) {
		t.Fatalf("stand-ins %q %q must differ per token and not carry it", a, b)
	}
	if (Rules{Key: "session_token", MinLen: 1}).LooksLikeToken(a) {
		t.Fatalf("a stand-in looks like a token: %q", a)
	}
	for s, want := range map[string]string{a: Handle(tokA), " " + b + "\n": Handle(tokB), Placeholder: "", strings.ToUpper(a[:14]) + a[14:]: Handle(tokA)} {
		if h, ok := ParseStandIn(s); !ok || h != want {
			t.Errorf("ParseStandIn(%q) = %q %v, want %q", s, h, ok, want)
		}
	}
	for _, s := range []string{"", tokA, "[session_token held]", "[session_token zzzzzzzz held by interceptor]", "[session_token 1234567 held by interceptor]", "x" + a} {
		if _, ok := ParseStandIn(s); ok {
			t.Errorf("ParseStandIn(%q) accepted", s)
		}
	}
}

func TestHeldPush(t *testing.T) {
	var h Held
	for i := range MaxHeld + 10 {
		h = h.Push(fmt.Sprintf("tok%03d", i))
	}
	if len(h) != MaxHeld || h[0] != fmt.Sprintf("tok%03d", MaxHeld+9) || h[MaxHeld-1] != "tok010" {
		t.Fatalf("Push kept %d, newest %q, oldest %q", len(h), h[0], h[len(h)-1])
	}
	h = h.Push("tok050")
	if h[0] != "tok050" || len(h) != MaxHeld || strings.Count(strings.Join(h, ","), "tok050") != 1 {
		t.Fatalf("re-pushing an older token must move it up, not copy it")
	}
}

func TestResolveStandIns(t *testing.T) {
	held := Held{tokB, tokA}
	args := `{"workflow_id":"child","parent_session_token":"` + StandIn("session_token", tokA) + `","n":1.50,"deep":[{"x":"` + StandIn("session_token", tokB) + `"}],"note":"see ` + StandIn("session_token", tokA) + `"}`
	out, changed, err := ResolveStandIns(args, held)
	if err != nil || !changed {
		t.Fatalf("ResolveStandIns: %v %v", changed, err)
	}
	if gjson.Get(out, "parent_session_token").Str != tokA || gjson.Get(out, "deep.0.x").Str != tokB {
		t.Fatalf("not resolved: %s", out)
	}
	// Only whole values are stand-ins; a mention inside a sentence is left.
	if !strings.Contains(gjson.Get(out, "note").Str, "held by interceptor") || !strings.Contains(out, `"n":1.50`) {
		t.Fatalf("changed more than the stand-ins: %s", out)
	}
	// The nameless placeholder names the latest.
	out, _, err = ResolveStandIns(`{"session_token":"`+Placeholder+`"}`, held)
	if err != nil || gjson.Get(out, "session_token").Str != tokB {
		t.Fatalf("placeholder: %s %v", out, err)
	}
	// A stand-in of a token not held refuses the call, unchanged.
	other := StandIn("session_token", "eyJvdGhlciI6MX0.00000000000000000000")
	in := `{"session_token":"` + StandIn("session_token", tokA) + `","p":"` + other + `"}`
	out, changed, err = ResolveStandIns(in, held)
	var unknown *UnknownStandInError
	if !errors.As(err, &unknown) || changed || out != in || unknown.Handle != Handle("eyJvdGhlciI6MX0.00000000000000000000") {
		t.Fatalf("unknown stand-in: %q %v %v", out, changed, err)
	}
	if _, _, err := ResolveStandIns(`{"session_token":"`+Placeholder+`"}`, nil); err == nil {
		t.Fatal("a placeholder with nothing held must refuse")
	}
	// A key that looks like a stand-in is a key.
	k := `{"` + StandIn("session_token", tokA) + `":1}`
	if out, changed, err := ResolveStandIns(k, held); err != nil || changed || out != k {
		t.Fatalf("key resolved: %s", out)
	}
}

func TestRedact(t *testing.T) {
	held := Held{tokB, tokA}
	sa, sb := StandIn("session_token", tokA), StandIn("session_token", tokB)
	// Tokens with '/' (standard base64) show up escaped in JSON and in URIs.
	slash := "abc/def+ghi0123456789/xyz="
	cases := []struct{ name, in, want string }{
		{"line", "done\nsession_token: " + tokB + "\n", "done\nsession_token: " + sb + "\n"},
		{"older token echoed", "resumed from " + tokA + ", now " + tokB, "resumed from " + sa + ", now " + sb},
		{"words stay", "session_token: The current session token", "session_token: The current session token"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, changed := RedactText(c.in, "session_token", held)
			if got != c.want || changed != (c.in != c.want) {
				t.Errorf("RedactText:\n got %q\nwant %q", got, c.want)
			}
		})
	}
	// A whole MCP result: text, JSON text, resource text and uri,
	// resource_link uri (JSON-escaped '/'), structuredContent, _meta.
	h2 := Held{slash, tokB}
	res := `{"content":[{"type":"text","text":"session_token: ` + tokB + `"},` +
		`{"type":"text","text":"{\"session_token\":\"` + tokB + `\",\"u\":\"x\\\\/` + `\"}"},` +
		`{"type":"resource","resource":{"uri":"wf://s/abc\/def+ghi0123456789\/xyz=","text":"tok ` + tokB + `"}},` +
		`{"type":"resource_link","uri":"https://x/?t=abc%2Fdef%2Bghi0123456789%2Fxyz%3D","name":"n"}],` +
		`"structuredContent":{"session_token":"` + tokB + `"},"_meta":{"session_token":"` + slash + `"}}`
	if !gjson.Valid(res) {
		t.Fatalf("test result is not JSON: %s", res)
	}
	out, changed := RedactResult(res, "session_token", h2)
	if !changed || !gjson.Valid(out) {
		t.Fatalf("RedactResult: changed=%v valid=%v %s", changed, gjson.Valid(out), out)
	}
	for _, tok := range []string{tokB, slash, `abc\/def`, "abc%2Fdef"} {
		if strings.Contains(out, tok) {
			t.Errorf("%q survived: %s", tok, out)
		}
	}
	if gjson.Get(out, "structuredContent.session_token").Str != sb || gjson.Get(out, "_meta.session_token").Str != StandIn("session_token", slash) {
		t.Errorf("values not replaced by their stand-ins: %s", out)
	}
	if gjson.Get(out, "content.3.name").Str != "n" {
		t.Errorf("other bytes changed: %s", out)
	}
}

func TestMaskedJSON(t *testing.T) {
	in := `{"tool":"next_step","session_token":"whatever-the-model-typed","args":{"parent_session_token":"x","note":"uses ` + tokA + `"},"ctl":"\u001b[31m"}`
	out := MaskedJSON(in, "session_token", Held{tokA})
	if strings.Contains(out, tokA) || strings.Contains(out, "whatever-the-model-typed") {
		t.Fatalf("MaskedJSON leaked: %s", out)
	}
	if gjson.Get(out, "session_token").Str != StandIn("session_token", "whatever-the-model-typed") || gjson.Get(out, "args.parent_session_token").Str != "x" {
		t.Fatalf("MaskedJSON = %s", out)
	}
	// A stand-in under the key stays as it is.
	in = `{"session_token":"` + StandIn("session_token", tokA) + `"}`
	if out := MaskedJSON(in, "session_token", nil); out != in {
		t.Fatalf("MaskedJSON re-masked a stand-in: %s", out)
	}
}

// Found by FuzzMaskedJSON: a value nested under the token argument, a held
// token used as a key, and text dressed as a stand-in were all shown.
func TestMaskedJSONNestedKeysAndFakeStandIns(t *testing.T) {
	const unheld = "unheld-secret-0123456789abc"
	in := `{"session_token":{"inner":"` + unheld + `","n":["deep-` + unheld + `"],"` + unheld + `-key":1},"after":"shown","` + tokA + `":2,` +
		`"x":{"session_token":"[` + unheld + ` 00000000 held by interceptor]"},"list":[{"session_token":1},"not under"]}`
	out := MaskedJSON(in, "session_token", Held{tokA})
	if !gjson.Valid(out) || strings.Contains(out, unheld) || strings.Contains(out, tokA) {
		t.Fatalf("MaskedJSON leaked: %s", out)
	}
	if gjson.Get(out, "after").Str != "shown" || gjson.Get(out, "list.1").Str != "not under" || gjson.Get(out, "session_token."+gjson.Escape(StandIn("session_token", "inner"))).Str != StandIn("session_token", unheld) {
		t.Fatalf("MaskedJSON masked the wrong strings: %s", out)
	}
}
