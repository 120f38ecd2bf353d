package hooks

import (
	"bytes"
	"testing"
)

// Cursor's agent on Windows starts each payload with one or two U+FEFF
// (orca#21421 saw EF BB BF EF BB BF). Every client's fixture, so prefixed,
// must parse to the event the bare fixture gives.
func TestBOMEveryClient(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range fixtureCases {
		bare := fixture(t, c.file)
		want, err := Parse(bare, nil)
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		for _, marks := range []int{1, 2} {
			payload := append(bytes.Repeat([]byte("\xef\xbb\xbf"), marks), bare...)
			for _, named := range []Adapter{nil, want.Client} {
				ev, err := Parse(payload, named)
				if err != nil {
					t.Errorf("%s with %d BOM: %v", c.file, marks, err)
					continue
				}
				if ev.Client.Name() != c.client || ev.Phase != want.Phase || ev.Session != want.Session ||
					ev.ToolName != want.ToolName || ev.Input.Raw != want.Input.Raw {
					t.Errorf("%s with %d BOM: got %s %s %q %q, want %s %s %q %q", c.file, marks,
						ev.Client.Name(), ev.Phase, ev.Session, ev.ToolName, c.client, want.Phase, want.Session, want.ToolName)
				}
			}
		}
		seen[c.client] = true
	}
	for _, c := range Clients {
		if c.ownHooks() && !seen[c.Name] {
			t.Errorf("no fixture of %s was tried with a BOM", c.Name)
		}
	}
}

func TestTrimBOM(t *testing.T) {
	cases := map[string]string{
		"\ufeff{}":           "{}",
		"\ufeff\ufeff{}":     "{}",
		"{}":                 "{}",
		" \ufeff{}":          " \ufeff{}", // only leading marks go
		"\ufeff \n{}":        " \n{}",     // whitespace after them stays
		"{\"a\":\"\ufeff\"}": "{\"a\":\"\ufeff\"}",
		"\xef\xbb":           "\xef\xbb", // half a mark is not one
	}
	for in, want := range cases {
		if got := string(TrimBOM([]byte(in))); got != want {
			t.Errorf("TrimBOM(%q) = %q, want %q", in, got, want)
		}
	}
	// A BOM then nothing is an empty payload, not invalid JSON.
	if _, err := Parse([]byte("\ufeff\n"), nil); err == nil || err.Error() != "empty hook payload on stdin" {
		t.Errorf("BOM only: %v", err)
	}
}
