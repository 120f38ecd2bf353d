package rawjson

import "testing"

func TestOneLine(t *testing.T) {
	for in, want := range map[string]string{
		`{"a": 1}`: `{"a": 1}`, // already one line: kept as is
		"{\n  \"a\": \"x \\\" \\n y\",\n\t\"b\": [1, 2.50]\r\n}": `{"a":"x \" \n y","b":[1,2.50]}`,
		"\"two\\nlines\"\n": `"two\nlines"`,
	} {
		if got := OneLine(in); got != want {
			t.Errorf("OneLine(%q) = %q, want %q", in, got, want)
		}
		if got := string(OneLine([]byte(in))); got != want {
			t.Errorf("OneLine([]byte %q) = %q, want %q", in, got, want)
		}
	}
}
