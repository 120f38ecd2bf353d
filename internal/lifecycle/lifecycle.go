// Package lifecycle is the token lifecycle of hook mode, independent of any
// client: inject the held token into a call, capture the new one from a
// result, forget a session's token when it ends. Client formats stay in
// internal/hooks; the token logic itself is in internal/token.
package lifecycle

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/interceptor-dev/interceptor/internal/hooks"
	"github.com/interceptor-dev/interceptor/internal/state"
	"github.com/interceptor-dev/interceptor/internal/token"
)

// Options are the hook options shared by inject and capture.
type Options struct {
	Servers []string // the token servers; tools of any other server are left alone
	// NotServers are configured servers whose tool names could be read as a
	// server's too (Codex's mcp__wf__admin__drop may be server wf__admin):
	// a tool that matches one of them is never given a token.
	NotServers []string
	// Handles are the values carried, from a --handles file; nil: the one
	// handle the flags below describe (token.FlagSpec).
	Handles    []token.Spec
	Arg        string         // the argument the token goes into
	MetaKey    string         // the key the server returns the token under
	MinLen     int            // shortest value taken for a token from a prose line
	Pattern    *regexp.Regexp // when set, a token must match it whole
	SkipTools  []string       // tools never given the latest token (e.g. start_session)
	KeepIf     []string       // arguments that, when present, mean the call needs no token
	StartTools []string       // tools that start a session: one that returns no token retires the old one
	Redact     bool           // replace tokens with stand-ins in what the model reads
	// Sessionless lets events that carry no session id use the server's
	// current record, which every capture then also writes: the last value
	// any session captured. Off, such events get and keep nothing (every
	// client observed sends a session id).
	Sessionless bool
}

// Specs are the handles the options carry.
func (o Options) Specs() []token.Spec {
	if o.Handles != nil {
		return o.Handles
	}
	return []token.Spec{token.FlagSpec(o.Arg, o.MetaKey, o.MinLen, o.Pattern, o.StartTools, o.SkipTools, o.KeepIf)}
}

// Outcome is what a hook run produced. Reply goes to stdout, Warning is the
// one stderr line (if any), Trace is for the debug log and never holds a
// value itself.
type Outcome struct {
	Reply   []byte
	Warning string
	Trace   string
}

// Validate checks the options a user gave, so a typo is reported once and
// clearly instead of as a silent no-op.
func (o Options) Validate() error {
	if len(o.Servers) == 0 {
		return errors.New("--server is required (or INTERCEPTOR_SERVER)")
	}
	for _, s := range o.Servers {
		if s == "" {
			return errors.New("--server names an empty server")
		}
	}
	if o.Handles != nil {
		return token.CheckAll(o.Handles)
	}
	if err := token.ValidateKey(o.Arg); err != nil {
		return fmt.Errorf("--arg: %w", err)
	}
	if err := token.ValidateKey(o.MetaKey); err != nil {
		return fmt.Errorf("--meta-key: %w", err)
	}
	return nil
}

// ValidateHooks is Validate for hook mode, where no tool schema says which
// tools take a handle: a handles file must name them (to.tools, to.match).
func (o Options) ValidateHooks() error {
	if err := o.Validate(); err != nil {
		return err
	}
	for _, s := range o.Handles {
		if !s.Declared() {
			return fmt.Errorf("handle %q: hooks need \"to\" (to.tools or to.match: the tools that take it); only the proxy learns them from tools/list", s.Name)
		}
	}
	return nil
}

// match finds the one server among o.Servers whose tool the event calls.
// A name that could be another configured server's (NotServers) is left
// alone, and so is a name two served servers could both own (one shim or
// script serving wf and wf__admin under Codex's spelling): which server's
// token it needs cannot be known, and guessing could hand one server's
// token to the other. ambiguous names both servers in that case.
func (o Options) match(ev *hooks.Event) (server, tool string, ambiguous []string, ok bool) {
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
func (o Options) notMatched(ev *hooks.Event, ambiguous []string) Outcome {
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
func (o Options) noSession(cmd string, ev *hooks.Event) (Outcome, bool) {
	if ev.Session != "" || o.Sessionless {
		return Outcome{}, false
	}
	return Outcome{Warning: fmt.Sprintf("%s sent %q without a session id: nothing %s (--sessionless shares the server's latest values between such events)", ev.Client.Name(), ev.Name, cmd)}, true
}

// holding is what rec holds of the specs' handles (a record written
// before handles answers for the one handle of flag mode).
func holding(rec state.Record, specs []token.Spec) token.Holding {
	h := token.Holding{}
	for _, s := range specs {
		if l := rec.Live(s.Name); len(l.Values) > 0 || l.Withdrawn != "" {
			h[s.Name] = l
		}
	}
	return h
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
func Inject(ev *hooks.Event, st *state.Store, o Options) (Outcome, error) {
	if ev.Phase != hooks.PhasePreTool {
		return Outcome{}, wrongPhase("inject", hooks.PhasePreTool, ev)
	}
	server, tool, ambiguous, ok := o.match(ev)
	if !ok {
		return o.notMatched(ev, ambiguous), nil
	}
	if out, skip := o.noSession("injected", ev); skip {
		return out, nil
	}
	args := ev.Input.Raw
	if !ev.Input.Exists() {
		args = "{}"
	}
	rec, err := st.Get(server, ev.Session)
	if err != nil && !errors.Is(err, state.ErrNotFound) {
		return Outcome{}, err
	}
	specs := o.Specs()
	f, err := token.Fill(args, tool, specs, holding(rec, specs), nil)
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
	if err := o.retireOnStart(ev, st, server, tool, specs); err != nil {
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

// retireOnStart retires, when tool starts a handle over, the value held
// for it (token.Spec.Starting): the value the start's result mints takes
// its place, and when no result reaches capture (a failed call: Codex runs
// no post-tool hook for it) nothing older is injected after it.
func (o Options) retireOnStart(ev *hooks.Event, st *state.Store, server, tool string, specs []token.Spec) error {
	if !slices.ContainsFunc(specs, func(s token.Spec) bool { return s.StartedBy(tool) }) {
		return nil
	}
	return st.Update(server, ev.Session, ev.Client.Name(), o.Sessionless, func(h token.Holding) (token.Holding, bool) {
		if len(specs) == 1 {
			state.AdoptLegacy(h, specs[0].Name)
		}
		changed := false
		for i := range specs {
			if l, ok := specs[i].Starting(h[specs[i].Name], tool); ok {
				h[specs[i].Name], changed = l, true
			}
		}
		return h, changed
	})
}

// Capture stores the values a post-tool result of one of the servers
// mints (token.Spec.Mint, Apply): a start tool that returns none retires
// the value held before. With Redact it returns the result with every long
// value held for the session (the new ones and older ones the result may
// echo) replaced by its stand-in.
func Capture(ev *hooks.Event, st *state.Store, o Options) (Outcome, error) {
	if ev.Phase != hooks.PhasePostTool {
		return Outcome{}, wrongPhase("capture", hooks.PhasePostTool, ev)
	}
	server, tool, ambiguous, ok := o.match(ev)
	if !ok {
		return o.notMatched(ev, ambiguous), nil
	}
	if out, skip := o.noSession("captured", ev); skip {
		return out, nil
	}
	specs := o.Specs()
	// What the event says is read once, outside Update's closure (which
	// runs again when another writer got there first).
	type minted struct {
		read    token.Reading
		carried string
	}
	mints := make([]minted, len(specs))
	result := ev.Result()
	for i := range specs {
		mints[i].read = specs[i].Read(tool, result)
		mints[i].carried = specs[i].Carried(ev.Input)
	}
	var (
		notes  []string
		traces []string
		final  token.Holding
	)
	err := st.Update(server, ev.Session, ev.Client.Name(), o.Sessionless, func(h token.Holding) (token.Holding, bool) {
		notes, traces = nil, nil
		if len(specs) == 1 {
			state.AdoptLegacy(h, specs[0].Name)
		}
		changed := false
		for i := range specs {
			s := &specs[i]
			before := h[s.Name]
			m, merr := mints[i].read.For(before) // no prose lines once _meta carried it
			after, note := s.Apply(before, tool, m, merr, mints[i].carried)
			if note != "" {
				notes = append(notes, fmt.Sprintf("%s/%s: %s", server, tool, note))
			}
			if len(m.Values) > 0 {
				traces = append(traces, fmt.Sprintf("captured %d %s value(s), the first %s, from %s", len(m.Values), s.Name, token.Mask(m.Values[0]), m.Where))
			}
			if !sameLive(before, after) {
				h[s.Name], changed = after, true
			}
		}
		final = h
		return h, changed
	})
	if err != nil {
		return Outcome{}, err
	}
	out := Outcome{Warning: strings.Join(notes, "; ")}
	out.Trace = fmt.Sprintf("%s/%s (session %q): ", server, tool, ev.Session)
	if len(traces) == 0 {
		out.Trace += "no value in the result"
	} else {
		out.Trace += strings.Join(traces, "; ")
	}
	if !o.Redact {
		return out, nil
	}
	hidden := final.Hidden(specs)
	if len(hidden) == 0 {
		return out, nil
	}
	reply, err := ev.Client.RedactReply(ev, hidden)
	switch {
	case errors.Is(err, hooks.ErrCannotRewrite):
		if len(traces) > 0 {
			out.Warning = joinWarnings(out.Warning, fmt.Sprintf("--redact: %s cannot rewrite tool results on %q; the value stays visible to the model", ev.Client.Name(), ev.Name))
		}
	case err != nil:
		return Outcome{}, fmt.Errorf("rendering %s reply: %w", ev.Client.Name(), err)
	default:
		out.Reply = reply
	}
	return out, nil
}

// sameLive reports whether two Lives hold the same.
func sameLive(a, b token.Live) bool {
	return a.Default == b.Default && a.Withdrawn == b.Withdrawn && a.MetaSeen == b.MetaSeen && slices.Equal(a.Values, b.Values)
}

func joinWarnings(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// Clear forgets the token of the event's session, for the given servers or,
// with none given, for every server.
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
