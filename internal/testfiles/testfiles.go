// Package testfiles writes and reads the files tests set up (client
// configs, fake binaries), failing the test on any error. Tests only.
package testfiles

import (
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
