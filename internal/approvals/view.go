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
// permit with any tool_name), and a person reads them on a terminal or the
// inbox page: a raw ESC or C1 control would let the model redraw the
// screen or hide what it asks for, a bidi override would show text in
// another order than it runs, and a character that draws nothing (U+2800,
// U+3164, a variation selector, a tag character) hides what follows it:
// 3,000 of them pushed "; curl … | sh" below the page's card (issue 29).
// Every view renders those characters visibly, and a person's views
// (Visible) show a long stretch of them as one counted form, so the tail
// of an input stays next to its head.

// hidden reports a rune that must not reach a terminal or a reader as is:
// C0 controls, DEL, C1 controls (U+0080–U+009F, which some terminals obey
// like ESC sequences); every rune that is not graphic (format characters
// such as the bidi controls, zero widths, U+00AD and the tag characters;
// the line and paragraph separators; private use and unassigned code
// points, which draw as blank or as a font's whim); every space but
// U+0020 (U+00A0 joins two words into one argument yet looks like a
// break); and the graphic runes that draw nothing: the rest of Unicode's
// Default_Ignorable_Code_Point (U+034F, the Hangul fillers U+115F, U+1160,
// U+3164, U+FFA0, the variation selectors) and U+2800 BRAILLE PATTERN
// BLANK.
func hidden(r rune) bool {
	switch {
	case r < 0x20, r >= 0x7f && r <= 0x9f:
		return true
	case r < 0xa0:
		return false
	case r >= 0x4e00 && r <= 0x9fff, r >= 0xac00 && r <= 0xd7a3:
		return false // CJK ideographs, Hangul syllables: all assigned and graphic
	}
	return !unicode.IsGraphic(r) || unicode.Is(blankGraphic, r)
}

// blankGraphic are the graphic runes from U+00A0 on that draw nothing or
// draw as a space: Zs but U+0020, Other_Default_Ignorable_Code_Point,
// Variation_Selector, and U+2800. One table, not four: hidden runs on
// every rune of a record (TestBlankGraphic holds it to Unicode's tables).
var blankGraphic = &unicode.RangeTable{
	R16: []unicode.Range16{
		{Lo: 0x00a0, Hi: 0x00a0, Stride: 1},
		{Lo: 0x034f, Hi: 0x034f, Stride: 1},
		{Lo: 0x115f, Hi: 0x1160, Stride: 1},
		{Lo: 0x1680, Hi: 0x1680, Stride: 1},
		{Lo: 0x17b4, Hi: 0x17b5, Stride: 1},
		{Lo: 0x180b, Hi: 0x180d, Stride: 1},
		{Lo: 0x180f, Hi: 0x180f, Stride: 1},
		{Lo: 0x2000, Hi: 0x200a, Stride: 1},
		{Lo: 0x202f, Hi: 0x202f, Stride: 1},
		{Lo: 0x205f, Hi: 0x205f, Stride: 1},
		{Lo: 0x2065, Hi: 0x2065, Stride: 1},
		{Lo: 0x2800, Hi: 0x2800, Stride: 1},
		{Lo: 0x3000, Hi: 0x3000, Stride: 1},
		{Lo: 0x3164, Hi: 0x3164, Stride: 1},
		{Lo: 0xfe00, Hi: 0xfe0f, Stride: 1},
		{Lo: 0xffa0, Hi: 0xffa0, Stride: 1},
		{Lo: 0xfff0, Hi: 0xfff8, Stride: 1},
	},
	R32: []unicode.Range32{
		{Lo: 0xe0000, Hi: 0xe0000, Stride: 1},
		{Lo: 0xe0002, Hi: 0xe001f, Stride: 1},
		{Lo: 0xe0080, Hi: 0xe00ff, Stride: 1},
		{Lo: 0xe0100, Hi: 0xe01ef, Stride: 1},
		{Lo: 0xe01f0, Hi: 0xe0fff, Stride: 1},
	},
}

// The counted form of a stretch of hidden characters in Visible.
const (
	// minRun identical hidden characters in a row show as one form,
	// \u{2800}×3000 (\x{ff}×N for bytes that are not UTF-8): long enough
	// that a file's blank lines or deep tabs keep their \n and \t.
	minRun = 16
	// maxForms forms are shown of one stretch of hidden characters of
	// mixed kinds; the rest are counted: \u{…}×N.
	maxForms = 32
)

// Visible renders s for a person, on one line: each hidden rune becomes
// its Go escape (\n, \x1b, \u202e, \U000e0041) and each byte that is not
// UTF-8 becomes \xNN; printable text is kept as is. A JSON escape of a
// hidden rune already in s (\u2800, a surrogate pair, \n) counts as that
// rune, so text that went through VisibleJSON (a stored record's input) is
// treated alike. minRun or more of one hidden character in a row show as
// one counted form, \u{2800}×3000, and a stretch of mixed ones shows its
// first maxForms forms and counts the rest, \u{…}×N: whatever pads an
// input, its tail stays near its head. The counted forms are not JSON (a
// JSON parser refuses \u{), so a person's copy of a view that holds one
// cannot be taken for the input it shows.
func Visible(s string) string {
	if !needsEscape(s) && !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	st := stretch{b: &b}
	for i := 0; i < len(s); {
		if u, n := hiddenAt(s, i); n > 0 {
			st.add(u)
			i += n
			continue
		}
		st.end()
		n := 1
		if s[i] == '\\' && i+1 < len(s) && s[i+1] == '\\' {
			n = 2 // an escaped backslash: the next one starts no escape
		} else if _, size := utf8.DecodeRuneInString(s[i:]); size > 1 {
			n = size
		}
		b.WriteString(s[i : i+n])
		i += n
	}
	st.end()
	return b.String()
}

// unit is one hidden character of Visible's input.
type unit struct {
	r   rune   // the rune, or the byte's value (bad)
	bad bool   // a byte that is not UTF-8
	lit string // the JSON escape it was written as; "" when raw
}

// text is how u shows alone: as written when it was an escape already.
func (u unit) text() string {
	switch {
	case u.lit != "":
		return u.lit
	case u.bad:
		return fmt.Sprintf(`\x%02x`, u.r)
	}
	return escape(u.r)
}

// hiddenAt reads a hidden character at s[i:]: a raw one, a byte that is
// not UTF-8, or a JSON escape of one; n is 0 when s[i:] starts with none.
func hiddenAt(s string, i int) (u unit, n int) {
	r, size := utf8.DecodeRuneInString(s[i:])
	switch {
	case r == utf8.RuneError && size == 1:
		return unit{r: rune(s[i]), bad: true}, 1
	case r == '\\':
		return escapedAt(s, i)
	case !hidden(r):
		return unit{}, 0
	}
	return unit{r: r}, size
}

// escapedAt reads a JSON escape of a hidden rune at s[i:] (which starts
// with a backslash), kept as written.
func escapedAt(s string, i int) (unit, int) {
	if i+1 >= len(s) {
		return unit{}, 0
	}
	if r := shortEscape(s[i+1]); r != 0 {
		return unit{r: r, lit: s[i : i+2]}, 2
	}
	r, ok := hex4(s, i)
	if !ok {
		return unit{}, 0
	}
	n := 6
	if utf16.IsSurrogate(r) {
		lo, ok := hex4(s, i+6)
		if !ok {
			return unit{}, 0
		}
		if r = utf16.DecodeRune(r, lo); r == utf8.RuneError {
			return unit{}, 0
		}
		n = 12
	}
	if !hidden(r) {
		return unit{}, 0
	}
	return unit{r: r, lit: s[i : i+n]}, n
}

// shortEscape is the control character a JSON escape \c names, or 0.
func shortEscape(c byte) rune {
	switch c {
	case 'n':
		return '\n'
	case 'r':
		return '\r'
	case 't':
		return '\t'
	case 'b':
		return '\b'
	case 'f':
		return '\f'
	}
	return 0
}

// hex4 reads \uXXXX at s[i:].
func hex4(s string, i int) (rune, bool) {
	if i+6 > len(s) || s[i] != '\\' || s[i+1] != 'u' {
		return 0, false
	}
	var r rune
	for _, c := range []byte(s[i+2 : i+6]) {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// escape is a hidden rune's Go escape.
func escape(r rune) string {
	switch {
	case r == '\n':
		return `\n`
	case r == '\r':
		return `\r`
	case r == '\t':
		return `\t`
	case r < 0x80:
		return fmt.Sprintf(`\x%02x`, r)
	case r > 0xffff:
		return fmt.Sprintf(`\U%08x`, r)
	}
	return fmt.Sprintf(`\u%04x`, r)
}

// stretch writes one stretch of hidden characters as they come: a group
// of minRun or more identical ones as one counted form, at most maxForms
// forms, then the count of the rest. It holds one group, never the
// stretch: an 8 MiB input of them costs no more than its output.
type stretch struct {
	b     *strings.Builder
	cur   unit
	n     int // cur's repeats so far
	forms int // forms written in this stretch
	more  int // hidden characters counted past maxForms
}

func (st *stretch) add(u unit) {
	if st.n > 0 && u == st.cur {
		st.n++
		return
	}
	st.flush()
	st.cur, st.n = u, 1
}

// flush writes the group held.
func (st *stretch) flush() {
	switch {
	case st.n == 0:
	case st.forms >= maxForms:
		st.more += st.n
	case st.n >= minRun && st.cur.bad:
		fmt.Fprintf(st.b, `\x{%02x}×%d`, st.cur.r, st.n)
		st.forms++
	case st.n >= minRun:
		fmt.Fprintf(st.b, `\u{%04x}×%d`, st.cur.r, st.n)
		st.forms++
	default:
		shown := min(st.n, maxForms-st.forms)
		st.b.WriteString(strings.Repeat(st.cur.text(), shown))
		st.forms += shown
		st.more += st.n - shown
	}
	st.n = 0
}

// end closes the stretch.
func (st *stretch) end() {
	st.flush()
	if st.more > 0 {
		fmt.Fprintf(st.b, `\u{…}×%d`, st.more)
	}
	st.forms, st.more = 0, 0
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
