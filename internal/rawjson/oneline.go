package rawjson

import (
	"bytes"
	"strings"

	"github.com/tidwall/pretty"
)

// OneLine puts a JSON value on one line, for readers that take one document
// per line (a hook's stdout, a JSON-lines record): raw as it is when it holds
// no line break, else with the whitespace between tokens dropped. Every key
// and value keeps its bytes.
func OneLine[T ~string | ~[]byte](raw T) T {
	if !hasLineBreak(raw) {
		return raw
	}
	return T(pretty.Ugly([]byte(raw)))
}

// hasLineBreak looks with IndexByte where it can (a reply can be
// megabytes), without converting raw (a conversion copies).
func hasLineBreak[T ~string | ~[]byte](raw T) bool {
	switch v := any(raw).(type) {
	case []byte:
		return bytes.IndexByte(v, '\n') >= 0 || bytes.IndexByte(v, '\r') >= 0
	case string:
		return strings.IndexByte(v, '\n') >= 0 || strings.IndexByte(v, '\r') >= 0
	}
	for i := 0; i < len(raw); i++ {
		if raw[i] == '\n' || raw[i] == '\r' {
			return true
		}
	}
	return false
}

// TrimBOM drops every leading byte-order mark (U+FEFF): JSON allows none,
// yet editors on Windows and Cursor's agent put them before a document.
func TrimBOM(b []byte) []byte {
	for bytes.HasPrefix(b, []byte("\uFEFF")) {
		b = b[len("\uFEFF"):]
	}
	return b
}
