//go:build unix

package privfs

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestReadRegular: a regular file, or a link to one, is read; anything
// else is refused without blocking or reading it, naming the path.
func TestReadRegular(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "settings.json")
	if err := os.WriteFile(file, []byte(`{"a":1}`), 0o640); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink(file, link); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{file, link} {
		data, mode, err := ReadRegular(p, "config", 7)
		if err != nil || string(data) != `{"a":1}` || mode != 0o640 {
			t.Errorf("ReadRegular(%s) = %q, %v, %v", p, data, mode, err)
		}
	}
	if _, _, err := ReadRegular(file, "config", 6); err == nil || !strings.Contains(err.Error(), "config "+file+" is larger than 6 bytes") {
		t.Errorf("over the limit: %v", err)
	}
	if _, _, err := ReadRegular(filepath.Join(dir, "none"), "config", 10); !errors.Is(err, fs.ErrNotExist) || !os.IsNotExist(err) {
		t.Errorf("missing: %v", err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for p, kind := range map[string]string{fifo: "a FIFO", dir: "a directory", "/dev/null": "a device"} {
		if _, _, err := ReadRegular(p, "config", 10); err == nil || err.Error() != "config "+p+" is not a regular file ("+kind+"); refusing to read it" {
			t.Errorf("ReadRegular(%s): %v", p, err)
		}
	}
}
