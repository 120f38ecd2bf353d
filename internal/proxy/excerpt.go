package proxy

import (
	"bytes"
	"strings"
	"unicode/utf8"
)

// Excerpt is at most max bytes of text (say, an HTTP error body) on one
// line, for a message the client, and so the model, reads. Every held
// token is replaced by its stand-in before the text is cut: cut first, a
// token across the cut would no longer be recognized and most of it would
// go out in clear. A cut that leaves the start of a held token at the end
// drops it; truncated says text itself was cut short already (its end may
// be such a start).
func (r *Rewriter) Excerpt(text []byte, max int, truncated bool) string {
	if redacted, ok := r.redact(text, false); ok {
		text = redacted
	}
	s := string(bytes.Join(bytes.Fields(text), []byte{' '}))
	if len(s) <= max && !truncated {
		return s
	}
	if len(s) > max {
		cut := max
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut]
	}
	s = s[:len(s)-tokenStartAtEnd(s, r.secretValues())]
	return s + "…"
}

// tokenStartAtEnd is the length of the longest end of s that is the start
// of a held token (0 when none is).
func tokenStartAtEnd(s string, held []string) int {
	n := 0
	for _, tok := range held {
		if tok == "" {
			continue
		}
		// From the longest candidate end (one byte short of the whole
		// token, which redaction replaced already) to the shortest.
		for i := max(0, len(s)-len(tok)+1); i < len(s)-n; i++ {
			if s[i] == tok[0] && strings.HasPrefix(tok, s[i:]) {
				n = len(s) - i
				break
			}
		}
	}
	return n
}
