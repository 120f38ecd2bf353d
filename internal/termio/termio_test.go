package termio

import (
	"bytes"
	"testing"
)

// TestCRLF: a terminal in raw mode gets every newline as CRLF.
func TestCRLF(t *testing.T) {
	var b bytes.Buffer
	if _, err := (crlf{&b}).Write([]byte("a\nb\n")); err != nil || b.String() != "a\r\nb\r\n" {
		t.Fatalf("crlf: %q %v", b.String(), err)
	}
}
