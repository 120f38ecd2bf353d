//go:build unix

package children

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
	"time"
)

const noFollow = syscall.O_NOFOLLOW

// detach makes cmd the leader of a new session: the runner outlives the
// process that started it, and no signal to that process's group reaches it.
func detach(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} }

// ownGroup starts cmd in a process group of its own (its pid), so the whole
// client (MCP servers, hooks) can be signalled at once; cancel ends the
// group: SIGTERM, then SIGKILL after grace.
func ownGroup(cmd *exec.Cmd, grace time.Duration) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		pid := cmd.Process.Pid
		start, _ := procStart(pid) // not reaped yet: still the client
		killGroup(pid, syscall.SIGTERM)
		time.AfterFunc(grace, func() {
			// Reaped by now, maybe: only while the group is the client's.
			if start == 0 || groupIsChats(pid, start, "") {
				killGroup(pid, syscall.SIGKILL)
			}
		})
		return nil
	}
}

// killGroup signals process group pgid; a group that is gone is no error.
func killGroup(pgid int, sig syscall.Signal) error {
	if pgid <= 1 {
		return nil
	}
	if err := syscall.Kill(-pgid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		return err
	}
	return nil
}

// groupAlive reports whether any process of group pgid is left.
func groupAlive(pgid int) bool {
	return pgid > 1 && syscall.Kill(-pgid, 0) == nil
}

// terminate asks process pid to stop (SIGTERM), or kills it (SIGKILL).
func terminate(pid int, kill bool) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	if kill {
		return p.Signal(syscall.SIGKILL)
	}
	return p.Signal(syscall.SIGTERM)
}

// hardKill is SIGKILL for a process group.
const hardKill = syscall.SIGKILL
