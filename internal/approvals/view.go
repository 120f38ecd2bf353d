package approvals

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/tidwall/pretty"
)

// A request's tool name and input come from the model (a child can call
// permit with any tool_name), and a person reads them on a terminal: a raw
// ESC or C1 control would let the model redraw the screen or hide what it
// asks for, a bidi override would show text in another order than it runs.
// Every view renders those characters visibly.

// hidden reports a rune that must not reach a terminal or a reader as is:
// C0 controls, DEL, C1 controls (U+0080–U+009F, which some terminals obey
// like ESC sequences), the bidi marks, embeddings, overrides and isolates,
// and the Unicode line and paragraph separators.
func hidden(r rune) bool {
	switch {
	case r < 0x20, r >= 0x7f && r <= 0x9f:
		return true
	case r == 0x2028, r == 0x2029: // line and paragraph separators
		return true
	}
	// Format characters: bidi controls (U+202E turns text around), zero
	// width ones (U+200B, U+2060, U+FEFF), tag characters (U+E0000-E007F)
	// that hide text from a reader but not from a model.
	return r >= 0xad && unicode.Is(unicode.Cf, r)
}

// Visible renders s for a person's terminal, on one line: each hidden rune
// becomes its Go escape (\n, \x1b, \u202e) and each byte that is not UTF-8
// becomes \xNN. Printable text is kept as is.
func Visible(s string) string {
	if !needsEscape(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x80 && hidden(r):
			fmt.Fprintf(&b, `\x%02x`, r)
		case hidden(r) && r > 0xffff:
			fmt.Fprintf(&b, `\U%08x`, r)
		case hidden(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// VisibleJSON renders raw JSON with every hidden rune inside its strings as
// a \uXXXX escape (bytes that are not UTF-8 as \ufffd): the same JSON value
// for a parser, nothing a terminal or a model reading it obeys. Outside
// strings valid JSON holds only ASCII, so escaping wherever they occur is
// exact.
func VisibleJSON(raw string) string {
	if !needsEscape(raw) {
		return raw
	}
	var b strings.Builder
	for i := 0; i < len(raw); {
		r, n := utf8.DecodeRuneInString(raw[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			b.WriteString(`\ufffd`)
		case r == '\n' || r == '\r' || r == '\t':
			b.WriteRune(r) // only whitespace between tokens in valid JSON
		case hidden(r) && r > 0xffff:
			hi, lo := utf16.EncodeRune(r) // JSON spells it as a surrogate pair
			fmt.Fprintf(&b, `\u%04x\u%04x`, hi, lo)
		case hidden(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(raw[i : i+n])
		}
		i += n
	}
	return b.String()
}

// needsEscape is the fast path: plain printable ASCII needs nothing.
func needsEscape(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f {
			return true
		}
	}
	return false
}

// InputLines renders the request's input for a person: indented JSON, every
// line made Visible and wrapped at width runes (continuations indented two
// more than their line), so nothing of it is off screen or cut.
func (r Request) InputLines(width int) []string {
	width = max(width, 20)
	var out []string
	for _, line := range strings.Split(strings.TrimRight(string(pretty.Pretty([]byte(r.Input))), "\n"), "\n") {
		line = Visible(line)
		indent := len(line) - len(strings.TrimLeft(line, " "))
		cont := strings.Repeat(" ", min(indent+2, width/2))
		prefix := ""
		for {
			room := width - len(prefix)
			if utf8.RuneCountInString(line) <= room {
				out = append(out, prefix+line)
				break
			}
			cut := byteIndexOfRune(line, room)
			out = append(out, prefix+line[:cut])
			line, prefix = line[cut:], cont
		}
	}
	return out
}

// byteIndexOfRune is the byte offset of the n-th rune of s (len(s) if fewer).
func byteIndexOfRune(s string, n int) int {
	for i := range s {
		if n == 0 {
			return i
		}
		n--
	}
	return len(s)
}
