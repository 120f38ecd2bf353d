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
