package hookrun

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/interceptor-dev/interceptor/internal/hooks"
	"github.com/interceptor-dev/interceptor/internal/lifecycle"
	"github.com/interceptor-dev/interceptor/internal/rawjson"
	"github.com/interceptor-dev/interceptor/internal/termio"
)

// IO is a hook's I/O, injected so tests drive hooks directly.
type IO struct {
	In  io.Reader
	Out io.Writer
	Err io.Writer
	// Exit, when set, lets a hook arm its watchdog; tests leave it nil.
	Exit func(int)
}

// Deadline bounds a whole hook run. Clients close stdin and wait for us;
// if anything (a stuck pipe, a slow disk) holds the hook longer, it gives
// up and lets the tool call proceed unchanged.
const Deadline = 5 * time.Second

// readDeadline bounds reading the event of a hook that fails closed, as
// Deadline does a whole run: a writer that holds stdin open must not hold
// the call forever (a variable so tests need not wait 5 s).
var readDeadline = Deadline

// Hook is one run of a hook command: what it reads the event for, and how
// it fails.
type Hook struct {
	Name     string // the command: inject, capture, clear, approve, deliver
	Client   string // --client: auto or a client's name
	DebugLog string // --debug-log: "" for none
	// Prepare, when set, readies the options before the event is read; its
	// error ends the run.
	Prepare func() error
	// Handle acts on the event; its Outcome's Reply goes to stdout.
	Handle func(ctx context.Context, ev *hooks.Event) (lifecycle.Outcome, error)
	// Closed, when set, makes the hook fail closed (approve); else it fails
	// open: a problem is one stderr line and the call proceeds unchanged.
	Closed *Closed
}

// Closed is how a hook that fails closed denies: any problem once the
// event is read denies the call in the client's shape, and so does an
// event that cannot be fully read when the client is known (--client).
type Closed struct {
	// Unread is the deny, in client's shape, of an event that could not
	// be read for problem (one line).
	Unread func(client hooks.Adapter, problem string) ([]byte, error)
	// Failed is the deny of ev's call, for problem (one line).
	Failed func(ev *hooks.Event, problem string) ([]byte, error)
	// Deadline bounds Handle; past it the call is denied.
	Deadline time.Duration
}

// Run runs h on the event on io.In. Whatever happens it returns at most
// one error, the hook's one stderr line (its caller prints it and exits
// 0): never a blocked call by accident.
func Run(io *IO, h *Hook) error {
	r := &run{io: io, h: h, out: &onceWriter{w: io.Out}}
	if h.Closed != nil {
		return r.closed()
	}
	return r.open()
}

// run is one hook run.
type run struct {
	io  *IO
	h   *Hook
	out *onceWriter
	ev  *hooks.Event // once read
}

// open runs a hook that fails open.
func (r *run) open() (err error) {
	io, name := r.io, r.h.Name
	interactive := termio.OnTerminal(io.In)
	if interactive {
		// A person ran it by hand: say what it waits for, and do not
		// give up on them after the hook's deadline.
		fmt.Fprintf(io.Err, "interceptor %s reads one hook event (a JSON object, as a client's hook sends it) on stdin: paste one and end with Ctrl-D; see --help\n", name)
	}
	if io.Exit != nil && !interactive {
		// A hook process lives for milliseconds and its payload is capped
		// at 8 MiB: collecting garbage would only cost time (a third of a
		// 1 MiB call). The memory limit keeps the collector as a backstop.
		debug.SetGCPercent(-1)
		debug.SetMemoryLimit(256 << 20)
		t := time.AfterFunc(Deadline, func() {
			fmt.Fprintf(io.Err, "interceptor: %s: gave up after %s; the tool call proceeds unchanged\n", name, Deadline)
			io.Exit(0)
		})
		defer t.Stop()
	}
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%s: internal error: %v", name, p)
		}
	}()
	out, err := r.openRun()
	r.trace(out, err)
	if errors.Is(err, hooks.ErrOtherClient) {
		return nil // another client's call, which its own hook handles
	}
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return r.reply(out)
}

// openRun prepares, reads and handles the event of a hook that fails open.
func (r *run) openRun() (lifecycle.Outcome, error) {
	if r.h.Prepare != nil {
		if err := r.h.Prepare(); err != nil {
			return lifecycle.Outcome{}, err
		}
	}
	client, err := hooks.Lookup(r.h.Client)
	if err != nil {
		return lifecycle.Outcome{}, err
	}
	payload, err := readEvent(r.io.In)
	if err != nil {
		return lifecycle.Outcome{}, fmt.Errorf("reading stdin: %w", err)
	}
	ev, err := hooks.Parse(payload, client)
	if err != nil {
		return lifecycle.Outcome{}, err
	}
	return r.h.Handle(context.Background(), ev)
}

// reply prints the outcome: its warning on stderr, its reply on stdout.
func (r *run) reply(out lifecycle.Outcome) error {
	if out.Warning != "" {
		fmt.Fprintf(r.io.Err, "interceptor: %s: %s\n", r.h.Name, OneLine(out.Warning))
	}
	if err := r.out.reply(out.Reply); err != nil {
		return fmt.Errorf("%s: writing reply: %w", r.h.Name, err)
	}
	return nil
}

// closed runs a hook that fails closed.
func (r *run) closed() (err error) {
	name := r.h.Name
	client, err := hooks.Lookup(r.h.Client)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	payload, answered, err := r.readClosed(client)
	if answered {
		return nil // the watchdog has denied: nothing more to say
	}
	if err != nil {
		return r.denyUnread(client, fmt.Errorf("reading stdin: %w", err))
	}
	ev, err := hooks.Parse(payload, client)
	if errors.Is(err, hooks.ErrOtherClient) {
		r.trace(lifecycle.Outcome{}, err)
		return nil // another client's call, which its own hook handles
	}
	if err != nil {
		return r.denyUnread(client, err)
	}
	r.ev = ev
	defer func() {
		if p := recover(); p != nil {
			err = r.failClosed(fmt.Errorf("internal error: %v", p))
		}
	}()
	if r.io.Exit != nil {
		d := r.h.Closed.Deadline
		t := time.AfterFunc(d, func() {
			err := r.failClosed(fmt.Errorf("gave up after %s", d))
			fmt.Fprintf(r.io.Err, "interceptor: %s\n", OneLine(err.Error()))
			r.io.Exit(0)
		})
		defer t.Stop()
	}
	out, err := r.h.Handle(context.Background(), ev)
	if err != nil {
		return r.failClosed(err)
	}
	r.trace(out, nil)
	return r.reply(out)
}

// readClosed reads the event on stdin. In the process (io.Exit set) a
// watchdog denies and exits when stdin is not closed within
// readDeadline; answered reports that it did.
func (r *run) readClosed(client hooks.Adapter) (payload []byte, answered bool, err error) {
	if r.io.Exit == nil {
		payload, err = readEvent(r.io.In)
		return payload, false, err
	}
	done := make(chan struct{})
	t := time.AfterFunc(readDeadline, func() {
		err := r.denyUnread(client, fmt.Errorf("gave up reading the event on stdin after %s", readDeadline))
		fmt.Fprintf(r.io.Err, "interceptor: %s\n", OneLine(err.Error()))
		close(done)
		r.io.Exit(0)
	})
	payload, err = readEvent(r.io.In)
	if !t.Stop() {
		<-done
		return nil, true, nil
	}
	return payload, false, err
}

// denyUnread answers an event that could not be fully read. The model
// controls much of it (a tool input nested too deep, a payload too large),
// so passing it through would let the model skip the hook: with the client
// known (install always names it) the call is denied in its shape. With
// --client auto there is no shape to answer in.
func (r *run) denyUnread(client hooks.Adapter, problem error) error {
	r.trace(lifecycle.Outcome{}, problem)
	if client == nil {
		return fmt.Errorf("%s: %w (client unknown, so the call could not be denied; use --client)", r.h.Name, problem)
	}
	b, rerr := r.h.Closed.Unread(client, OneLine(problem.Error()))
	return r.denied(problem, b, rerr)
}

// failClosed denies the event's call, with the problem as the reason.
func (r *run) failClosed(problem error) error {
	b, rerr := r.h.Closed.Failed(r.ev, OneLine(problem.Error()))
	r.trace(lifecycle.Outcome{}, problem)
	return r.denied(problem, b, rerr)
}

// denied writes the deny b (rendered with error rerr) for problem and
// returns the hook's one line about it.
func (r *run) denied(problem error, b []byte, rerr error) error {
	if rerr == nil {
		rerr = r.out.reply(b)
	}
	if rerr != nil {
		return fmt.Errorf("%s: %v (and the deny could not be written: %v)", r.h.Name, problem, rerr)
	}
	return fmt.Errorf("%s: %v (call denied)", r.h.Name, problem)
}

// readEvent reads stdin, up to one byte more than an event may hold (the
// parser refuses that).
func readEvent(in io.Reader) ([]byte, error) {
	return io.ReadAll(io.LimitReader(in, hooks.MaxPayload+1))
}

// onceWriter lets a watchdog and the normal path race to answer: the
// first reply wins, the other is dropped.
type onceWriter struct {
	mu   sync.Mutex
	w    io.Writer
	done bool
}

// reply writes b on one line (clients parse stdout as one JSON document
// and some read it line by line); an empty b writes nothing but still
// settles the race.
func (o *onceWriter) reply(b []byte) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.done || len(b) == 0 {
		o.done = true
		return nil
	}
	o.done = true
	_, err := o.w.Write(append(rawjson.OneLine(b), '\n'))
	return err
}

// trace appends one line to the debug log, if one is set. The outcome's
// trace never holds a token; a failure to log is not worth failing a hook.
func (r *run) trace(out lifecycle.Outcome, err error) {
	if r.h.DebugLog == "" {
		return
	}
	file, ferr := os.OpenFile(r.h.DebugLog, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if ferr != nil {
		return
	}
	defer file.Close()
	msg := out.Trace
	switch {
	case err != nil:
		msg = "error: " + err.Error()
	case out.Warning != "":
		msg = "warning: " + out.Warning + " " + msg
	}
	fmt.Fprintf(file, "%s %s pid=%d %s replied=%t\n", time.Now().UTC().Format(time.RFC3339Nano), r.h.Name, os.Getpid(), OneLine(msg), len(out.Reply) > 0)
}

// OneLine folds an error onto one line, so a hook never prints more than
// one line on stderr.
func OneLine(s string) string {
	s = strings.TrimSpace(s)
	if !strings.ContainsAny(s, "\r\n") {
		return s
	}
	return strings.Join(strings.Fields(s), " ")
}
