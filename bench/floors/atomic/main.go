//go:build linux

// Command atomic is the floor for any hook that must store a token safely:
// it reads its whole stdin, then atomically replaces one small file (write a
// temp file in the same directory, rename it over the old one), and exits.
//
// Usage: atomic DIR [-lock] [-fsync]
//
// Plain, it is the floor the benchmark targets measure against. With -lock it
// also takes an exclusive flock on DIR/.lock around the write, and with -fsync
// it also syncs the temp file before the rename and DIR after it: what
// interceptor's state store does, so that row shows what durability costs on
// this file system, apart from anything interceptor itself does.
package main

import (
	"io"
	"os"
	"path/filepath"
	"syscall"
)

const record = `{"token":"tok-floor-0123456789abcdef","server":"wf","session":"s","client":"floor","updated":"2026-01-01T00:00:00Z"}` + "\n"

func main() {
	if len(os.Args) < 2 {
		os.Stderr.WriteString("usage: atomic DIR [-lock] [-fsync]\n")
		os.Exit(2)
	}
	dir := os.Args[1]
	lock, sync := false, false
	for _, a := range os.Args[2:] {
		switch a {
		case "-lock":
			lock = true
		case "-fsync":
			sync = true
		}
	}
	if _, err := io.ReadAll(os.Stdin); err != nil {
		fail(err)
	}
	if lock {
		l, err := os.OpenFile(filepath.Join(dir, ".lock"), os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			fail(err)
		}
		if err := syscall.Flock(int(l.Fd()), syscall.LOCK_EX); err != nil {
			fail(err)
		}
		defer l.Close() // closing releases the lock
	}
	f, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		fail(err)
	}
	if _, err := f.WriteString(record); err != nil {
		fail(err)
	}
	if sync {
		if err := f.Sync(); err != nil {
			fail(err)
		}
	}
	if err := f.Close(); err != nil {
		fail(err)
	}
	if err := os.Rename(f.Name(), filepath.Join(dir, "current.json")); err != nil {
		fail(err)
	}
	if sync {
		d, err := os.Open(dir)
		if err != nil {
			fail(err)
		}
		if err := d.Sync(); err != nil {
			fail(err)
		}
		d.Close()
	}
}

func fail(err error) {
	os.Stderr.WriteString("atomic: " + err.Error() + "\n")
	os.Exit(1)
}
