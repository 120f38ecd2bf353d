package rawjson

import (
	"encoding/json"
	"testing"
)

// TestMarshal: one line, no HTML escapes, control characters and U+2028
// escaped as encoding/json does; raw members compacted; an error for what
// encoding/json refuses.
func TestMarshal(t *testing.T) {
	v := struct {
		S string          `json:"s"`
		R json.RawMessage `json:"r"`
		N int             `json:"n,omitempty"`
	}{S: "a<b>&c\n\x1b\u2028", R: json.RawMessage("{\n  \"x\": [1, 2]\n}")}
	got, err := Marshal(v)
	if want := `{"s":"a<b>&c\n\u001b\u2028","r":{"x":[1,2]}}`; err != nil || string(got) != want {
		t.Fatalf("Marshal = %s %v, want %s", got, err, want)
	}
	if _, err := Marshal(json.RawMessage("{")); err == nil {
		t.Error("invalid raw JSON was encoded")
	}
}
