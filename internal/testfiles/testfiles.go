// Package testfiles writes and reads the files tests set up (client
// configs, fake binaries), failing the test on any error, and makes large
// inputs without holding them in memory. Tests only.
package testfiles

import (
	"io"
	"os"
	"path/filepath"
	"testing"
)

// Write writes data to path with mode (exactly: whatever the umask), making
// its dir.
func Write(t testing.TB, path, data string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}

// Read is the file at path.
func Read(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Repeat reads as n copies of b, without holding them: a line of many
// megabytes for the tests that bound what a reader keeps.
func Repeat(b byte, n int) io.Reader { return &repeatReader{b: b, n: n} }

type repeatReader struct {
	b byte
	n int
}

func (r *repeatReader) Read(p []byte) (int, error) {
	if r.n == 0 {
		return 0, io.EOF
	}
	n := min(len(p), r.n)
	for i := range p[:n] {
		p[i] = r.b
	}
	r.n -= n
	return n, nil
}
