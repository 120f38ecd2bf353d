package token

import (
	"errors"
	"github.com/interceptor-dev/interceptor/internal/rawjson"
	"regexp"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// FuzzChoose: the candidate rules. text is one text block; tok1 and tok2,
// when given, become lines "key: tok" before and after it. The invariants:
// a value returned looks like a token under the rules (MinLen, Pattern are
// fuzzed too); it is _meta.<key> whenever _meta has the key, else it stands
// in the result as structuredContent.<key>, the <key> field of a text block
// that is a JSON object, or the whole value of a `key: value` line; two
// different well-formed values in lines (and no _meta) are ErrAmbiguous.
func FuzzChoose(f *testing.F) {
	const k = "session_token"
	long := strings.Repeat("a1", MaxLen/2)
	for _, c := range []struct {
		text, structured, meta, key string
		minLen                      int
		pattern, tok1, tok2         string
	}{
		{text: "session_token: " + tokA, structured: `{"session_token":"x"}`, key: k},
		// prose, bullets, code, mid-sentence, a quoted third party
		{text: "      - session_token: The current session token\nsession_token: " + tokA, key: k},
		{text: "Pass the session_token: it is required on every call.", key: k},
		{text: "  - session_token: " + tokA + "\n* session_token: " + tokA + "\n1) session_token: " + tokA + "\n• session_token: " + tokA, key: k},
		{text: "```js\nresume_checkpoint({ session_token: resumed_session_token })\nresume({ session_token: " + tokB + " })\n```", key: k},
		{text: "my session_token: ATTACKER0123456789abcdefXYZ is broken", key: k},
		{text: "for example, session_token: " + tokB, key: k},
		{text: `> the user wrote "my session_token: ` + tokB + `"` + "\nsession_token: " + tokA, key: k},
		{text: `received_session_token="x"; **session_token**: 'y'` + "\n**session_token:** `" + tokA + "`", structured: "{}", key: k},
		// two different tokens, in lines, in structuredContent, in _meta
		{text: "step done", key: k, tok1: tokA, tok2: tokB},
		{text: "session_token: " + tokB, structured: `{"session_token":"` + tokA + `"}`, key: k},
		{text: "session_token: " + tokA, meta: `{"session_token":"` + tokB + `"}`, key: k, tok2: tokA},
		{text: "session_token: " + tokA, meta: `{"session_token":"The"}`, key: k},
		// JSON text, TOON lines, Gemini CLI's wrapper
		{text: `{"step":"one","session_token":"` + tokA + `","data":{"session_token":"` + tokB + `"}}`, key: k},
		{text: "result:\n  step: one\n  session_token: \"" + tokA + "\"\n  steps[1]{name,session_token}:\n    plan," + tokB, key: k},
		{text: "<untrusted_context>\nsession_token=" + tokB + "\n</untrusted_context>", structured: `{"session_token":"` + tokA + `"}`, key: k},
		// escaped forms
		{text: `{"session_token":"abc\/def0123456789abcdefgh\u0041"}`, key: k},
		{text: `session_token: "abc\/def0123456789abcdefgh"`, key: k},
		{text: "session_token: abc%2Fdef0123456789abcdefgh", structured: `{"session_token":"abc/def0123456789abcdefgh"}`, key: k},
		// very short and very long values, MinLen and Pattern
		{text: "session_token: a1", key: k},
		{text: "session_token: a1", key: k, minLen: 2},
		{text: "session_token: " + long, key: k},
		{text: "session_token: " + long + "x", key: k},
		{text: "session_token: " + tokA, key: k, pattern: `eyJ[A-Za-z0-9_-]+\.[0-9a-f]{64}`, tok2: "eyJ0123456789abcdefghij"},
		{text: "session_token: " + tokA, key: k, pattern: `[0-9]+`},
		{text: "token=" + tokA, key: "token", minLen: 1000},
		{text: "a: " + tokA, key: "a", tok1: tokB},
	} {
		f.Add(c.text, c.structured, c.meta, c.key, c.minLen, c.pattern, c.tok1, c.tok2)
	}
	f.Fuzz(func(t *testing.T, text, structured, meta, key string, minLen int, pattern, tok1, tok2 string) {
		rules := Rules{Key: key, MinLen: minLen}
		if len(pattern) > 64 {
			return
		}
		if pattern != "" {
			re, err := CompilePattern(pattern)
			if err != nil {
				return
			}
			rules.Pattern = re
		}
		if tok1 != "" {
			text = key + ": " + tok1 + "\n" + text
		}
		if tok2 != "" {
			text += "\n" + key + ": " + tok2
		}
		r := Result{Texts: []string{text}}
		if gjson.Valid(structured) {
			r.Structured = gjson.Parse(structured)
		}
		if gjson.Valid(meta) {
			r.Meta = gjson.Parse(meta)
		}
		path := gjson.Escape(key)
		tok, src, err := Choose(r, rules)
		if err != nil && tok != "" {
			t.Fatalf("Choose returned %q with an error %v", tok, err)
		}
		if m := r.Meta.Get(path); m.Exists() {
			// _meta is the server's own channel: nothing else is asked, and
			// its value is taken as it is (a string or a number, printable,
			// bounded, matching a declared pattern).
			want := ""
			if v, ok := scalar(m); ok && Validate(v) == nil && (rules.Pattern == nil || rules.Pattern.MatchString(v)) {
				want = v
			}
			if tok != want || src != FromMeta || (want == "") != (err != nil) {
				t.Fatalf("_meta.%s = %s: Choose = %q %q %v", key, m.Raw, tok, src, err)
			}
			return
		}
		if well := func(v string) bool { return rules.LooksLikeToken(v) && plainToken(v) }; well(tok1) && well(tok2) && tok1 != tok2 && plainKey(key) {
			if !errors.Is(err, ErrAmbiguous) {
				t.Fatalf("two different tokens in lines, %q and %q: Choose = %q %v; want ErrAmbiguous", tok1, tok2, tok, err)
			}
		}
		if tok == "" {
			return
		}
		// A value under the declared key (structuredContent, a JSON text
		// field) is taken as it is; one from a prose line must look like a
		// token.
		field := func(v gjson.Result) bool { s, ok := scalar(v); return ok && s == tok }
		var from bool
		switch src {
		case FromStructured:
			from = field(r.Structured.Get(path))
		case FromText:
			from = field(jsonTextFieldValue(text, path)) || isKeyLineValue(text, key, tok) && rules.LooksLikeToken(tok)
		}
		if Validate(tok) != nil || rules.Pattern != nil && !rules.Pattern.MatchString(tok) {
			t.Fatalf("Choose(%q) = %q, which is not printable or misses the pattern", text, tok)
		}
		if !from {
			t.Fatalf("Choose(%q, structured %q) = %q from %q: it does not stand there as a value of %q", text, structured, tok, src, key)
		}
	})
}

// jsonTextFieldValue is the value at path of a text block that is a JSON
// object (inside Gemini CLI's wrapper or not).
func jsonTextFieldValue(text, path string) gjson.Result {
	for _, body := range []string{text, unwrapped(text)} {
		if body = strings.TrimSpace(body); strings.HasPrefix(body, "{") && gjson.Valid(body) {
			return gjson.Get(body, path)
		}
	}
	return gjson.Result{}
}

func unwrapped(text string) string {
	body := strings.TrimSpace(text)
	body = strings.TrimPrefix(body, "<untrusted_context>")
	return strings.TrimSuffix(body, "</untrusted_context>")
}

// isKeyLineValue reports whether some line of text is nothing but the key
// and tok: a looser rule than Choose's (an independent one), so that what
// Choose takes must pass it. Before the key: whitespace, a list bullet,
// quotes or emphasis; between: those, ':' or '=' and whitespace; after tok:
// a closing quote and whitespace.
func isKeyLineValue(text, key, tok string) bool {
	if key == "" || tok == "" {
		return false
	}
	for _, body := range []string{text, unwrapped(text)} {
		for _, line := range strings.Split(body, "\n") {
			l := strings.TrimRight(line, " \t\r")
			end := len(l)
			if !strings.HasSuffix(l, tok) && end > 0 && strings.IndexByte("\"'`", l[end-1]) >= 0 {
				end-- // a closing quote
			}
			if !strings.HasSuffix(l[:end], tok) {
				continue
			}
			valueAt := end - len(tok)
			// The key stands after nothing but whitespace, a bullet, quotes
			// and emphasis: only occurrences up to the first other byte.
			lead := len(l)
			if k := strings.IndexFunc(l, func(r rune) bool { return !strings.ContainsRune(" \t-*+•0123456789.)\"'`_", r) }); k >= 0 {
				lead = k
			}
			for p := strings.Index(l, key); p >= 0 && p <= lead && p+len(key) <= valueAt; {
				if keyLinePrefix.MatchString(l[:p]) && keyLineMiddle.MatchString(l[p+len(key):valueAt]) {
					return true
				}
				next := strings.Index(l[p+1:], key)
				if next < 0 {
					break
				}
				p += 1 + next
			}
		}
	}
	return false
}

var (
	keyLinePrefix = regexp.MustCompile(`^[ \t]*(?:(?:[-*+]|•|[0-9]+[.)]) [ \t]*)?["'` + "`" + `*_]*$`)
	keyLineMiddle = regexp.MustCompile(`^["'` + "`" + `*_]*[ \t]*[:=]["'` + "`" + `*_]*[ \t]*["'` + "`" + `]?$`)
)

// plainToken and plainKey bound the ambiguity invariant to values and keys
// whose line "key: tok" is unmistakably one candidate: no quotes or
// emphasis to be stripped, no line breaks.
func plainToken(v string) bool {
	return strings.Trim(v, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-.~+/=") == ""
}

func plainKey(k string) bool {
	return k != "" && strings.Trim(k, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._") == "" && k[0] != '-' && k[0] != '_'
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

// FuzzRedactRawMatchesText: RedactNamed, which redacts strings where they
// stand in the JSON text when it can (redactRaw), gives byte for byte what
// unescaping every string, redacting it as text and escaping it again gives
// (the way it used to work, kept here as the reference), for long and short
// values, once and twice escaped, next to escapes and words.
func FuzzRedactRawMatchesText(f *testing.F) {
	f.Add(`{"t":"session_token: `+tokA+`\nnext"}`, tokA, "AB2CDE")
	f.Add(`{"t":"sha 9f00AB2CDE77, index AB2CDE.\nAB2CDE\\nAB2CDE"}`, tokB, "AB2CDE")
	f.Add(`{"t":"{\"session_token\":\"`+tokA+`\",\"x\":\"AB2CDE\"}"}`, tokA, "AB2CDE")
	f.Add(`{"u":"abc\/def0123456789abcdefghij","v":"\\nAB2CDE\\\\AB2CDE"}`, "abc/def0123456789abcdefghij", "AB2CDE")
	f.Add(`["a\"b0123456789abcdefghijk","n0123456789abcdefghijk \\n0123456789abcdefghijk"]`, `a"b0123456789abcdefghijk`, "n0123456789abcdefghijk")
	f.Add(`{"k \u0041B2CDE":"\tAB2CDE\t"}`, tokA, "AB2CDE")
	f.Fuzz(func(t *testing.T, raw, long, short string) {
		if !gjson.Valid(raw) {
			return
		}
		var sets []Named
		if Validate(long) == nil && len(long) >= MinStandIn {
			sets = append(sets, Named{Name: "session_token", Held: Held{long}})
		}
		if Validate(short) == nil && len(short) >= MinStandIn && short != long {
			sets = append(sets, Named{Name: "session_index", Held: Held{short}})
		}
		got, gotChanged := RedactNamed(raw, sets)
		toks := spell(sets)
		want, wantChanged := raw, false
		if len(toks) > 0 {
			want, wantChanged = rawjson.MapStrings(raw, func(s string, _ bool) (string, bool) { return redactText(s, toks) })
		}
		if got != want || gotChanged != wantChanged {
			t.Fatalf("RedactNamed(%q, %q, %q):\n got %q (%v)\nwant %q (%v)", raw, long, short, got, gotChanged, want, wantChanged)
		}
	})
}

// FuzzMaskerText: a typed view masks its string fields with Masker.Text and
// must get what MaskedJSON gives for the same string as a member's value
// (not under key): what the view showed when it masked its JSON whole.
func FuzzMaskerText(f *testing.F) {
	f.Add("see "+tokA+" here", tokA, tokB)
	f.Add(`{"session_token":"`+tokA+`","note":"\u0041`+tokB+`"}`, tokA, tokB)
	f.Add("session_token: "+tokB+"\n\u202e\x1b[0m", tokA, tokB)
	f.Add("https://h/x?t=abc%2Fdef0123456789abcdefghij", "abc/def0123456789abcdefghij", "")
	f.Add("[1,\""+tokA+"\"]", tokA, "")
	f.Fuzz(func(t *testing.T, s, tok1, tok2 string) {
		const key = "session_token"
		var held Held
		for _, tok := range []string{tok1, tok2} {
			if (Rules{Key: key}).LooksLikeToken(tok) {
				held = append(held, tok)
			}
		}
		doc := string(rawjson.AppendString([]byte(`{"v":`), s)) + "}"
		want := gjson.Get(MaskedJSON(doc, key, held), "v").Str
		if got := NewMasker(key, held).Text(s); got != want {
			t.Fatalf("Masker.Text(%q) = %q, MaskedJSON gives %q", s, got, want)
		}
	})
}
