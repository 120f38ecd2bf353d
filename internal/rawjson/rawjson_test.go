package rawjson

import (
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

func TestFieldsMatchesGjson(t *testing.T) {
	docs := []string{
		`{}`,
		` { "a" : 1 , "b":"x\"y\\", "c":{"d":[1,{"e":"}"}]}, "e":[], "f":null, "g":true, "h":-1.5e3 } `,
		`{"k\u0065y":"v","a\\":"w"}`,
		`{"a":"[[[{{{","b":"\\\\"}`,
		`{"dup":1,"dup":2}`,
	}
	for _, doc := range docs {
		var keys, vals []string
		Fields(doc, func(k, v string) bool {
			keys = append(keys, k)
			vals = append(vals, v)
			return true
		})
		var wantK, wantV []string
		gjson.Parse(doc).ForEach(func(k, v gjson.Result) bool {
			wantK = append(wantK, k.Str)
			wantV = append(wantV, v.Raw)
			return true
		})
		if strings.Join(keys, "|") != strings.Join(wantK, "|") || strings.Join(vals, "|") != strings.Join(wantV, "|") {
			t.Errorf("Fields(%s)\n got %q %q\nwant %q %q", doc, keys, vals, wantK, wantV)
		}
	}
	n := 0
	Fields(`{"a":1,"b":2}`, func(string, string) bool { n++; return false })
	if n != 1 {
		t.Errorf("visit returning false did not stop: %d", n)
	}
	for _, notObj := range []string{`[1]`, `"x"`, ``, `  `} {
		Fields(notObj, func(k, v string) bool { t.Errorf("visited %q in %q", k, notObj); return true })
	}
}

func TestDepthExceeds(t *testing.T) {
	cases := []struct {
		doc  string
		max  int
		want bool
	}{
		{`{"a":"[[[[\"[[[","b":1}`, 1, false},
		{`{"a":"x\\","b":[1]}`, 1, true},
		{`{"a":"x\\","b":[1]}`, 2, false},
		{`{"a":"\\\"[[[[[[["}`, 1, false},
		{strings.Repeat("[", 10) + strings.Repeat("]", 10), 10, false},
		{strings.Repeat("[", 11) + strings.Repeat("]", 11), 10, true},
		{`"unterminated [[[[`, 1, false},
	}
	for _, c := range cases {
		if got := DepthExceeds([]byte(c.doc), c.max); got != c.want {
			t.Errorf("DepthExceeds(%.30q, %d) = %v", c.doc, c.max, got)
		}
		if got := DepthExceedsJSONC([]byte(c.doc), c.max); got != c.want {
			t.Errorf("DepthExceedsJSONC(%.30q, %d) = %v (plain JSON reads the same)", c.doc, c.max, got)
		}
	}
}

// TestDepthExceedsJSONC: comments are skipped, not counted, and a quote in
// one does not hide the nesting after it; "//" in a string is no comment.
func TestDepthExceedsJSONC(t *testing.T) {
	deep := strings.Repeat("[", 5) + strings.Repeat("]", 5)
	for _, c := range []struct {
		doc  string
		want bool
	}{
		{"// [[[[[[[[\n[1]", false},
		{"/* [[[[[[[[ */ [1]", false},
		{"/* [[[[[[[[ *//**/ [1] // ]]]]", false},
		{`// "` + "\n" + deep + ` // "`, true},
		{`/* " */ ` + deep + ` /* " */`, true},
		{`{"a": "//", "b": ` + deep + `}`, true},
		{`{"a": "/*", "b": ` + deep + `, "c": "*/"}`, true},
		{"[[/* unterminated [[[[[[[[", false},
		{"[[// to the end [[[[[[[[", false},
		{"[/", false},
	} {
		if got := DepthExceedsJSONC([]byte(c.doc), 4); got != c.want {
			t.Errorf("DepthExceedsJSONC(%q, 4) = %v, want %v", c.doc, got, c.want)
		}
	}
}

func FuzzFields(f *testing.F) {
	f.Add(`{"a":1,"b":{"c":"\"}"},"d":[1,2]}`)
	f.Fuzz(func(t *testing.T, doc string) {
		if !gjson.Valid(doc) {
			return
		}
		var got []string
		Fields(doc, func(k, v string) bool { got = append(got, k+"="+v); return true })
		var want []string
		if p := gjson.Parse(doc); p.IsObject() {
			p.ForEach(func(k, v gjson.Result) bool { want = append(want, k.Str+"="+v.Raw); return true })
		}
		if strings.Join(got, "\x00") != strings.Join(want, "\x00") {
			t.Fatalf("Fields(%q) = %q, gjson says %q", doc, got, want)
		}
	})
}

func TestAppendString(t *testing.T) {
	for _, s := range []string{"", "plain", `q"b\`, "nl\n\t\x00\x1f\x7f", "caf\u00e9"} {
		out := AppendString([]byte("x"), s)
		if out[0] != 'x' || !gjson.ValidBytes(out[1:]) || gjson.ParseBytes(out[1:]).Str != s {
			t.Errorf("AppendString(%q) = %s", s, out)
		}
	}
}

func FuzzFieldsAnyInput(f *testing.F) {
	f.Add(`{"`)
	f.Add(`{"a":"`)
	f.Add(`{"a":[{"`)
	f.Fuzz(func(t *testing.T, doc string) {
		Fields(doc, func(k, v string) bool { return true }) // must not panic
		DepthExceeds([]byte(doc), 4)
	})
}

func TestMapStringsUnder(t *testing.T) {
	raw := `{"a":"x","session_token":{"k":["v1",{"n":"v2"}],"k2":"v3"},"b":"y","c":{"session_token":"v4","d":"z"},"session_token2":"w"}`
	var got []string
	out, changed := MapStringsUnder(raw, "session_token", func(s string, isKey, under bool) (string, bool) {
		if under {
			got = append(got, s)
			return "*", true
		}
		return "", false
	})
	want := []string{"k", "v1", "n", "v2", "k2", "v3", "v4"}
	if !changed || strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("under = %q (changed %v), want %q", got, changed, want)
	}
	if w := `{"a":"x","session_token":{"*":["*",{"*":"*"}],"*":"*"},"b":"y","c":{"session_token":"*","d":"z"},"session_token2":"w"}`; out != w {
		t.Errorf("out = %s\nwant  %s", out, w)
	}
	// MapStrings is the same walk without the key.
	n := 0
	MapStrings(raw, func(string, bool) (string, bool) { n++; return "", false })
	if n != 18 {
		t.Errorf("MapStrings met %d strings, want 18", n)
	}
}
