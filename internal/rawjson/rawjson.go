// Package rawjson works on raw JSON text without decoding it: it walks the
// members of an object and measures nesting in one pass, and appends JSON
// strings. A hook payload can hold a tool result of megabytes; looking up an
// absent key with gjson, or iterating with gjson.ForEach (which unescapes
// every string value), costs a pass or a copy per lookup. Strings are skipped
// with IndexByte. Marshal encodes the records built from Go types, away from
// the hook's path.
package rawjson

import (
	"bytes"
	"strings"
	"unsafe"

	"github.com/tidwall/gjson"
)

// Fields calls visit for each member of the JSON object raw, in order, with
// the member's key (unescaped) and the raw text of its value, until visit
// returns false. raw should be valid JSON (callers validate the payload
// once); on anything but an object it visits nothing, and on invalid JSON it
// stops early or visits garbage, but never panics.
func Fields(raw string, visit func(key, value string) bool) {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return
	}
	i++
	for {
		i = skipSpace(raw, i)
		if i >= len(raw) || raw[i] == '}' {
			return
		}
		if raw[i] == ',' {
			i++
			continue
		}
		if raw[i] != '"' {
			return // not valid JSON: stop rather than guess
		}
		end := StringEnd(raw, i)
		if end <= i+1 || raw[end-1] != '"' {
			return // unterminated: not valid JSON
		}
		key := raw[i+1 : end-1]
		if strings.IndexByte(key, '\\') >= 0 {
			key = gjson.Parse(raw[i:end]).Str
		}
		i = skipSpace(raw, end)
		if i >= len(raw) || raw[i] != ':' {
			return
		}
		i = skipSpace(raw, i+1)
		vend := valueEnd(raw, i)
		if !visit(key, raw[i:vend]) {
			return
		}
		i = vend
	}
}

// StringEnd returns the index just past the string that starts with the
// quote at s[i], or len(s) when it is not terminated.
func StringEnd(s string, i int) int {
	for {
		j := strings.IndexByte(s[i+1:], '"')
		if j < 0 {
			return len(s)
		}
		i += j + 1
		// The quote ends the string unless an odd number of backslashes
		// precedes it.
		k := i - 1
		for k >= 0 && s[k] == '\\' {
			k--
		}
		if (i-1-k)%2 == 0 {
			return i + 1
		}
	}
}

func valueEnd(s string, i int) int {
	if i >= len(s) {
		return i
	}
	switch s[i] {
	case '"':
		return StringEnd(s, i)
	case '{', '[':
		depth := 0
		for ; i < len(s); i++ {
			switch s[i] {
			case '"':
				i = StringEnd(s, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
		}
		return i
	}
	for i < len(s) && strings.IndexByte(",}] \t\r\n", s[i]) < 0 {
		i++
	}
	return i
}

func skipSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n') {
		i++
	}
	return i
}

// DepthExceeds reports whether data nests objects and arrays deeper than
// max anywhere. It needs no valid JSON: it runs before validation, so that a
// recursive parser never sees a hostile nesting.
func DepthExceeds(data []byte, max int) bool { return depthExceeds(data, max, false) }

// DepthExceedsJSONC is DepthExceeds for JSON with comments (JSONC, HuJSON:
// the clients' settings files): a bracket or quote inside a // or /* */
// comment neither counts nor hides what follows. On plain JSON it reads the
// same as DepthExceeds.
func DepthExceedsJSONC(data []byte, max int) bool { return depthExceeds(data, max, true) }

func depthExceeds(data []byte, max int, comments bool) bool {
	if len(data) <= max {
		return false // each level takes a byte: too short to nest that deep
	}
	depth := 0
	for i := 0; i < len(data); i++ {
		switch data[i] {
		case '"':
			for {
				j := bytes.IndexByte(data[i+1:], '"')
				if j < 0 {
					return false // unterminated: the validator reports it
				}
				i += j + 1
				k := i - 1
				for k >= 0 && data[k] == '\\' {
					k--
				}
				if (i-1-k)%2 == 0 {
					break
				}
			}
		case '/':
			if !comments || i+1 == len(data) {
				continue
			}
			switch data[i+1] {
			case '/':
				j := bytes.IndexByte(data[i:], '\n')
				if j < 0 {
					return false
				}
				i += j
			case '*':
				j := bytes.Index(data[i+2:], []byte("*/"))
				if j < 0 {
					return false // unterminated: the parser reports it
				}
				i += j + 3
			}
		case '{', '[':
			depth++
			if depth > max {
				return true
			}
		case '}', ']':
			depth--
		}
	}
	return false
}

// AppendString appends s to dst as a JSON string, escaped the way
// JSON.stringify and serde_json do: '"', '\\' and control characters only
// (\b \f \n \r \t in their short forms). Other bytes are copied as they are.
func AppendString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0 // bytes since start need no escape: appended as one run
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		dst = append(dst, s[start:i]...)
		start = i + 1
		switch c {
		case '"', '\\':
			dst = append(dst, '\\', c)
		case '\b':
			dst = append(dst, '\\', 'b')
		case '\f':
			dst = append(dst, '\\', 'f')
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		default:
			dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		}
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// MapStrings calls fn on every string of the JSON text raw (object keys and
// values, at any depth), unescaped, in order; isKey tells which. When fn
// returns ok, the string is replaced by the returned one (escaped again);
// every other byte of raw is kept. It is one pass and does not recurse, so
// nesting depth costs nothing. raw should be valid JSON; on invalid JSON the
// output is unspecified but it never panics.
func MapStrings(raw string, fn func(s string, isKey bool) (string, bool)) (string, bool) {
	return mapStrings(raw, "", false, func(s string, isKey, _ bool) (string, bool) { return fn(s, isKey) })
}

// MapStringsUnder is MapStrings that also tells fn whether the string is
// inside the value of a member named key (at any depth of that value, its
// keys included; the member's own key is not), still in one pass without
// recursion: a token argument's value may be an object a model nested.
func MapStringsUnder(raw, key string, fn func(s string, isKey, under bool) (string, bool)) (string, bool) {
	return mapStrings(raw, key, true, fn)
}

func mapStrings(raw, key string, track bool, fn func(s string, isKey, under bool) (string, bool)) (string, bool) {
	var out []byte
	last, changed := 0, false
	depth, from := 0, -1 // from: with track, the depth of the object whose member named key is being read
	for i := 0; i < len(raw); i++ {
		if raw[i] != '"' {
			if track {
				switch raw[i] {
				case '{', '[':
					depth++
				case '}', ']':
					if depth == from {
						from = -1
					}
					depth--
				case ',':
					if depth == from {
						from = -1
					}
				}
			}
			continue
		}
		end := StringEnd(raw, i)
		if end <= i+1 || raw[end-1] != '"' {
			break // unterminated
		}
		s := raw[i+1 : end-1]
		if strings.IndexByte(s, '\\') >= 0 {
			s = gjson.Parse(raw[i:end]).Str
		}
		j := skipSpace(raw, end)
		isKey := j < len(raw) && raw[j] == ':'
		under := from >= 0
		if track && !under && isKey && s == key {
			from = depth
		}
		if repl, ok := fn(s, isKey, under); ok && repl != s {
			if out == nil {
				out = make([]byte, 0, len(raw)+64)
			}
			out = append(out, raw[last:i]...)
			out = AppendString(out, repl)
			last, changed = end, true
		}
		i = end - 1
	}
	if !changed {
		return raw, false
	}
	return ownedString(append(out, raw[last:]...)), true
}

// MapRawStrings is MapStrings without the unescaping: fn gets each string's
// inside as it stands in raw (escapes and all) and returns the new inside,
// which must be valid as a JSON string's inside. A walk that has nothing to
// replace in most strings (redaction: a held value is rare) skips the cost
// of unescaping them, and fn decodes the few it must (Unquote).
func MapRawStrings(raw string, fn func(inner string, isKey bool) (string, bool)) (string, bool) {
	var out []byte
	last, changed := 0, false
	for i := 0; i < len(raw); i++ {
		if raw[i] != '"' {
			continue
		}
		end := StringEnd(raw, i)
		if end <= i+1 || raw[end-1] != '"' {
			break // unterminated
		}
		j := skipSpace(raw, end)
		isKey := j < len(raw) && raw[j] == ':'
		inner := raw[i+1 : end-1]
		if repl, ok := fn(inner, isKey); ok && repl != inner {
			if out == nil {
				out = make([]byte, 0, len(raw)+64)
			}
			out = append(out, raw[last:i+1]...)
			out = append(out, repl...)
			out = append(out, '"')
			last, changed = end, true
		}
		i = end - 1
	}
	if !changed {
		return raw, false
	}
	return ownedString(append(out, raw[last:]...)), true
}

// ownedString is b as a string, without a copy: b must be a buffer nobody
// else holds, never written to again (a megabyte result is copied once, not
// twice).
func ownedString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// Unquote returns the string whose inside (as it stands in JSON text) is
// inner.
func Unquote(inner string) string {
	if strings.IndexByte(inner, '\\') < 0 {
		return inner
	}
	return gjson.Parse(`"` + inner + `"`).Str
}

// QuoteInner is AppendString's output for s without the quotes: s as it
// stands inside a JSON string.
func QuoteInner(s string) string {
	q := AppendString(make([]byte, 0, len(s)+2), s)
	return string(q[1 : len(q)-1])
}
