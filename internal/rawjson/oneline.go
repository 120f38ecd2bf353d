package rawjson

import "github.com/tidwall/pretty"

// OneLine puts a JSON value on one line, for readers that take one document
// per line (a hook's stdout, a JSON-lines record): raw as it is when it holds
// no line break, else with the whitespace between tokens dropped. Every key
// and value keeps its bytes.
func OneLine[T ~string | ~[]byte](raw T) T {
	for i := 0; i < len(raw); i++ {
		if raw[i] == '\n' || raw[i] == '\r' {
			return T(pretty.Ugly([]byte(raw)))
		}
	}
	return raw
}
