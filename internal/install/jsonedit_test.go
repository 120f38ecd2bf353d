package install

import (
	"testing"

	"github.com/interceptor-dev/interceptor/internal/hooks"
)

// No client install edits takes trailing commas (Gemini CLI refuses them),
// but the editor keeps them right: an insertion after a trailing comma keeps
// one, and removing it gives back the bytes.
func TestEditorTrailingCommas(t *testing.T) {
	for _, doc := range []string{
		"{\n  \"a\": [\n    1, // one\n  ],\n  \"b\": {\"x\": 1,},\n}\n",
		"{\"a\": [1,], \"b\": {\"x\": 1,},}",
	} {
		e, err := parseConfig("f.json", []byte(doc), &hooks.Client{Syntax: hooks.Syntax{Comments: true, TrailingCommas: true}})
		if err != nil {
			t.Fatal(err)
		}
		top := e.top()
		ai, _ := top.find("a")
		a, _ := top.child(ai, '[')
		bi, _ := top.find("b")
		b, _ := top.child(bi, '{')
		e.insert(a, "", "2")
		e.insert(b, "y", `{"z":[true]}`)
		e.insert(top, "c", "3")
		mid := string(e.bytes())
		plain := standardJSON([]byte(mid))
		if plain == nil {
			t.Fatalf("not HuJSON:\n%s", mid)
		}
		if _, trailing := extras(&e.root); !trailing {
			t.Fatalf("trailing commas lost:\n%s", mid)
		}
		e.remove(top, top.len()-1)
		e.remove(b, b.len()-1)
		e.remove(a, a.len()-1)
		if got := string(e.bytes()); got != doc {
			t.Fatalf("after insert + remove:\n%s\nwant:\n%s\n(between:\n%s)", got, doc, mid)
		}
	}
}
