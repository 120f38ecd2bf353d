package token

import (
	"errors"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// Realistic tokens: the reference server's base64url(JSON) "." hex(HMAC).
const (
	tokA = "eyJzaWQiOiJhYmMiLCJzZXEiOjF9.9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
	tokB = "eyJzaWQiOiJhYmMiLCJzZXEiOjJ9.60303ae22b998861bce3b28f33eec1be758a213c86c93c076dbe9f558c11c752"
)

func chooseText(texts ...string) (string, Where, error) {
	return Choose(Result{Texts: texts}, Rules{Key: "session_token"})
}

func TestChooseTextCandidates(t *testing.T) {
	cases := []struct {
		name, text, want string
	}{
		{"line", "step one done\nsession_token: " + tokA + "\nnext", tokA},
		{"indented", "result:\n    session_token: " + tokA, tokA},
		{"bullet", "  - session_token: " + tokA, tokA},
		{"star bullet", "* session_token: " + tokA, tokA},
		{"numbered", "2. session_token: " + tokA, tokA},
		{"equals", "session_token=" + tokA, tokA},
		{"quoted value", `session_token: "` + tokA + `"`, tokA},
		{"backticks", "session_token: `" + tokA + "`", tokA},
		{"bold key", "**session_token**: " + tokA, tokA},
		{"bold key with colon inside", "**session_token:** " + tokA, tokA},
		{"quoted key (TOON/YAML)", `"session_token": ` + tokA, tokA},
		{"TOON block", "result:\n  step: one\n  session_token: " + tokA + "\n  next[2]: plan,build\n  tokens[1]{session_token}:\n    notatoken", tokA},
		{"TOON quoted value", "session_token: \"" + tokA + "\"\nok: true", tokA},
		{"TOON tabular row is not a key line", "steps[1]{name,session_token}:\n  plan," + tokA, ""},
		{"json object", `{"step":"one","session_token":"` + tokA + `"}`, tokA},
		{"gemini wrapper", "<untrusted_context>\nsession_token: " + tokA + "\n</untrusted_context>", tokA},
		{"gemini wrapped json", "<untrusted_context>\n{\"session_token\":\"" + tokA + "\"}\n</untrusted_context>", tokA},
		// What real servers print that is not a token:
		{"prose bullet", "      - session_token: The current session token", ""},
		{"code call", "resume_checkpoint({ session_token: resumed_session_token })", ""},
		{"code call with a token-like value", "resume_checkpoint({ session_token: " + tokA + " })", ""},
		{"mid sentence", "my session_token: " + tokA + " is broken", ""},
		{"quoted third party", `> the user wrote "my session_token: ` + tokA + `"`, ""},
		{"value then words", "session_token: " + tokA + " (keep it)", ""},
		{"word value", "session_token: resumed_session_token", ""},
		{"short value", "session_token: abc123", ""},
		{"letters only", "session_token: " + strings.Repeat("abcdef", 5), ""},
		{"digits only", "session_token: " + strings.Repeat("123456", 5), ""},
		{"prefixed key", "received_session_token: " + tokA, ""},
		{"suffixed key", "session_token_hint: " + tokA, ""},
		{"key without value", "session_token:", ""},
		{"json nested only", `{"data":{"session_token":"` + tokA + `"}}`, ""},
		{"json number", `{"session_token":12345678901234567890123}`, "12345678901234567890123"},
		{"json object value", `{"session_token":{"v":"` + tokA + `"}}`, ""},
		// The key the server names is the contract: a JSON field's value is
		// taken as it is, short and without digits too (a 6-character
		// base32 session_index); only prose lines are shape-checked.
		{"json short value", `{"session_token":"ABCDEF"}`, "ABCDEF"},
		{"stand-in", "session_token: " + StandIn("session_token", tokA), ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, _, err := chooseText(c.text)
			if err != nil || got != c.want {
				t.Errorf("Choose(%q) = %q, %v; want %q", c.text, got, err, c.want)
			}
		})
	}
}

// The round-1 failure: prose and code before the real line.
func TestChooseRealWorkflowDescription(t *testing.T) {
	text := "# Workflow\nEach call needs:\n      - session_token: The current session token\n" +
		"```js\nresume_checkpoint({ session_token: resumed_session_token })\n```\n" +
		"A user once wrote: my session_token: ATTACKER0123456789abcdefXYZ is broken\n\n" +
		"session_token: " + tokA + "\n"
	got, src, err := chooseText(text)
	if err != nil || got != tokA || src != FromText {
		t.Fatalf("Choose = %q %q %v, want the real line", got, src, err)
	}
}

func TestChooseAmbiguous(t *testing.T) {
	cases := map[string]Result{
		"two lines":            {Texts: []string{"session_token: " + tokA + "\nsession_token: " + tokB}},
		"two blocks":           {Texts: []string{"session_token: " + tokA, `{"session_token":"` + tokB + `"}`}},
		"structured and text":  {Structured: gjson.Parse(`{"session_token":"` + tokA + `"}`), Texts: []string{"session_token: " + tokB}},
		"attacker bullet line": {Texts: []string{"- session_token: ATTACKER0123456789abcdefXYZ\nsession_token: " + tokA}},
	}
	for name, r := range cases {
		t.Run(name, func(t *testing.T) {
			got, _, err := Choose(r, Rules{Key: "session_token"})
			if !errors.Is(err, ErrAmbiguous) || got != "" {
				t.Fatalf("Choose = %q, %v; want ErrAmbiguous", got, err)
			}
			for _, tok := range []string{tokA, tokB} {
				if strings.Contains(err.Error(), tok) {
					t.Fatalf("the error repeats a token: %v", err)
				}
			}
		})
	}
	// The same token twice is not ambiguous.
	same := Result{Structured: gjson.Parse(`{"session_token":"` + tokA + `"}`), Texts: []string{"session_token: " + tokA, `{"session_token":"` + tokA + `"}`}}
	if got, src, err := Choose(same, Rules{Key: "session_token"}); err != nil || got != tokA || src != FromStructured {
		t.Fatalf("Choose(same token thrice) = %q %q %v", got, src, err)
	}
}

func TestChooseMetaWins(t *testing.T) {
	r := Result{
		Meta:  gjson.Parse(`{"session_token":"` + tokA + `"}`),
		Texts: []string{"session_token: " + tokB},
	}
	if got, src, err := Choose(r, Rules{Key: "session_token"}); err != nil || got != tokA || src != FromMeta {
		t.Fatalf("Choose = %q %q %v, want _meta's", got, src, err)
	}
	// _meta's value is the server's: taken as it is, short or not.
	r.Meta = gjson.Parse(`{"session_token":"ABCDEF"}`)
	if got, _, err := Choose(r, Rules{Key: "session_token"}); err != nil || got != "ABCDEF" {
		t.Fatalf("Choose with a short _meta value = %q, %v", got, err)
	}
	// One that cannot be taken (not printable, not a scalar, against the
	// declared pattern) is refused, not replaced by a guess from text.
	re, _ := CompilePattern(`[A-Z2-7]{6}`)
	for _, meta := range []string{`{"session_token":"a b"}`, `{"session_token":{"x":1}}`, `{"session_token":""}`} {
		r.Meta = gjson.Parse(meta)
		if got, _, err := Choose(r, Rules{Key: "session_token"}); err == nil || got != "" {
			t.Fatalf("Choose with _meta %s = %q, %v", meta, got, err)
		}
	}
	r.Meta = gjson.Parse(`{"session_token":"ABCDE1"}`)
	if got, _, err := Choose(r, Rules{Key: "session_token", Pattern: re}); err == nil || got != "" {
		t.Fatalf("Choose with _meta against --token-pattern = %q, %v", got, err)
	}
	// Keys with path characters are matched literally.
	if got, _, err := Choose(Result{Meta: gjson.Parse(`{"a.b":"` + tokA + `","a":{"b":"` + tokB + `"}}`)}, Rules{Key: "a.b"}); err != nil || got != tokA {
		t.Errorf("dotted key = %q %v", got, err)
	}
}

func TestRulesLooksLikeToken(t *testing.T) {
	r := Rules{Key: "session_token"}
	for v, want := range map[string]bool{
		tokA:                             true,
		"abc123":                         false, // short
		"abcdefghij0123456789":           true,  // exactly 20
		"abcdefghij012345678":            false,
		"abcdefghij 0123456789abc":       false,
		strings.Repeat("a", 40):          false,
		strings.Repeat("9", 40):          false,
		"caf\xc3\xa9" + tokA:             false,
		strings.Repeat("a1", MaxLen/2+1): false,
	} {
		if got := r.LooksLikeToken(v); got != want {
			t.Errorf("LooksLikeToken(%.30q) = %v, want %v", v, got, want)
		}
	}
	r.MinLen = 4
	if !r.LooksLikeToken("ab12") {
		t.Error("MinLen 4 refused ab12")
	}
	re, err := CompilePattern(`eyJ[A-Za-z0-9_-]+\.[0-9a-f]{64}`)
	if err != nil {
		t.Fatal(err)
	}
	r = Rules{Key: "session_token", Pattern: re}
	if !r.LooksLikeToken(tokA) || r.LooksLikeToken("x"+tokA) || r.LooksLikeToken(tokA+"0") {
		t.Error("--token-pattern must match the whole token")
	}
	// A declared pattern replaces the shape rules wholly: a base32 index
	// without a digit is taken (the letter/digit rule used to run first).
	b32, _ := CompilePattern(`[A-Z2-7]{6}`)
	r = Rules{Key: "session_index", Pattern: b32}
	if !r.LooksLikeToken("ABCDEF") || !r.LooksLikeToken("AB2CD7") || r.LooksLikeToken("ABCDE1") || r.LooksLikeToken("ABCDEFG") {
		t.Error("--token-pattern [A-Z2-7]{6} must take exactly six base32 characters")
	}
	if _, err := CompilePattern("("); err == nil || !strings.Contains(err.Error(), "--token-pattern") {
		t.Errorf("bad pattern error = %v", err)
	}
}
