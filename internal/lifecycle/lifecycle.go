// Package lifecycle is hook mode's adapter over the carry core
// (internal/carry), independent of any client: inject the values held into
// a call, take the new ones from a result, forget a session's values when
// it ends. What is held lives in the state store (each hook is a process of
// its own); client formats stay in internal/hooks; what is carried and how
// (find, hold, retire, inject, repair, stand-ins) is carry's and
// internal/token's, shared with proxy mode.
package lifecycle

import (
	"errors"
	"fmt"
	"strings"

	"github.com/interceptor-dev/interceptor/internal/carry"
	"github.com/interceptor-dev/interceptor/internal/hooks"
	"github.com/interceptor-dev/interceptor/internal/state"
	"github.com/interceptor-dev/interceptor/internal/token"
)

// Outcome is what a hook run produced. Reply goes to stdout, Warning is the
// one stderr line (if any), Trace is for the debug log and never holds a
// value itself.
type Outcome struct {
	Reply   []byte
	Warning string
	Trace   string
}

// match finds the one server among o.Servers whose tool the event calls.
// A name that could be another configured server's (NotServers) is left
// alone, and so is a name two served servers could both own (one shim or
// script serving wf and wf__admin under Codex's spelling): which server's
// handle it needs cannot be known, and guessing could hand one server's
// value to the other. ambiguous names both servers in that case.
func match(o *carry.Options, ev *hooks.Event) (server, tool string, ambiguous []string, ok bool) {
	for _, s := range o.NotServers {
		if _, ok := ev.Client.Tool(ev, s); ok {
			return "", "", nil, false
		}
	}
	for _, s := range o.Servers {
		t, ok := ev.Client.Tool(ev, s)
		if !ok {
			continue
		}
		if server != "" {
			return "", "", []string{server, s}, false
		}
		server, tool = s, t
	}
	return server, tool, nil, server != ""
}

// notMatched is the outcome for an event whose tool is none of the
// servers', or could be either of two of them.
func notMatched(o *carry.Options, ev *hooks.Event, ambiguous []string) Outcome {
	if ambiguous != nil {
		return Outcome{Warning: fmt.Sprintf("left %q alone: it could be a tool of server %q or of server %q, so neither's token is used", ev.ToolName, ambiguous[0], ambiguous[1])}
	}
	return Outcome{Trace: fmt.Sprintf("skip: %q is not a tool of %v", ev.ToolName, o.Servers)}
}

func wrongPhase(cmd string, want hooks.Phase, ev *hooks.Event) error {
	return fmt.Errorf("%s expects a %s event, but %s sent %q; check which hook runs it", cmd, want, ev.Client.Name(), ev.Name)
}

// noSession is the outcome for an event without a session id when the
// user has not opted in to sharing the server's current record.
func noSession(o *carry.Options, cmd string, ev *hooks.Event) (Outcome, bool) {
	if ev.Session != "" || o.Sessionless {
		return Outcome{}, false
	}
	return Outcome{Warning: fmt.Sprintf("%s sent %q without a session id: nothing %s (--sessionless shares the server's latest values between such events)", ev.Client.Name(), ev.Name, cmd)}, true
}

// stored is the carry.Holder of one server and session of the event: the
// state store's record.
type stored struct {
	st              *state.Store
	server, session string
	client          string
	sessionless     bool
	specs           []token.Spec
	final           token.Holding // what the last Update left
}

func newStored(ev *hooks.Event, st *state.Store, o *carry.Options, server string, specs []token.Spec) *stored {
	return &stored{st: st, server: server, session: ev.Session, client: ev.Client.Name(), sessionless: o.Sessionless, specs: specs}
}

// holding is what the record holds of the specs' handles.
func (s *stored) holding() (token.Holding, error) {
	rec, err := s.st.Get(s.server, s.session)
	if err != nil && !errors.Is(err, state.ErrNotFound) {
		return nil, err
	}
	return carry.Resume(s.specs, rec.Live), nil
}

// Update is carry.Holder's: a record written before handles answers for
// the one handle of flag mode.
func (s *stored) Update(fn func(token.Holding) bool) error {
	return s.st.Update(s.server, s.session, s.client, s.sessionless, func(h token.Holding) (token.Holding, bool) {
		if len(s.specs) == 1 {
			state.AdoptLegacy(h, s.specs[0].Name)
		}
		changed := fn(h)
		s.final = h
		return h, changed
	})
}

// Inject puts the held values into a pre-tool call of one of the servers
// (token.Fill): stand-ins the model copied from earlier results (any
// argument, any tool of the server) become the values they name; a handle
// argument that is a near miss of one held value is repaired; a call that
// carries a handle's argument keeps it; one that carries none gets the
// value held for it, unless its tool does not take the handle or the call
// carries a keep-if argument. A stand-in that names no held value refuses
// the call, with a message the model reads: it must never reach the
// server. A handle whose value was retired (a start tool returned none) is
// not injected, and one stderr line says so.
func Inject(ev *hooks.Event, st *state.Store, o carry.Options) (Outcome, error) {
	if ev.Phase != hooks.PhasePreTool {
		return Outcome{}, wrongPhase("inject", hooks.PhasePreTool, ev)
	}
	server, tool, ambiguous, ok := match(&o, ev)
	if !ok {
		return notMatched(&o, ev, ambiguous), nil
	}
	if out, skip := noSession(&o, "injected", ev); skip {
		return out, nil
	}
	args := ev.Input.Raw
	if !ev.Input.Exists() {
		args = "{}"
	}
	specs := o.Specs()
	hd := newStored(ev, st, &o, server, specs)
	h, err := hd.holding()
	if err != nil {
		return Outcome{}, err
	}
	f, err := token.Fill(args, tool, specs, h, nil)
	var unknown *token.UnknownStandInError
	switch {
	case errors.As(err, &unknown):
		reply, rerr := ev.Client.DecisionReply(ev, hooks.Decision{Reason: unknown.Error()})
		if rerr != nil || len(reply) == 0 {
			return Outcome{}, fmt.Errorf("%s/%s carries a stand-in that names no held value, and %s cannot refuse the call here: %v", server, tool, ev.Client.Name(), unknown)
		}
		return Outcome{Reply: reply, Warning: fmt.Sprintf("refused %s/%s: it carries a stand-in that names no value held for session %q", server, tool, ev.Session)}, nil
	case err != nil:
		return Outcome{}, fmt.Errorf("%s %s: %w", ev.Client.Name(), ev.ToolName, err)
	}
	if err := carry.Retire(hd, specs, tool); err != nil {
		return Outcome{}, err
	}
	var out Outcome
	for _, w := range f.Withheld {
		out.Warning = joinWarnings(out.Warning, fmt.Sprintf("%s/%s: no %s injected: %s; the one held before is not used", server, tool, w.Handle, w.Why))
	}
	out.Trace = fmt.Sprintf("%s/%s (session %q): %s", server, tool, ev.Session, strings.Join(f.Trace, "; "))
	if !f.Changed {
		out.Trace = "skip: " + out.Trace
		return out, nil
	}
	reply, err := ev.Client.InputReply(ev, []byte(f.Args))
	if errors.Is(err, hooks.ErrCannotRewrite) {
		out.Warning = joinWarnings(out.Warning, fmt.Sprintf("%s cannot rewrite tool input on %q; wire inject to its pre-tool hook that can", ev.Client.Name(), ev.Name))
		return out, nil
	}
	if err != nil {
		return Outcome{}, fmt.Errorf("rendering %s reply: %w", ev.Client.Name(), err)
	}
	out.Reply = reply
	return out, nil
}

// Capture stores the values a post-tool result of one of the servers
// mints (carry.Take): a start tool that returns none retires the value
// held before. With Redact it returns the result with every long value
// held for the session (the new ones and older ones the result may echo)
// replaced by its stand-in.
func Capture(ev *hooks.Event, st *state.Store, o carry.Options) (Outcome, error) {
	if ev.Phase != hooks.PhasePostTool {
		return Outcome{}, wrongPhase("capture", hooks.PhasePostTool, ev)
	}
	server, tool, ambiguous, ok := match(&o, ev)
	if !ok {
		return notMatched(&o, ev, ambiguous), nil
	}
	if out, skip := noSession(&o, "captured", ev); skip {
		return out, nil
	}
	specs := o.Specs()
	hd := newStored(ev, st, &o, server, specs)
	carried := make([]string, len(specs))
	for i := range specs {
		carried[i] = specs[i].Carried(ev.Input)
	}
	taken, err := carry.Take(hd, specs, tool, ev.Result(), carried)
	if err != nil {
		return Outcome{}, err
	}
	notes := make([]string, len(taken.Notes))
	for i, n := range taken.Notes {
		notes[i] = fmt.Sprintf("%s/%s: %s", server, tool, n)
	}
	out := Outcome{Warning: strings.Join(notes, "; ")}
	out.Trace = fmt.Sprintf("%s/%s (session %q): ", server, tool, ev.Session)
	if len(taken.Captured) == 0 {
		out.Trace += "no value in the result"
	}
	for i, c := range taken.Captured {
		if i > 0 {
			out.Trace += "; "
		}
		out.Trace += c.String()
	}
	if !o.Redact {
		return out, nil
	}
	hidden := hd.final.Hidden(specs)
	if len(hidden) == 0 {
		return out, nil
	}
	reply, err := ev.Client.RedactReply(ev, hidden)
	switch {
	case errors.Is(err, hooks.ErrCannotRewrite):
		if len(taken.Captured) > 0 {
			out.Warning = joinWarnings(out.Warning, fmt.Sprintf("--redact: %s cannot rewrite tool results on %q; the value stays visible to the model", ev.Client.Name(), ev.Name))
		}
	case err != nil:
		return Outcome{}, fmt.Errorf("rendering %s reply: %w", ev.Client.Name(), err)
	default:
		out.Reply = reply
	}
	return out, nil
}

func joinWarnings(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// Clear forgets the values of the event's session, for the given servers
// or, with none given, for every server.
func Clear(ev *hooks.Event, st *state.Store, servers []string) (Outcome, error) {
	if ev.Session == "" {
		return Outcome{}, fmt.Errorf("clear: the %s event carries no session id", ev.Client.Name())
	}
	if len(servers) == 0 {
		if err := st.DeleteSession(ev.Session); err != nil {
			return Outcome{}, err
		}
	}
	for _, s := range servers {
		if err := st.Delete(s, ev.Session); err != nil {
			return Outcome{}, err
		}
	}
	return Outcome{Trace: fmt.Sprintf("cleared session %q", ev.Session)}, nil
}
