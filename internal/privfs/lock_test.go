//go:build unix

package privfs

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A lock holder in a process of its own: the test binary, run with
// PRIVFS_HOLD set, takes the lock, says so and waits to be killed.
func TestMain(m *testing.M) {
	if path := os.Getenv("PRIVFS_HOLD"); path != "" {
		if _, err := Lock(path, "test", 5*time.Second); err != nil {
			fmt.Println("error:", err)
			os.Exit(1)
		}
		fmt.Println("held")
		time.Sleep(time.Minute)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestLockWaitsItsTurn: a second taker blocks until the first lets go,
// then holds it; the lock file is created 0600.
func TestLockWaitsItsTurn(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".lock")
	unlock, err := Lock(path, "test", time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("lock file: %v, %v", fi.Mode(), err)
	}
	got := make(chan error, 1)
	start := time.Now()
	go func() {
		got <- Locked(path, "test", 5*time.Second, func() error { return nil })
	}()
	select {
	case err := <-got:
		t.Fatalf("second taker got the lock while it was held: %v", err)
	case <-time.After(100 * time.Millisecond):
	}
	unlock()
	if err := <-got; err != nil {
		t.Fatalf("after the first let go: %v", err)
	}
	if waited := time.Since(start); waited < 100*time.Millisecond {
		t.Errorf("the second taker waited %s", waited)
	}
}

// TestLockTimesOut: a lock held past the timeout is an error naming it,
// and the abandoned wait lets the lock go once it gets it.
func TestLockTimesOut(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".lock")
	unlock, err := Lock(path, "token", time.Second)
	if err != nil {
		t.Fatal(err)
	}
	ran := false
	err = Locked(path, "token", 50*time.Millisecond, func() error { ran = true; return nil })
	if want := "token lock " + path + ": still held by another process after 50ms"; err == nil || err.Error() != want || ran {
		t.Fatalf("got %v (ran %v), want %q", err, ran, want)
	}
	unlock()
	// The abandoned wait takes the lock and lets it go: a third taker
	// gets it.
	if err := Locked(path, "token", 2*time.Second, func() error { return nil }); err != nil {
		t.Fatalf("after the timed-out wait: %v", err)
	}
}

// TestDeadHoldersLockIsFree: a holder killed with the lock held (no
// unlock ran) leaves it free: the kernel lets it go with the process.
func TestDeadHoldersLockIsFree(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".lock")
	kill := holdElsewhere(t, path)
	if err := Locked(path, "test", 50*time.Millisecond, func() error { return nil }); err == nil {
		t.Fatal("took the lock a live process holds")
	}
	kill()
	if err := Locked(path, "test", 2*time.Second, func() error { return nil }); err != nil {
		t.Fatalf("the dead holder's lock: %v", err)
	}
}

// holdElsewhere has another process (this test binary, TestMain) take
// the lock path and hold it until kill kills it with SIGKILL, so no
// unlock runs.
func holdElsewhere(t *testing.T, path string) (kill func()) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), "PRIVFS_HOLD="+path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	kill = func() {
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
	}
	line, _ := bufio.NewReader(out).ReadString('\n')
	if strings.TrimSpace(line) != "held" {
		kill()
		t.Fatalf("holder: %q", line)
	}
	return kill
}

// TestLockRefusesWhatIsNotAFile: a lock path that is a symlink, a dir or a
// FIFO is refused at once, never followed, created or waited on.
func TestLockRefusesWhatIsNotAFile(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "elsewhere")
	link := filepath.Join(dir, "link")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{link, fifo, sub} {
		start := time.Now()
		// Refused at once, not after the 30 s wait (a loaded machine may
		// take seconds; it does not take 30).
		err := Locked(p, "test", 30*time.Second, func() error { t.Errorf("%s: ran under it", p); return nil })
		if err == nil || !strings.Contains(err.Error(), "lock file "+p+" is not a regular file") || time.Since(start) > 10*time.Second {
			t.Errorf("%s: %v after %s", p, err, time.Since(start))
		}
	}
	if _, err := os.Lstat(target); !os.IsNotExist(err) {
		t.Errorf("the symlink's target was created: %v", err)
	}
}

// TestCheckLockFile: missing or a regular file is fine; anything else is
// refused, saying what it is.
func TestCheckLockFile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(file, link); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]string{
		filepath.Join(dir, "none"): "",
		file:                       "",
		link:                       "lock file " + link + " is not a regular file (L---------); refusing to use it",
		dir:                        "lock file " + dir + " is not a regular file (d---------); refusing to use it",
	} {
		err := CheckLockFile(p)
		if got := fmt.Sprint(err); (want == "") != (err == nil) || err != nil && got != want {
			t.Errorf("CheckLockFile(%s) = %v, want %q", p, err, want)
		}
	}
}

// TestCheckDir: only a real dir of the user's, closed to group and
// others, passes; a missing one is fs.ErrNotExist.
func TestCheckDir(t *testing.T) {
	root := t.TempDir()
	ok := filepath.Join(root, "ok")
	open := filepath.Join(root, "open")
	for d, mode := range map[string]os.FileMode{ok: 0o700, open: 0o750} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(d, mode); err != nil {
			t.Fatal(err)
		}
	}
	link := filepath.Join(root, "link")
	if err := os.Symlink(ok, link); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(root, "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := CheckDir(ok); err != nil {
		t.Errorf("a private dir: %v", err)
	}
	for d, want := range map[string]string{
		open: "state dir " + open + " has mode 0750, open to group or others; run: chmod 700 " + open,
		link: "state dir " + link + " is a symlink; refusing to follow it",
		file: "state dir " + file + " is not a directory",
	} {
		if err := CheckDir(d); err == nil || err.Error() != want {
			t.Errorf("CheckDir(%s) = %v, want %q", d, err, want)
		}
	}
	if err := CheckDir(filepath.Join(root, "none")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing: %v", err)
	}
}

// TestLockRemovedExcludesAndLeavesNothing: holders that remove the lock
// file as they let go still exclude each other (a waiter handed the lock of
// a removed file starts over on the new one), and the last leaves no file.
func TestLockRemovedExcludesAndLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	path, counter := filepath.Join(dir, ".lock"), filepath.Join(dir, "n")
	if err := os.WriteFile(counter, []byte("0"), 0o600); err != nil {
		t.Fatal(err)
	}
	const workers, rounds = 8, 25
	errs := make(chan error, workers)
	for range workers {
		go func() {
			for range rounds {
				unlock, err := LockRemoved(path, "test", 10*time.Second)
				if err != nil {
					errs <- err
					return
				}
				// Read, yield, write: two holders at once lose a count.
				b, _ := os.ReadFile(counter)
				var n int
				fmt.Sscan(string(b), &n)
				time.Sleep(50 * time.Microsecond)
				os.WriteFile(counter, []byte(fmt.Sprint(n+1)), 0o600)
				unlock()
			}
			errs <- nil
		}()
	}
	for range workers {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	b, _ := os.ReadFile(counter)
	if string(b) != fmt.Sprint(workers*rounds) {
		t.Errorf("counted %s, want %d: two holders held the lock at once", b, workers*rounds)
	}
	if _, err := os.Lstat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the lock file stayed: %v", err)
	}
}

// TestLockShared: shared holders do not wait for each other; an exclusive
// taker waits for them all, and a shared taker waits for an exclusive one.
func TestLockShared(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".lock")
	u1, err := LockShared(path, "test", time.Second)
	if err != nil {
		t.Fatal(err)
	}
	u2, err := LockShared(path, "test", 50*time.Millisecond)
	if err != nil {
		t.Fatalf("a second shared holder waited for the first: %v", err)
	}
	if err := Locked(path, "test", 50*time.Millisecond, func() error { return nil }); err == nil {
		t.Fatal("an exclusive taker got the lock while shared holders held it")
	}
	u1()
	u2()
	unlock, err := Lock(path, "test", time.Second)
	if err != nil {
		t.Fatalf("exclusive after the shared holders let go: %v", err)
	}
	if _, err := LockShared(path, "test", 50*time.Millisecond); err == nil {
		t.Fatal("a shared taker got the lock while an exclusive holder held it")
	}
	unlock()
	if u, err := LockShared(path, "test", 2*time.Second); err != nil {
		t.Fatalf("shared after the exclusive holder let go: %v", err)
	} else {
		u()
	}
}
