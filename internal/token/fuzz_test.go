package token

import (
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

func FuzzChoose(f *testing.F) {
	f.Add("session_token: "+tokA, `{"session_token":"x"}`, "session_token")
	f.Add("      - session_token: The current session token\nsession_token: "+tokA, "", "session_token")
	f.Add("<untrusted_context>\nsession_token="+tokB+"\n</untrusted_context>", `{"session_token":"`+tokA+`"}`, "session_token")
	f.Add(`received_session_token="x"; **session_token**: 'y'`, "{}", "session_token")
	f.Fuzz(func(t *testing.T, text, structured, key string) {
		r := Result{Texts: []string{text}}
		if gjson.Valid(structured) {
			r.Structured = gjson.Parse(structured)
		}
		rules := Rules{Key: key}
		tok, _, err := Choose(r, rules)
		if err != nil {
			if tok != "" {
				t.Fatalf("Choose returned %q with an error %v", tok, err)
			}
			return
		}
		if tok == "" {
			return
		}
		if !rules.LooksLikeToken(tok) {
			t.Fatalf("Choose(%q) = %q, which does not look like a token", text, tok)
		}
		if !strings.Contains(text, tok) && !strings.Contains(structured, tok) && !gjson.Valid(strings.TrimSpace(text)) && !strings.Contains(text, "untrusted_context") {
			t.Fatalf("Choose(%q) = %q: not from the result", text, tok)
		}
	})
}

func FuzzRedactResult(f *testing.F) {
	f.Add(`{"content":[{"type":"text","text":"session_token: `+tokA+`"}],"_meta":{"session_token":"`+tokA+`"}}`, tokA)
	f.Add(`{"u":"abc\/def0123456789abcdefghij"}`, "abc/def0123456789abcdefghij")
	f.Add(`["abcdefgh0123456789abab","x"]`, "abcdefgh0123456789abab")
	f.Fuzz(func(t *testing.T, raw, tok string) {
		if !gjson.Valid(raw) || !(Rules{Key: "session_token"}).LooksLikeToken(tok) {
			return
		}
		out, changed := RedactResult(raw, "session_token", Held{tok})
		if !gjson.Valid(out) {
			t.Fatalf("RedactResult(%q) = invalid %q", raw, out)
		}
		if !changed && out != raw {
			t.Fatalf("unchanged but different: %q -> %q", raw, out)
		}
		var leaked bool
		walk(gjson.Parse(out), func(s string) {
			if strings.Contains(s, tok) {
				leaked = true
			}
		})
		if leaked {
			t.Fatalf("token survived in a string of %q", out)
		}
	})
}

// walk calls fn on every string (keys too) of v, unescaped.
func walk(v gjson.Result, fn func(string)) {
	switch {
	case v.IsObject():
		v.ForEach(func(k, x gjson.Result) bool { fn(k.Str); walk(x, fn); return true })
	case v.IsArray():
		v.ForEach(func(_, x gjson.Result) bool { walk(x, fn); return true })
	case v.Type == gjson.String:
		fn(v.Str)
	}
}

func FuzzResolveStandIns(f *testing.F) {
	f.Add(`{"session_token":"` + StandIn("session_token", tokA) + `","p":"` + Placeholder + `"}`)
	f.Add(`{"a":["[k 00000000 held by interceptor]"]}`)
	f.Fuzz(func(t *testing.T, args string) {
		if !gjson.Valid(args) {
			return
		}
		out, changed, err := ResolveStandIns(args, Held{tokA, tokB})
		if !gjson.Valid(out) || (err != nil || !changed) && out != args {
			t.Fatalf("ResolveStandIns(%q) = %q %v %v", args, out, changed, err)
		}
	})
}

func FuzzInject(f *testing.F) {
	f.Add(`{"step":"one"}`, "session_token")
	f.Add(`{"a.b":1}`, "a.b")
	f.Add(`{}`, "*")
	f.Fuzz(func(t *testing.T, args, key string) {
		if !gjson.Valid(args) {
			return // Inject takes arguments from an already parsed payload
		}
		out, err := Inject(args, key, "TOKEN-1234")
		if err != nil {
			return
		}
		if !gjson.ValidBytes(out) {
			t.Fatalf("Inject(%q, %q) = invalid %q", args, key, out)
		}
		if key != "" && gjson.GetBytes(out, gjson.Escape(key)).Str != "TOKEN-1234" {
			t.Fatalf("Inject(%q, %q) = %q: token not under key", args, key, out)
		}
	})
}

// FuzzMaskedJSON: what a person or a parent agent is shown. Valid JSON in,
// valid JSON out; no held token survives in any string in any spelling
// redaction claims to catch (as is, JSON-escaped, "\/", percent-encoded);
// every string value under a member named key, at any depth, is a stand-in
// (or empty).
func FuzzMaskedJSON(f *testing.F) {
	f.Add(`{"session_token":"`+tokA+`","note":"see `+tokA+`"}`, tokA, tokB)
	f.Add(`{"cmd":"curl -H 'T: `+tokB+`'","args":["x","`+tokA+`"]}`, tokA, tokB)
	f.Add(`{"u":"https://h/x?t=abc%2Fdef0123456789abcdefghij","v":"abc\/def0123456789abcdefghij"}`, "abc/def0123456789abcdefghij", tokB)
	f.Add(`{"text":"{\"session_token\":\"`+tokA+`\"}"}`, tokA, "")
	f.Add(`{"session_token":{"inner":"unheld-secret-0123456789abc","n":["deeper-secret-0123456789"]},"after":"shown"}`, tokA, tokB)
	f.Add(`{"session_token":["`+tokB+`",""],"parent_session_token":"`+StandIn("session_token", tokA)+`"}`, tokA, tokB)
	f.Add(`[{"session_token":1},"a",{"x":{"session_token":"unheld-0123456789abcdefgh"}}]`, "", "")
	f.Add(`{"q":"a \"quoted\" `+tokA+` \u0000 tail"}`, tokA, tokB)
	f.Add(`{"`+tokA+`":1,"session_token":{"unheld-key-0123456789abcdef":2}}`, tokA, tokB)
	f.Add(`{"session_token":"[unheld-secret-0123456789 00000000 held by interceptor]"}`, "", "")
	f.Fuzz(func(t *testing.T, raw, tok1, tok2 string) {
		if !gjson.Valid(raw) {
			return
		}
		const key = "session_token"
		var held Held
		for _, tok := range []string{tok1, tok2} {
			// A held token is one capture accepted; a stand-in holds spaces,
			// so no token can straddle one.
			if (Rules{Key: key}).LooksLikeToken(tok) {
				held = append(held, tok)
			}
		}
		out := MaskedJSON(raw, key, held)
		if !gjson.Valid(out) {
			t.Fatalf("MaskedJSON(%q) = invalid %q", raw, out)
		}
		walk(gjson.Parse(out), func(s string) {
			for _, tok := range held {
				for _, form := range spellings(tok) {
					if strings.Contains(s, form) {
						t.Fatalf("MaskedJSON(%q) = %q: the token %q survives as %q", raw, out, tok, form)
					}
				}
			}
		})
		underKey(gjson.Parse(out), key, false, func(s string) {
			// Only a stand-in of the form MaskedJSON makes: any other text
			// in one ("[<secret> 00000000 held by interceptor]") is shown.
			h, _ := ParseStandIn(s)
			if s != "" && s != Placeholder && s != "["+key+" "+h+standInSuffix {
				t.Fatalf("MaskedJSON(%q) = %q: %q under %s survives", raw, out, s, key)
			}
		})
	})
}

// underKey calls fn on every string (keys too) inside the value of a member
// named key, at any depth.
func underKey(v gjson.Result, key string, under bool, fn func(string)) {
	switch {
	case v.IsObject():
		v.ForEach(func(k, x gjson.Result) bool {
			if under {
				fn(k.Str)
			}
			underKey(x, key, under || k.Str == key, fn)
			return true
		})
	case v.IsArray():
		v.ForEach(func(_, x gjson.Result) bool { underKey(x, key, under, fn); return true })
	case v.Type == gjson.String && under:
		fn(v.Str)
	}
}
