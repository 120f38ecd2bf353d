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
