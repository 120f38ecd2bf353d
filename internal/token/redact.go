package token

import (
	"strings"

	"github.com/interceptor-dev/interceptor/internal/rawjson"
	"github.com/tidwall/gjson"
)

// Redaction replaces exactly the held token values with their stand-ins,
// wherever they stand and however they are spelled (raw, JSON-escaped,
// with "/" escaped as "\/", percent-encoded), and nothing else: never a word,
// never the key. The same walk serves hook mode and proxy mode, and every
// view a person or a parent agent reads.

// spellings returns the forms tok can take inside text: as it is, as the
// inside of a JSON string (also with "/" escaped), percent-encoded.
func spellings(tok string) []string {
	forms := []string{tok}
	add := func(f string) {
		for _, g := range forms {
			if g == f {
				return
			}
		}
		forms = append(forms, f)
	}
	esc := string(rawjson.AppendString(nil, tok))
	esc = esc[1 : len(esc)-1]
	add(esc)
	add(strings.ReplaceAll(esc, "/", `\/`))
	add(percentEncode(tok))
	return forms
}

// percentEncode escapes every byte outside RFC 3986's unreserved set.
func percentEncode(s string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-._~", c) >= 0 {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&0xf])
	}
	return b.String()
}

// spelledToken is one held token's spellings, worked out once per
// redaction rather than once per string it looks at.
type spelledToken struct {
	forms    []string
	shortest int
	tok      string
}

func spell(h Held) []spelledToken {
	out := make([]spelledToken, 0, len(h))
	for _, tok := range h {
		if tok == "" {
			continue
		}
		st := spelledToken{forms: spellings(tok), tok: tok, shortest: len(tok)}
		for _, f := range st.forms {
			st.shortest = min(st.shortest, len(f))
		}
		out = append(out, st)
	}
	return out
}

// redactSpelled replaces every spelling of every token in s with the token's
// stand-in (made only when one is found).
func redactSpelled(s, key string, toks []spelledToken) (string, bool) {
	changed := false
	for _, st := range toks {
		if len(s) < st.shortest {
			continue
		}
		stand := ""
		for _, f := range st.forms {
			if strings.Contains(s, f) {
				if stand == "" {
					stand = StandIn(key, st.tok)
				}
				s = strings.ReplaceAll(s, f, stand)
				changed = true
			}
		}
	}
	return s, changed
}

// RedactString replaces every held token in s, in any of its spellings,
// with its stand-in. It reports whether anything changed.
func RedactString(s, key string, h Held) (string, bool) {
	return redactSpelled(s, key, spell(h))
}

// RedactJSON replaces every held token in every string (keys too, at any
// depth) of the JSON value raw with its stand-in. Strings are unescaped
// first, so escaped spellings are caught, and written back escaped; the
// result is valid JSON and every other byte is kept.
func RedactJSON(raw, key string, h Held) (string, bool) {
	if len(h) == 0 {
		return raw, false
	}
	toks := spell(h)
	return rawjson.MapStrings(raw, func(s string, _ bool) (string, bool) {
		return redactSpelled(s, key, toks)
	})
}

// RedactText redacts a text block the model reads: as JSON when the block is
// JSON (so escaped spellings are decoded), else as text.
func RedactText(text, key string, h Held) (string, bool) {
	return redactText(text, key, spell(h))
}

func redactText(text, key string, toks []spelledToken) (string, bool) {
	if t := strings.TrimSpace(text); (strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[")) && gjson.Valid(t) {
		return rawjson.MapStrings(text, func(s string, _ bool) (string, bool) {
			return redactSpelled(s, key, toks)
		})
	}
	return redactSpelled(text, key, toks)
}

// RedactResult redacts an MCP tool result object (or any part of one): text
// blocks, embedded resources' text and uri, resource links, structuredContent
// and _meta. A text block holding JSON is itself JSON-escaped inside the
// result, so its strings are redacted once more as JSON text.
func RedactResult(raw, key string, h Held) (string, bool) {
	if len(h) == 0 {
		return raw, false
	}
	toks := spell(h)
	return rawjson.MapStrings(raw, func(s string, _ bool) (string, bool) {
		return redactText(s, key, toks)
	})
}

// MaskedJSON is raw as a person or a parent agent may see it: every held
// token replaced with its stand-in (in keys too), and every string inside
// the value of a member named key (a token argument, held or not, at any
// depth, keys included) replaced with a stand-in of its own unless it is
// one already.
func MaskedJSON(raw, key string, h Held) string {
	toks := spell(h)
	out, _ := rawjson.MapStringsUnder(raw, key, func(s string, isKey, under bool) (string, bool) {
		if under && s != "" && !isStandInFor(s, key) {
			return StandIn(key, s), true
		}
		if isKey {
			return redactSpelled(s, key, toks)
		}
		return redactText(s, key, toks)
	})
	return out
}

// isStandInFor reports whether s is exactly a stand-in as StandIn(key, …)
// writes it (or the Placeholder): ParseStandIn alone would let any text
// before the handle through.
func isStandInFor(s, key string) bool {
	h, ok := ParseStandIn(s)
	return ok && (s == Placeholder || s == "["+key+" "+h+standInSuffix)
}
