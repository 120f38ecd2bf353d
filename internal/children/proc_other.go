//go:build !unix

package children

import (
	"errors"
	"os/exec"
	"syscall"
	"time"
)

const noFollow = 0

// Child sessions need Unix sessions and process groups; elsewhere the
// runner refuses to start.
var errUnsupported = errors.New("interceptor children needs a Unix system (sessions and process groups)")

func detach(*exec.Cmd)                    {}
func ownGroup(*exec.Cmd, time.Duration)   {}
func killGroup(int, syscall.Signal) error { return errUnsupported }
func groupAlive(int) bool                 { return false }
func terminate(int, bool) error           { return errUnsupported }

const hardKill = syscall.Signal(9)
