//go:build linux

// Command spawn runs one command and reports its peak RSS, as the kernel
// records it, without the benchmark's own memory in the figure.
//
// Usage: spawn STDIN-FILE ARGV...   (the report goes to fd 3)
//
// Why: Linux's exec records the high-water RSS of the memory it replaces
// into the process's ru_maxrss. Go's os/exec starts children with
// CLONE_VFORK|CLONE_VM, so a child exec'd straight from the harness reports
// at least the harness's own peak RSS, tens of MiB once it holds big
// payloads. spawn is small: its children inherit only its own few MiB, and
// it reports its own high-water mark beside the child's so the report can
// tell which figures that floor would hide.
//
// fd 3 gets one line: "<child ru_maxrss KiB> <spawn's own VmHWM KiB>".
// spawn exits with the child's exit status.
package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"syscall"
)

func main() {
	if len(os.Args) < 3 {
		os.Stderr.WriteString("usage: spawn STDIN-FILE ARGV...\n")
		os.Exit(2)
	}
	in, err := os.Open(os.Args[1])
	if err != nil {
		fail(err)
	}
	path, err := exec.LookPath(os.Args[2])
	if err != nil {
		fail(err)
	}
	pid, err := syscall.ForkExec(path, os.Args[2:], &syscall.ProcAttr{
		Env:   os.Environ(),
		Files: []uintptr{in.Fd(), 1, 2},
	})
	if err != nil {
		fail(err)
	}
	var ws syscall.WaitStatus
	var ru syscall.Rusage
	for {
		_, err = syscall.Wait4(pid, &ws, 0, &ru)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		fail(err)
	}
	report := os.NewFile(3, "report")
	fmt.Fprintf(report, "%d %d\n", ru.Maxrss, selfHWM())
	report.Close()
	if ws.Exited() {
		os.Exit(ws.ExitStatus())
	}
	os.Exit(128 + int(ws.Signal()))
}

// selfHWM is this process's own peak RSS in KiB (VmHWM of its own memory,
// not inherited).
func selfHWM() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return -1
	}
	for _, line := range bytes.Split(b, []byte("\n")) {
		if v, ok := bytes.CutPrefix(line, []byte("VmHWM:")); ok {
			n, _ := strconv.ParseInt(string(bytes.Fields(v)[0]), 10, 64)
			return n
		}
	}
	return -1
}

func fail(err error) {
	os.Stderr.WriteString("spawn: " + err.Error() + "\n")
	os.Exit(125)
}
