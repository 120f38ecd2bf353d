//go:build unix

package privfs

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// TestWriteFileMode: the file is 0600 whatever the umask (one that takes
// the owner's own write bit away included), or exactly the mode asked for.
func TestWriteFileMode(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		umask int
		mode  os.FileMode
		want  os.FileMode
	}{
		{0, 0, 0o600}, {0o022, 0, 0o600}, {0o077, 0, 0o600}, {0o277, 0, 0o600},
		{0o022, 0o644, 0o644}, {0o077, 0o640, 0o640},
	} {
		old := syscall.Umask(c.umask)
		path := filepath.Join(dir, "f")
		err := WriteFile(path, "test file", []byte("x"), WriteOptions{Mode: c.mode})
		syscall.Umask(old)
		if err != nil {
			t.Fatal(err)
		}
		if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != c.want {
			t.Errorf("umask %04o, mode %04o: file %v, %v; want %04o", c.umask, c.mode, fi.Mode().Perm(), err, c.want)
		}
	}
}

// TestWriteFileReplacesASymlink: a symlink planted where the file goes is
// replaced by the file, never followed: its target keeps its bytes.
func TestWriteFileReplacesASymlink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	if err := os.WriteFile(target, []byte("theirs"), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "record.json")
	if err := os.Symlink(target, path); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(path, "token file", []byte("mine"), WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(target); string(b) != "theirs" {
		t.Errorf("the link's target now holds %q", b)
	}
	fi, err := os.Lstat(path)
	if b, _ := os.ReadFile(path); err != nil || !fi.Mode().IsRegular() || string(b) != "mine" {
		t.Errorf("%s: %v %q, %v", path, fi.Mode(), b, err)
	}
}

// TestReadersNeverSeeATornFile: while a file is replaced over and over
// with contents of other sizes, every read sees one of them whole.
func TestReadersNeverSeeATornFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "record.json")
	contents := [][]byte{bytes.Repeat([]byte("a"), 10), bytes.Repeat([]byte("b"), 64<<10), bytes.Repeat([]byte("c"), 1000)}
	if err := WriteFile(path, "test file", contents[0], WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var torn []string
	var mu sync.Mutex
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				b, err := os.ReadFile(path)
				if err == nil && !bytes.Equal(b, contents[0]) && !bytes.Equal(b, contents[1]) && !bytes.Equal(b, contents[2]) {
					mu.Lock()
					torn = append(torn, string(b[:min(len(b), 20)]))
					mu.Unlock()
				}
				if err != nil {
					mu.Lock()
					torn = append(torn, err.Error())
					mu.Unlock()
				}
			}
		}()
	}
	for i := range 300 {
		if err := WriteFile(path, "test file", contents[i%3], WriteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	close(stop)
	wg.Wait()
	if len(torn) > 0 {
		t.Fatalf("%d torn or missing reads, e.g. %q", len(torn), torn[0])
	}
}

// TestReplacementLeavesNoTemp: a prepared file is not in place until
// Commit; Discard leaves nothing; Also is the same content for a second
// file, both put in place by their Commits; names start with the prefix.
func TestReplacementLeavesNoTemp(t *testing.T) {
	dir := t.TempDir()
	path, also := filepath.Join(dir, "s.json"), filepath.Join(dir, "current.json")
	r, err := Prepare(path, "token file", []byte("v1"), WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r2, err := r.Also(also, []byte("v1"))
	if err != nil {
		t.Fatal(err)
	}
	names := func() []string {
		entries, _ := os.ReadDir(dir)
		var out []string
		for _, e := range entries {
			out = append(out, e.Name())
		}
		return out
	}
	for _, n := range names() {
		if !strings.HasPrefix(n, TempPrefix) {
			t.Errorf("before Commit: %s in the dir", n)
		}
	}
	if err := r.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := r2.Commit(); err != nil {
		t.Fatal(err)
	}
	r.Discard() // after Commit: nothing
	for _, p := range []string{path, also} {
		if b, err := os.ReadFile(p); err != nil || string(b) != "v1" {
			t.Errorf("%s: %q, %v", p, b, err)
		}
	}
	if got := strings.Join(names(), " "); got != "current.json s.json" {
		t.Errorf("after Commit: %s", got)
	}
	r, err = Prepare(path, "token file", []byte("v2"), WriteOptions{Temp: ".mine-"})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(names(), " "); !strings.HasPrefix(got, ".mine-") {
		t.Errorf("temp named %s", got)
	}
	r.Discard()
	if got := strings.Join(names(), " "); got != "current.json s.json" {
		t.Errorf("after Discard: %s", got)
	}
	if b, _ := os.ReadFile(path); string(b) != "v1" {
		t.Errorf("a discarded replacement changed the file: %q", b)
	}
	if err := WriteFile(filepath.Join(dir, "none", "f"), "token file", nil, WriteOptions{}); err == nil || !strings.HasPrefix(err.Error(), "token file "+filepath.Join(dir, "none", "f")+": ") {
		t.Errorf("in a missing dir: %v", err)
	}
}
