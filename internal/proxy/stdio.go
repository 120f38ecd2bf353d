package proxy

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/interceptor-dev/interceptor/internal/rawjson"
)

// DefaultGrace is how long the proxy waits for the server to exit after
// closing its stdin (and again after SIGTERM) before escalating.
const DefaultGrace = 5 * time.Second

// Stdio is a proxied stdio server: the client talks to In and Out, the
// server is Command, started as a child process.
type Stdio struct {
	Command []string // the real server and its arguments
	Dir     string   // its working directory ("" = ours)
	Env     []string // its environment (nil = ours)

	In  io.Reader // from the client
	Out io.Writer // to the client
	// Err receives the server's stderr. An *os.File is handed to the child
	// as is, so its stderr passes through untouched.
	Err io.Writer

	// Signals are forwarded to the server (SIGINT, SIGTERM). When the
	// server has not exited Grace after one, it is killed.
	Signals <-chan os.Signal
	Grace   time.Duration // 0 means DefaultGrace
}

// Run starts the server and relays until it exits, and returns its exit
// code (128+N when killed by signal N). The client closing its end (EOF on
// In, or Out failing) closes the server's stdin; the server then has Grace
// to exit before it gets SIGTERM, and Grace again before it is killed.
func (s *Stdio) Run(rw *Rewriter) (int, error) {
	if len(s.Command) == 0 {
		return 1, errors.New("no server command given")
	}
	grace := s.Grace
	if grace <= 0 {
		grace = DefaultGrace
	}
	cmd, inW, outR, code, err := s.start()
	if err != nil {
		return code, err
	}
	exited := make(chan struct{})
	go func() {
		cmd.Wait()
		close(exited)
	}()

	toServer, toClient := newOutbox(inW), newOutbox(s.Out)
	rw.SetLater(toClient.answer)
	max := rw.MaxMessage()

	// client -> server
	clientDone := make(chan struct{})
	go func() {
		defer close(clientDone)
		defer inW.Close() // the server sees EOF
		pump(newLineReader(s.In, max), toServer, toClient, rw.FromClient, func(h *rawjson.Head) Out { return rw.Oversized(false, h) })
		// A write error: the server is gone.
	}()

	// server -> client
	serverDone := make(chan struct{})
	clientGone := make(chan struct{})
	go func() {
		defer close(serverDone)
		if pump(newLineReader(outR, max), toClient, toServer, rw.FromServer, func(h *rawjson.Head) Out { return rw.Oversized(true, h) }) != nil {
			close(clientGone)
			io.Copy(io.Discard, outR) // never block the server on a full pipe
		}
	}()

	s.supervise(cmd, inW, grace, exited, clientDone, clientGone)
	// Deliver what the server wrote before it exited. A grandchild that
	// inherited its stdout could hold the pipe open: do not wait for it
	// forever.
	select {
	case <-serverDone:
	case <-time.After(grace):
	}
	outR.Close()
	return exitCode(cmd.ProcessState), nil
}

// start starts the server on two pipes: inW is its stdin, outR its
// stdout. On failure code is the proxy's exit code.
func (s *Stdio) start() (cmd *exec.Cmd, inW, outR *os.File, code int, err error) {
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, nil, nil, 1, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, nil, nil, 1, err
	}
	cmd = exec.Command(s.Command[0], s.Command[1:]...)
	cmd.Dir, cmd.Env = s.Dir, s.Env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, s.Err
	err = cmd.Start()
	// The child holds its own copies now (or there is no child).
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, nil, nil, 127, fmt.Errorf("starting the server: %w", err)
	}
	return cmd, inW, outR, 0, nil
}

// supervise waits for the server to exit (exited). Once asked to stop (the
// client's end closed: clientDone, clientGone; a signal, forwarded) it
// gets grace to exit, then SIGTERM and grace again, then it is killed.
func (s *Stdio) supervise(cmd *exec.Cmd, inW *os.File, grace time.Duration, exited, clientDone, clientGone <-chan struct{}) {
	var escalate <-chan time.Time
	step := 0 // 0: running, 1: asked to stop (stdin closed or signal), 2: SIGTERM sent
	stopping := func() {
		if step == 0 {
			step = 1
			escalate = time.After(grace)
		}
	}
	for {
		select {
		case <-exited:
			return
		case <-clientDone:
			clientDone = nil
			stopping()
		case <-clientGone:
			clientGone = nil
			inW.Close()
			stopping()
		case sig := <-s.Signals:
			if err := cmd.Process.Signal(sig); err != nil {
				cmd.Process.Kill()
			}
			stopping()
		case <-escalate:
			if step == 1 {
				step = 2
				if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
					cmd.Process.Kill()
				}
				escalate = time.After(grace)
			} else {
				cmd.Process.Kill()
				escalate = nil
			}
		}
	}
}

// pump relays lines from lr to to, each through rewrite (or oversized, for
// a line over the limit), and writes answers to messages it does not relay
// to back, until the input ends (nil) or writing to to fails (the error).
func pump(lr *lineReader, to, back *outbox, rewrite func([]byte) Out, oversized func(*rawjson.Head) Out) error {
	for {
		line, over, err := lr.next()
		var out Out
		switch {
		case over != nil:
			out = oversized(over)
			line = nil
		case len(line) > 0:
			msg, _ := splitEnding(line)
			out = rewrite(msg)
		}
		if len(line) > 0 || over != nil || err != nil {
			if werr := to.relay(line, out, err == nil && lr.more()); werr != nil {
				return werr
			}
		}
		back.answer(out.Back)
		if err != nil {
			return nil
		}
	}
}

// exitCode is the server's exit code, or 128+N when signal N killed it.
func exitCode(ps *os.ProcessState) int {
	if ps == nil {
		return 1
	}
	if code := ps.ExitCode(); code >= 0 {
		return code
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return 1
}
