package token

import (
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// A document a tool passes through, set apart as markdown sets it apart,
// never gives a value (session fixation): a line inside a fenced block
// (``` or ~~~, closed or not, indented in a list, behind a longer fence the
// document cannot close) or a block quote (a '>' line and the lines that
// continue it) is not a candidate. The server's own line after such a
// block still is, and no longer meets a quoted rival (which stored
// nothing: ErrAmbiguous).
func TestPassThroughLinesAreNeverTaken(t *testing.T) {
	const fake = "ATTACKERfixed0123456789abcdef"
	doc := "session_token: " + fake
	for _, c := range []struct{ name, text, want string }{
		{"backtick fence", "Here is README.md:\n```\n" + doc + "\n```", ""},
		{"fence with an info string", "```yaml\n" + doc + "\n```", ""},
		{"tilde fence", "~~~\n" + doc + "\n~~~", ""},
		{"fence never closed", "File contents:\n```\nintro\n" + doc, ""},
		{"fence in a list item", "- the file:\n    ```\n    " + doc + "\n    ```", ""},
		{"a longer fence the document cannot close", "````\n```\n" + doc + "\n```\n````", ""},
		{"a tilde fence a backtick line cannot close", "~~~\n```\n" + doc + "\n```\n~~~", ""},
		{"block quote", "The user wrote:\n> " + doc, ""},
		{"block quote, lazy continuation", "> The user wrote:\n" + doc, ""},
		{"quote in a list", "- > " + doc, ""},
		{"the server's line after a fence", "```\n" + doc + "\n```\nsession_token: " + tokA, tokA},
		{"the server's line after a quote and a blank line", "> quoted\n\nsession_token: " + tokA, tokA},
		{"the server's line before a fence", "session_token: " + tokA + "\n```\n" + doc + "\n```", tokA},
		{"inline code at a line's start is not a fence", "```x``` is code\nsession_token: " + tokA, tokA},
		{"a closing fence with words after it does not close", "```\nx\n``` not a close\n" + doc, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, _, err := chooseText(c.text)
			if err != nil || got != c.want {
				t.Errorf("Choose(%q) = %q, %v; want %q", c.text, got, err, c.want)
			}
		})
	}
}

// TestMetaLatch: once _meta has carried a handle's value in a session
// (Live.MetaSeen, set by Apply), a result without it no longer gives a
// value from a prose line, however plain (a raw file the tool returns);
// the server's other channels still do.
func TestMetaLatch(t *testing.T) {
	spec := FlagSpec("session_token", "session_token", 0, nil, []string{"start_session"}, nil, nil)
	first := Result{Meta: gjson.Parse(`{"session_token":"` + tokA + `"}`), Texts: []string{"session_token: " + tokA}}
	m, err := spec.Read("next_step", first).For(Live{})
	if err != nil || len(m.Values) != 1 || m.Where != FromMeta {
		t.Fatalf("first result: %+v %v", m, err)
	}
	l, _ := spec.Apply(Live{}, "next_step", m, err, "")
	if !l.MetaSeen || l.Default != tokA {
		t.Fatalf("after _meta: %+v", l)
	}

	raw := text("# notes.md\nsession_token: " + tokB + "\n")
	rd := spec.Read("read_file", raw)
	if m, err := rd.For(l); err != nil || len(m.Values) != 0 {
		t.Errorf("latched: a raw line gave %+v %v", m, err)
	}
	if m, _ := spec.MintFor("read_file", raw, l); len(m.Values) != 0 {
		t.Errorf("latched (MintFor): a raw line gave %+v", m)
	}
	if m, _ := rd.For(Live{}); len(m.Values) != 1 || m.Values[0] != tokB || !m.Line {
		t.Errorf("not latched: %+v (lines are read until _meta carries a value)", m)
	}
	if l2, _ := spec.Apply(l, "read_file", Minted{}, nil, ""); !l2.MetaSeen || l2.Default != tokA {
		t.Errorf("a result with nothing changed the holding: %+v", l2)
	}
	// Latched, a line beside the server's JSON field is no rival.
	both := text(`{"session_token":"` + tokB + `"}`)
	if m, err := spec.Read("next_step", both).For(l); err != nil || len(m.Values) != 1 || m.Values[0] != tokB || m.Line {
		t.Errorf("latched: the JSON field gave %+v %v", m, err)
	}
	mixed := Result{Texts: []string{`{"session_token":"` + tokB + `"}`, "session_token: " + strings.Replace(tokA, "9", "8", 1)}}
	if m, err := spec.Read("next_step", mixed).For(l); err != nil || len(m.Values) != 1 || m.Values[0] != tokB {
		t.Errorf("latched, a JSON field and a rival line: %+v %v", m, err)
	}
	if _, err := spec.Read("next_step", mixed).For(Live{}); err == nil {
		t.Errorf("not latched, a JSON field and a rival line must be ambiguous")
	}
}
