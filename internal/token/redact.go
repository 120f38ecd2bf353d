package token

import (
	"bytes"
	"strings"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// RedactText removes tok from a text block the model would read. A JSON
// object text loses its key field; a line that only states `key: tok` is
// dropped whole; any other occurrence becomes Placeholder. It reports whether
// anything changed.
func RedactText(text, key, tok string) (string, bool) {
	if tok == "" {
		return text, false
	}
	trimmed := strings.TrimSpace(text)
	if strings.HasPrefix(trimmed, "{") && gjson.Valid(trimmed) {
		out, ok := RedactJSON([]byte(text), key, tok)
		return string(out), ok
	}
	if !strings.Contains(text, tok) {
		return text, false
	}
	var b strings.Builder
	b.Grow(len(text))
	for line := range strings.Lines(text) {
		if !strings.Contains(line, tok) {
			b.WriteString(line)
			continue
		}
		if keyAt, start, end, ok := findKeyValue(line, key); ok && line[start:end] == tok {
			rest := line[:keyAt] + line[end:]
			if !hasWordByte(rest) {
				continue // the line only carried the token: drop it
			}
		}
		b.WriteString(strings.ReplaceAll(line, tok, Placeholder))
	}
	return b.String(), true
}

// RedactJSON removes tok from a JSON object: the top-level key is deleted when
// it holds tok, and any other string holding tok has it replaced by
// Placeholder. It reports whether anything changed; on a result that would not
// be valid JSON it changes nothing.
func RedactJSON(obj []byte, key, tok string) ([]byte, bool) {
	if tok == "" {
		return obj, false
	}
	out := obj
	path := gjson.Escape(key)
	if v := gjson.GetBytes(out, path); v.Type == gjson.String && v.Str == tok {
		if d, err := sjson.DeleteBytes(out, path); err == nil {
			out = d
		}
	}
	// A raw replace is only safe when the token has no byte JSON escapes.
	if !strings.ContainsAny(tok, `"\`) && bytes.Contains(out, []byte(tok)) {
		out = bytes.ReplaceAll(out, []byte(tok), []byte(Placeholder))
	}
	if !gjson.ValidBytes(out) {
		return obj, false
	}
	return out, !bytes.Equal(out, obj)
}

func hasWordByte(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80 {
			return true
		}
	}
	return false
}
