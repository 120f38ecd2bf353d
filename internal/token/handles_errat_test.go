package token

import (
	"strings"
	"testing"
)

// A malformed handles file names the line and column where it breaks.
func TestParseHandlesErrorLineColumn(t *testing.T) {
	for _, c := range []struct{ doc, want string }{
		{"{\"handles\": [\n  {\"arg\": \"pid\",}\n]}", "line 2, column 17: invalid character '}'"},
		{"{\"handles\": [\n  {\"arg\": \"pid\"}\n", "line 3, column 1: unexpected end of JSON input"},
		{"{\"handles\" [1]}", "line 1, column 12: invalid character '['"},
	} {
		_, err := ParseHandles([]byte(c.doc), "h.json")
		if err == nil || !strings.Contains(err.Error(), "handles file h.json: not valid JSON ("+c.want) {
			t.Errorf("%q: %v, want %q", c.doc, err, c.want)
		}
	}
}

// A handles file that starts with byte-order marks (a Windows editor's) is
// read as the same file without them.
func TestParseHandlesAfterABOM(t *testing.T) {
	doc := `{"handles": [{"name": "pid", "type": "number", "from": [{"tools": ["start_process"], "text": "PID (\\d+)"}], "to": {"tools": ["read_process_output"]}}]}`
	want, err := ParseHandles([]byte(doc), "h.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, boms := range []string{"\uFEFF", "\uFEFF\uFEFF"} {
		got, err := ParseHandles([]byte(boms+doc), "h.json")
		if err != nil || len(got) != len(want) || got[0].Name != want[0].Name {
			t.Errorf("after %d BOM(s): %+v, %v; want %+v", len(boms)/3, got, err, want)
		}
	}
}
