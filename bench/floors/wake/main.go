//go:build linux

// Command wake is the floor for a long poll's wake: it watches DIR with
// inotify, prints "ready", and prints "woke" and exits on the first file
// renamed into DIR. No reading, no parsing: what any process woken by the
// kernel on a new file costs, for the approval queue's long poll to be
// measured against.
//
// Usage: wake DIR
package main

import (
	"os"
	"syscall"
)

func main() {
	if len(os.Args) != 2 {
		os.Stderr.WriteString("usage: wake DIR\n")
		os.Exit(2)
	}
	fd, err := syscall.InotifyInit1(syscall.IN_CLOEXEC)
	if err != nil {
		fail(err)
	}
	if _, err := syscall.InotifyAddWatch(fd, os.Args[1], syscall.IN_MOVED_TO); err != nil {
		fail(err)
	}
	os.Stdout.WriteString("ready\n")
	var buf [4096]byte
	if _, err := syscall.Read(fd, buf[:]); err != nil {
		fail(err)
	}
	os.Stdout.WriteString("woke\n")
}

func fail(err error) {
	os.Stderr.WriteString("wake: " + err.Error() + "\n")
	os.Exit(1)
}
