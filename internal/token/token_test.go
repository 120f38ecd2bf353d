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
	// At most a quarter of the token is shown, never more than 8 characters.
	for _, tok := range []string{"abcdefghijklm", strings.Repeat("x1", 10), tok} {
		m := Mask(tok)
		visible := strings.Count(m, "") - 1 - strings.Count(m, "…") - len(fmt.Sprintf(" (%d chars)", len(tok)))
		if visible > len(tok)/4 || visible > 8 {
			t.Errorf("Mask(%q) = %q shows %d characters", tok, m, visible)
		}
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
		`{"session_token":"` + Placeholder + `"}`:                   false,
		`{"session_token":"` + StandIn("session_token", "x") + `"}`: false,
		`{"session_token":"abc"}`:                                   true,
		`{"checkpoint_handle":"h1"}`:                                true,
		`{"checkpoint_handle":{"id":1}}`:                            true,
		`{"nested":{"session_token":"abc"}}`:                        false,
	}
	for args, want := range cases {
		if got := Carries(gjson.Parse(args), keys); got != want {
			t.Errorf("Carries(%s) = %v, want %v", args, got, want)
		}
	}
}
