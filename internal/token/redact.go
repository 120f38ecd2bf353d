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
	label    string // the stand-in's label: the handle's name
	whole    bool   // replaced only where it stands as a whole word (short values)
	// raw1 and raw2 are the forms as they stand in JSON text once and twice
	// escaped (a text block inside a result; a JSON text inside it): what
	// redactRaw looks for without unescaping anything.
	raw1, raw2 []string
}

func spell(sets []Named) []spelledToken {
	var out []spelledToken
	for _, n := range sets {
		for _, tok := range n.Held {
			if len(tok) < MinStandIn {
				continue
			}
			st := spelledToken{forms: spellings(tok), tok: tok, shortest: len(tok), label: n.Name, whole: !IsLong(tok)}
			for _, f := range st.forms {
				st.shortest = min(st.shortest, len(f))
				r1 := rawjson.QuoteInner(f)
				st.raw1 = append(st.raw1, r1)
				st.raw2 = append(st.raw2, rawjson.QuoteInner(r1))
			}
			out = append(out, st)
		}
	}
	return out
}

// one is a single handle's values under the label key.
func one(key string, h Held) []Named { return []Named{{Name: key, Held: h}} }

// redactSpelled replaces every spelling of every token in s with the token's
// stand-in (made only when one is found). A long value is replaced wherever
// it stands: random text of LongValue characters or more cannot occur by
// chance, and a value glued to other text is still the value. A short value
// is replaced only where it stands as a whole word, never inside a longer
// one ("sha 9f00AB2CDE77" keeps its "AB2CDE").
func redactSpelled(s string, toks []spelledToken) (string, bool) {
	changed := false
	for _, st := range toks {
		if len(s) < st.shortest {
			continue
		}
		stand := ""
		for _, f := range st.forms {
			if !strings.Contains(s, f) {
				continue
			}
			if stand == "" {
				stand = StandIn(st.label, st.tok)
			}
			var did bool
			if st.whole {
				s, did = replaceWhole(s, f, stand)
			} else {
				s, did = strings.ReplaceAll(s, f, stand), true
			}
			changed = changed || did
		}
	}
	return s, changed
}

// replaceWhole replaces the occurrences of f in s that do not continue a
// word: the byte before and the byte after are not letters, digits or '_'
// where f's own first or last byte is one.
func replaceWhole(s, f, repl string) (string, bool) {
	return replaceWhere(s, f, repl, func(i, end int) bool {
		return (i == 0 || !isWordByte(s[i-1]) || !isWordByte(f[0])) && (end == len(s) || !isWordByte(s[end]) || !isWordByte(f[len(f)-1]))
	})
}

// replaceWhere replaces the occurrences of f in s, left to right and not
// overlapping, at which ok(start, end) holds; one that does not is passed
// over by one byte, so an overlapping one after it is still found.
func replaceWhere(s, f, repl string, ok func(i, end int) bool) (string, bool) {
	var b strings.Builder
	last, changed := 0, false
	for from := 0; from <= len(s)-len(f); {
		i := strings.Index(s[from:], f)
		if i < 0 {
			break
		}
		i += from
		end := i + len(f)
		if !ok(i, end) {
			from = i + 1
			continue
		}
		if !changed {
			b.Grow(len(s) + 2*len(repl))
		}
		b.WriteString(s[last:i])
		b.WriteString(repl)
		last, from, changed = end, end, true
	}
	if !changed {
		return s, false
	}
	b.WriteString(s[last:])
	return b.String(), true
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

// RedactString replaces every held token in s, in any of its spellings,
// with its stand-in. It reports whether anything changed.
func RedactString(s, key string, h Held) (string, bool) {
	return redactSpelled(s, spell(one(key, h)))
}

// StringRedactor is RedactString with the spellings of the held tokens
// worked out once, for redacting many strings against the same tokens (a
// view's every field of every request).
type StringRedactor struct{ toks []spelledToken }

// NewStringRedactor spells h (under the label key) once.
func NewStringRedactor(key string, h Held) StringRedactor {
	return StringRedactor{toks: spell(one(key, h))}
}

// Redact is RedactString(s, key, h) for the key and h r was made with.
func (r StringRedactor) Redact(s string) string {
	out, _ := redactSpelled(s, r.toks)
	return out
}

// RedactNamedString is RedactString for several handles' values.
func RedactNamedString(s string, sets []Named) (string, bool) {
	return redactSpelled(s, spell(sets))
}

// RedactJSON replaces every held token in every string (keys too, at any
// depth) of the JSON value raw with its stand-in. Strings are unescaped
// first, so escaped spellings are caught, and written back escaped; the
// result is valid JSON and every other byte is kept.
func RedactJSON(raw, key string, h Held) (string, bool) {
	if len(h) == 0 {
		return raw, false
	}
	toks := spell(one(key, h))
	return rawjson.MapStrings(raw, func(s string, _ bool) (string, bool) {
		return redactSpelled(s, toks)
	})
}

// RedactText redacts a text block the model reads: as JSON when the block is
// JSON (so escaped spellings are decoded), else as text.
func RedactText(text, key string, h Held) (string, bool) {
	return redactText(text, spell(one(key, h)))
}

// RedactNamedText is RedactText for several handles' values.
func RedactNamedText(text string, sets []Named) (string, bool) {
	return redactText(text, spell(sets))
}

func redactText(text string, toks []spelledToken) (string, bool) {
	if t := strings.TrimSpace(text); (strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[")) && gjson.Valid(t) {
		return rawjson.MapStrings(text, func(s string, _ bool) (string, bool) {
			return redactSpelled(s, toks)
		})
	}
	return redactSpelled(text, toks)
}

// RedactResult redacts an MCP tool result object (or any part of one): text
// blocks, embedded resources' text and uri, resource links, structuredContent
// and _meta. A text block holding JSON is itself JSON-escaped inside the
// result, so its strings are redacted once more as JSON text.
func RedactResult(raw, key string, h Held) (string, bool) {
	return RedactNamed(raw, one(key, h))
}

// RedactNamed is RedactResult for several handles' values, each replaced by
// a stand-in carrying its handle's name.
func RedactNamed(raw string, sets []Named) (string, bool) {
	toks := spell(sets)
	if len(toks) == 0 {
		return raw, false
	}
	return rawjson.MapRawStrings(raw, func(inner string, _ bool) (string, bool) {
		return redactRaw(inner, toks)
	})
}

// redactRaw is redactText for one JSON string, given as it stands in the
// JSON text (escaped), and returned the same way. A megabyte of text is not
// unescaped and escaped again for nothing:
//   - a string in which no form of any value stands, once or twice escaped
//     (and no \u or \/ escape, which spell a character another way than
//     the escaped forms do), holds none: it is left as it is;
//   - a string that cannot be JSON text once unescaped (it does not start
//     with '{' or '['), and holds no \u or \/, is redacted where it stands:
//     a value's form occurs in the unescaped text exactly where its escaped
//     form occurs in the raw text at a position no backslash escapes, and a
//     stand-in's escaped form replaces it there (replaceRaw);
//   - any other string is unescaped, redacted as text, and escaped again.
//
// FuzzRedactRawMatchesText holds the three ways to the same output.
func redactRaw(inner string, toks []spelledToken) (string, bool) {
	otherSpelling := strings.Contains(inner, `\u`) || strings.Contains(inner, `\/`)
	if !otherSpelling && !rawHolds(inner, toks) {
		return "", false
	}
	if !otherSpelling && !mayBeJSON(inner) {
		return replaceRaw(inner, toks)
	}
	red, ok := redactText(rawjson.Unquote(inner), toks)
	if !ok {
		return "", false
	}
	return rawjson.QuoteInner(red), true
}

// rawHolds reports whether a form of a value stands in the raw inside of a
// JSON string, once or twice escaped.
func rawHolds(inner string, toks []spelledToken) bool {
	for _, st := range toks {
		for i := range st.raw1 {
			if strings.Contains(inner, st.raw1[i]) || strings.Contains(inner, st.raw2[i]) {
				return true
			}
		}
	}
	return false
}

// mayBeJSON reports whether the string whose raw inside is inner could be
// JSON text once unescaped (redactText then redacts it as JSON): its first
// character after white space is '{' or '[', or cannot be told without
// decoding (a non-ASCII byte, which may be a Unicode space).
func mayBeJSON(inner string) bool {
	for i := 0; i < len(inner); i++ {
		switch c := inner[i]; {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
		case c == '\\' && i+1 < len(inner) && strings.IndexByte("ntrf", inner[i+1]) >= 0:
			i++ // an escaped white space
		default:
			return c == '{' || c == '[' || c >= 0x80
		}
	}
	return false
}

// replaceRaw is redactSpelled on the raw inside of a JSON string that holds
// no \u or \/ escape, without unescaping it: each value's forms, in the same
// order, replaced where their escaped forms stand at a position no
// backslash escapes (an even number of backslashes before it), a short value
// only where it stands as a whole word of the unescaped text.
func replaceRaw(inner string, toks []spelledToken) (string, bool) {
	changed := false
	for _, st := range toks {
		stand := ""
		for _, rf := range st.raw1 {
			if !strings.Contains(inner, rf) {
				continue
			}
			if stand == "" {
				stand = rawjson.QuoteInner(StandIn(st.label, st.tok))
			}
			var did bool
			inner, did = replaceEscaped(inner, rf, stand, st.whole)
			changed = changed || did
		}
	}
	return inner, changed
}

// replaceEscaped replaces the occurrences of f in the raw inside s of a
// JSON string that start at a character of their own (not inside an escape);
// with whole, only those whose unescaped neighbours do not continue a word
// (see replaceWhole).
func replaceEscaped(s, f, repl string, whole bool) (string, bool) {
	return replaceWhere(s, f, repl, func(i, end int) bool {
		return backslashesBefore(s, i)%2 == 0 && (!whole || !(wordBefore(s, i) && isWordByte(f[0]) || wordAt(s, end) && isWordByte(f[len(f)-1])))
	})
}

// backslashesBefore counts the backslashes right before s[i].
func backslashesBefore(s string, i int) int {
	n := 0
	for i-n-1 >= 0 && s[i-n-1] == '\\' {
		n++
	}
	return n
}

// wordBefore reports whether the unescaped character before the one at s[i]
// (an unescaped position) is a word byte: an escape's character never is
// (they decode to quotes, slashes, backslashes and control characters).
func wordBefore(s string, i int) bool {
	if i == 0 {
		return false
	}
	p := i - 1
	if s[p] == '\\' || backslashesBefore(s, p)%2 == 1 {
		return false
	}
	return isWordByte(s[p])
}

// wordAt reports whether the unescaped character at s[i] (an unescaped
// position) is a word byte.
func wordAt(s string, i int) bool {
	return i < len(s) && s[i] != '\\' && isWordByte(s[i])
}

// MaskedJSON is raw as a person or a parent agent may see it: every held
// token replaced with its stand-in (in keys too), and every string inside
// the value of a member named key (a token argument, held or not, at any
// depth, keys included) replaced with a stand-in of its own unless it is
// one already.
func MaskedJSON(raw, key string, h Held) string {
	return NewMasker(key, h).JSON(raw)
}

// Masker is MaskedJSON with the spellings of the held tokens worked out
// once, for a view that masks many pieces against the same tokens (a
// poll's events, its requests' inputs and their string fields).
type Masker struct {
	key  string
	toks []spelledToken
}

// NewMasker spells h (under the label key) once.
func NewMasker(key string, h Held) Masker {
	return Masker{key: key, toks: spell(one(key, h))}
}

// JSON is MaskedJSON(raw, key, h) for the key and h m was made with.
func (m Masker) JSON(raw string) string {
	out, _ := rawjson.MapStringsUnder(raw, m.key, func(s string, isKey, under bool) (string, bool) {
		if under && s != "" && !isStandInFor(s, m.key) {
			return StandIn(m.key, s), true
		}
		if isKey {
			return redactSpelled(s, m.toks)
		}
		return redactText(s, m.toks)
	})
	return out
}

// Text is a string value as JSON masks one outside a member named key:
// every held token as its stand-in, decoded first when the string is JSON
// itself. A typed view masks its fields with it and gets what masking its
// JSON would give.
func (m Masker) Text(s string) string {
	out, _ := redactText(s, m.toks)
	return out
}

// isStandInFor reports whether s is exactly a stand-in as StandIn(key, …)
// writes it (or the Placeholder): ParseStandIn alone would let any text
// before the handle through.
func isStandInFor(s, key string) bool {
	h, ok := ParseStandIn(s)
	return ok && (s == Placeholder || s == "["+key+" "+h+standInSuffix)
}
