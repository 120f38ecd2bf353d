package token

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

func TestValidate(t *testing.T) {
	ok := []string{"a", "tok-1", strings.Repeat("x", MaxLen), "eyJzaWQiOiJ4In0.0f3a!~"}
	for _, tok := range ok {
		if err := Validate(tok); err != nil {
			t.Errorf("Validate(%.20q) = %v, want nil", tok, err)
		}
	}
	bad := map[string]string{
		"":                            "empty",
		strings.Repeat("x", MaxLen+1): "more than",
		"has space":                   "0x20",
		"new\nline":                   "0x0a",
		"tab\tx":                      "0x09",
		"nul\x00x":                    "0x00",
		"del\x7fx":                    "0x7f",
		"caf\xc3\xa9":                 "0xc3",
		"secret-token-value\r":        "0x0d",
	}
	for tok, want := range bad {
		err := Validate(tok)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate(%.20q) = %v, want error containing %q", tok, err, want)
		}
		if err != nil && len(tok) > 4 && strings.Contains(err.Error(), tok) {
			t.Errorf("Validate error repeats the token: %v", err)
		}
	}
}

func TestMaskNeverShowsTheToken(t *testing.T) {
	tok := "eyJzaWQiOiJhYmMiLCJzZXEiOjF9.9f86d081884c7d659a2feaa0c55ad015"
	m := Mask(tok)
	if strings.Contains(m, tok[4:len(tok)-4]) || !strings.Contains(m, fmt.Sprintf("%d chars", len(tok))) {
		t.Errorf("Mask(%q) = %q", tok, m)
	}
	if m := Mask("short"); m != "*****" {
		t.Errorf("Mask(short) = %q", m)
	}
}

func TestFindInText(t *testing.T) {
	cases := []struct {
		name, text, want string
		found            bool
	}{
		{"line", "step=one done\nsession_token: abc.def\nnext", "abc.def", true},
		{"equals", "session_token=abc", "abc", true},
		{"quoted", `session_token: "abc"`, "abc", true},
		{"bold markdown", "**session_token**: `abc`", "abc", true},
		{"trailing period", "Your session_token: abc.", "abc", true},
		{"json object", `{"step":"one","session_token":"tok-9"}`, "tok-9", true},
		{"json with spaces", "  {\"session_token\": \"tok-9\"}\n", "tok-9", true},
		{"gemini wrapper", "<untrusted_context>\nsession_token: tok-2\n</untrusted_context>", "tok-2", true},
		{"gemini wrapped json", "<untrusted_context>\n{\"session_token\":\"tok-3\"}\n</untrusted_context>", "tok-3", true},
		{"prefixed key is another key", `received_session_token="INJECTED:none"; next token=tok-1`, "", false},
		{"suffixed key is another key", "session_token_hint: x", "", false},
		{"key without value", "session_token:", "", false},
		{"key in prose", "the session_token is required", "", false},
		{"second occurrence wins when first is not a key", "old_session_token=x session_token=y", "y", true},
		{"no token", "hello", "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, ok := FindInText(c.text, "session_token")
			if ok != c.found || got != c.want {
				t.Errorf("FindInText(%q) = %q, %v; want %q, %v", c.text, got, ok, c.want, c.found)
			}
		})
	}
}

func TestFindOrder(t *testing.T) {
	r := Result{
		Meta:       gjson.Parse(`{"session_token":"from-meta"}`),
		Structured: gjson.Parse(`{"session_token":"from-structured"}`),
		Texts:      []string{"session_token: from-text"},
	}
	for _, want := range []struct {
		tok string
		src Source
	}{{"from-meta", FromMeta}, {"from-structured", FromStructured}, {"from-text", FromText}} {
		tok, src, ok := Find(r, "session_token")
		if !ok || tok != want.tok || src != want.src {
			t.Fatalf("Find = %q %q %v, want %q %q", tok, src, ok, want.tok, want.src)
		}
		switch src {
		case FromMeta:
			r.Meta = gjson.Result{}
		case FromStructured:
			r.Structured = gjson.Result{}
		}
	}
	// A non-string value under the key is not a token.
	if _, _, ok := Find(Result{Meta: gjson.Parse(`{"session_token":123}`)}, "session_token"); ok {
		t.Error("Find accepted a number as token")
	}
	// Custom keys with path characters are matched literally.
	if tok, _, ok := Find(Result{Meta: gjson.Parse(`{"a.b":"x","a":{"b":"y"}}`)}, "a.b"); !ok || tok != "x" {
		t.Errorf("Find with dotted key = %q %v", tok, ok)
	}
}

func TestInjectKeepsBytes(t *testing.T) {
	args := `{"step": "one", "n": 1.50, "z": {"deep": [1, 2e3]}, "u": "\u00e9"}`
	out, err := Inject(args, "session_token", "tok-1")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(out), args[:len(args)-1]) {
		t.Errorf("untouched bytes changed:\n got %s\nfrom %s", out, args)
	}
	if got := gjson.GetBytes(out, "session_token").Str; got != "tok-1" || !gjson.ValidBytes(out) {
		t.Errorf("session_token = %q in %s", got, out)
	}
	// Tokens and keys are JSON-escaped; an empty object gets no comma.
	out, err = Inject(" { } ", `a"b`, `x\y`)
	if err != nil || string(out) != ` { "a\"b":"x\\y"} ` {
		t.Errorf("Inject into empty object = %s, %v", out, err)
	}
	// Replacing an existing (empty) value keeps the key's position.
	out, err = Inject(`{"session_token":"","step":"x"}`, "session_token", "t")
	if err != nil || string(out) != `{"session_token":"t","step":"x"}` {
		t.Errorf("Inject over empty = %s, %v", out, err)
	}
	for _, bad := range []string{`[]`, `"x"`, ` 1`, ``} {
		if _, err := Inject(bad, "session_token", "t"); err == nil {
			t.Errorf("Inject(%q) accepted non-object", bad)
		}
	}
}

func TestCarries(t *testing.T) {
	keys := []string{"checkpoint_handle", "session_token"}
	cases := map[string]bool{
		`{}`:                     false,
		`{"step":"one"}`:         false,
		`{"session_token":null}`: false,
		`{"session_token":""}`:   false,
		`{"session_token":"  "}`: false,
		`{"session_token":"` + Placeholder + `"}`: false,
		`{"session_token":"abc"}`:                 true,
		`{"checkpoint_handle":"h1"}`:              true,
		`{"checkpoint_handle":{"id":1}}`:          true,
		`{"nested":{"session_token":"abc"}}`:      false,
	}
	for args, want := range cases {
		if got := Carries(gjson.Parse(args), keys); got != want {
			t.Errorf("Carries(%s) = %v, want %v", args, got, want)
		}
	}
}

func TestRedactText(t *testing.T) {
	tok := "eyJzaWQiOiJ4In0.abcdef0123456789"
	cases := []struct{ name, in, want string }{
		{"line dropped", "step one done\nsession_token: " + tok + "\nnext: two\n", "step one done\nnext: two\n"},
		{"last line dropped", "done\nsession_token: " + tok, "done\n"},
		{"in prose", "your token is " + tok + " keep it", "your token is " + Placeholder + " keep it"},
		{"json key removed", `{"step":"one","session_token":"` + tok + `","n":2}`, `{"step":"one","n":2}`},
		{"line with other words keeps them", "ok; session_token=" + tok + "; step=2", "ok; session_token=" + Placeholder + "; step=2"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, changed := RedactText(c.in, "session_token", tok)
			if !changed || got != c.want {
				t.Errorf("RedactText:\n got %q (changed=%v)\nwant %q", got, changed, c.want)
			}
			if strings.Contains(got, tok) {
				t.Errorf("token survived: %q", got)
			}
		})
	}
	if got, changed := RedactText("nothing here", "session_token", tok); changed || got != "nothing here" {
		t.Errorf("RedactText without token changed it: %q", got)
	}
}

func TestRedactJSON(t *testing.T) {
	tok := "tok-abc"
	in := `{"session_token":"tok-abc","other":"x tok-abc y","keep":1.0}`
	got, changed := RedactJSON([]byte(in), "session_token", tok)
	if !changed || string(got) != `{"other":"x `+Placeholder+` y","keep":1.0}` {
		t.Errorf("RedactJSON = %s, %v", got, changed)
	}
	// A token with a quote is not raw-replaced, but its key is still removed.
	q := `a"b`
	got, changed = RedactJSON([]byte(`{"session_token":"a\"b","x":1}`), "session_token", q)
	if !changed || string(got) != `{"x":1}` {
		t.Errorf("RedactJSON quote token = %s, %v", got, changed)
	}
}
