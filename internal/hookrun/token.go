package hookrun

import (
	"context"
	"path/filepath"

	"github.com/interceptor-dev/interceptor/internal/approvals"
	"github.com/interceptor-dev/interceptor/internal/carry"
	"github.com/interceptor-dev/interceptor/internal/hooks"
	"github.com/interceptor-dev/interceptor/internal/lifecycle"
	"github.com/interceptor-dev/interceptor/internal/state"
)

// Flags are the options of inject, capture, clear and deliver, as their
// flags (or the INTERCEPTOR_<FLAG> environment) set them.
type Flags struct {
	Client   string // --client
	StateDir string // --state-dir: "" for the default
	DebugLog string // --debug-log
	// Opts are the handle options the command takes (carry.Table), ready
	// once Resolve has read --handles and compiled --token-pattern.
	Opts carry.Options
	// Changed reports whether a flag was given, on the command line or by
	// the environment.
	Changed func(name string) bool
	// Expire is deliver's --expire-on-session-end.
	Expire bool
}

// Inject is the pre-tool hook: it puts the held values into a call to the
// server's tools.
func Inject(io *IO, f *Flags) error {
	return Run(io, f.hook("inject", true, func(ev *hooks.Event, st *state.Store) (lifecycle.Outcome, error) {
		return lifecycle.Inject(ev, st, f.Opts)
	}))
}

// Capture is the post-tool hook: it stores the values a result of the
// server's tools carries.
func Capture(io *IO, f *Flags) error {
	return Run(io, f.hook("capture", true, func(ev *hooks.Event, st *state.Store) (lifecycle.Outcome, error) {
		return lifecycle.Capture(ev, st, f.Opts)
	}))
}

// Clear is the session-end hook: it forgets the values held for the
// event's session.
func Clear(io *IO, f *Flags) error {
	return Run(io, f.hook("clear", false, func(ev *hooks.Event, st *state.Store) (lifecycle.Outcome, error) {
		return lifecycle.Clear(ev, st, f.Opts.Servers)
	}))
}

// Deliver is the human tools' prompt hook (deliver.go).
func Deliver(io *IO, f *Flags) error {
	return Run(io, f.hook("deliver", false, func(ev *hooks.Event, st *state.Store) (lifecycle.Outcome, error) {
		return deliver(ev, approvals.New(st.Dir), f.Expire)
	}))
}

// hook is the run of command name with f: the handle options resolved
// (and --server required with needServer) before the event is read, the
// store opened after.
func (f *Flags) hook(name string, needServer bool, fn func(*hooks.Event, *state.Store) (lifecycle.Outcome, error)) *Hook {
	return &Hook{
		Name: name, Client: f.Client, DebugLog: f.DebugLog,
		Prepare: func() error {
			if err := f.Opts.Resolve(f.Changed); err != nil {
				return err
			}
			if needServer {
				return f.Opts.ValidateHooks()
			}
			return nil
		},
		Handle: func(_ context.Context, ev *hooks.Event) (lifecycle.Outcome, error) {
			st, err := OpenStore(f.StateDir)
			if err != nil {
				return lifecycle.Outcome{}, err
			}
			return fn(ev, st)
		},
	}
}

// StateDir is the state dir a --state-dir of dir names: dir made
// absolute, else the default.
func StateDir(dir string) (string, error) {
	if dir == "" {
		return state.DefaultDir()
	}
	return filepath.Abs(dir)
}

// OpenStore opens the value store in the state dir --state-dir dir names.
func OpenStore(dir string) (*state.Store, error) {
	d, err := StateDir(dir)
	if err != nil {
		return nil, err
	}
	return state.New(d), nil
}
