package hookrun

import (
	"context"
	"time"

	"github.com/interceptor-dev/interceptor/internal/approvals"
	"github.com/interceptor-dev/interceptor/internal/hooks"
	"github.com/interceptor-dev/interceptor/internal/lifecycle"
)

// approveGrace is how long past --timeout the hook's own watchdog waits
// before it denies and exits, whatever is stuck.
const approveGrace = 10 * time.Second

// ApproveFlags are the approve hook's options.
type ApproveFlags struct {
	Client   string // --client
	StateDir string // --state-dir: "" for the default
	DebugLog string // --debug-log
	approvals.Rules
	Chat string // --chat: the child chat that asks
	Arg  string // --arg: the value argument shown as a stand-in
	// EnvErr is a refused INTERCEPTOR_<FLAG> variable: the call is denied
	// for it, not passed (a hook that fails before its event is read lets
	// the call proceed).
	EnvErr error
}

// Approve is the pre-tool hook that holds a call until a supervisor
// allows or denies it, under the policy of internal/approvals: it fails
// closed.
func Approve(io *IO, f *ApproveFlags) error {
	return Run(io, &Hook{
		Name: "approve", Client: f.Client, DebugLog: f.DebugLog,
		Handle: f.decide,
		Closed: &Closed{Unread: approvals.UnreadDeny, Failed: approvals.FailedDeny, Deadline: f.Timeout + approveGrace},
	})
}

// decide has ev's call decided and renders the client's answer; an error
// denies the call.
func (f *ApproveFlags) decide(ctx context.Context, ev *hooks.Event) (lifecycle.Outcome, error) {
	if ev.Phase != hooks.PhasePreTool {
		return lifecycle.Outcome{Trace: "not a pre-tool event: " + ev.Name}, nil
	}
	if f.EnvErr != nil {
		return lifecycle.Outcome{}, f.EnvErr
	}
	p, err := f.Policy()
	if err != nil {
		return lifecycle.Outcome{}, err
	}
	dir, err := StateDir(f.StateDir)
	if err != nil {
		return lifecycle.Outcome{}, err
	}
	reply, trace, err := approvals.Gate(ctx, p, approvals.Gated{Event: ev, StateDir: dir, Chat: f.Chat, Key: f.Arg})
	if err != nil {
		return lifecycle.Outcome{}, err
	}
	return lifecycle.Outcome{Reply: reply, Trace: trace}, nil
}
