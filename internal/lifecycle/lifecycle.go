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

	"github.com/interceptor-dev/interceptor/internal/hooks"
	"github.com/interceptor-dev/interceptor/internal/state"
	"github.com/interceptor-dev/interceptor/internal/token"
	"github.com/tidwall/gjson"
)

// Options are the hook options shared by inject and capture.
type Options struct {
	Servers []string // the token servers; tools of any other server are left alone
	// NotServers are configured servers whose tool names could be read as a
	// server's too (Codex's mcp__wf__admin__drop may be server wf__admin):
	// a tool that matches one of them is never given a token.
	NotServers []string
	Arg        string         // the argument the token goes into
	MetaKey    string         // the key the server returns the token under
	MinLen     int            // shortest value taken for a token
	Pattern    *regexp.Regexp // when set, a token must match it whole
	SkipTools  []string       // tools never given the latest token (e.g. start_session)
	KeepIf     []string       // arguments that, when present, mean the call needs no token
	Redact     bool           // replace tokens with stand-ins in what the model reads
}

// rules are the options' token rules.
func (o Options) rules() token.Rules {
	return token.Rules{Key: o.MetaKey, MinLen: o.MinLen, Pattern: o.Pattern}
}

// Outcome is what a hook run produced. Reply goes to stdout, Warning is the
// one stderr line (if any), Trace is for the debug log and never holds the
// token itself.
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
	if err := token.ValidateKey(o.Arg); err != nil {
		return fmt.Errorf("--arg: %w", err)
	}
	if err := token.ValidateKey(o.MetaKey); err != nil {
		return fmt.Errorf("--meta-key: %w", err)
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

// Inject puts the held token into a pre-tool call of one of the servers.
// Stand-ins the model copied from earlier results (any argument, any tool of
// the server, start_session too) become the tokens they name; a call that
// then carries no token gets the latest one, unless it is a skipped tool or
// carries a keep-if argument. A stand-in that names no held token refuses
// the call, with a message the model reads: it must never reach the server.
func Inject(ev *hooks.Event, st *state.Store, o Options) (Outcome, error) {
	if ev.Phase != hooks.PhasePreTool {
		return Outcome{}, wrongPhase("inject", hooks.PhasePreTool, ev)
	}
	server, tool, ambiguous, ok := o.match(ev)
	if !ok {
		return o.notMatched(ev, ambiguous), nil
	}
	args := ev.Input.Raw
	if !ev.Input.Exists() {
		args = "{}"
	}
	rec, err := st.Get(server, ev.Session)
	if err != nil && !errors.Is(err, state.ErrNotFound) {
		return Outcome{}, err
	}
	held := rec.Held()
	resolved, changed, err := token.ResolveStandIns(args, held)
	var unknown *token.UnknownStandInError
	if errors.As(err, &unknown) {
		reply, rerr := ev.Client.DecisionReply(ev, hooks.Decision{Reason: unknown.Error()})
		if rerr != nil || len(reply) == 0 {
			return Outcome{}, fmt.Errorf("%s/%s carries a stand-in that names no held token, and %s cannot refuse the call here: %v", server, tool, ev.Client.Name(), unknown)
		}
		return Outcome{Reply: reply, Warning: fmt.Sprintf("refused %s/%s: it carries a stand-in that names no token held for session %q", server, tool, ev.Session)}, nil
	}
	trace := ""
	if changed {
		args, trace = resolved, "resolved stand-ins; "
	}
	keep := o.KeepIf
	if !slices.Contains(keep, o.Arg) {
		keep = append(slices.Clone(keep), o.Arg)
	}
	switch {
	case slices.Contains(o.SkipTools, tool):
		trace += fmt.Sprintf("%s/%s is a skipped tool", server, tool)
	case token.Carries(gjson.Parse(args), keep):
		trace += fmt.Sprintf("%s/%s already carries one of %v", server, tool, keep)
	case len(held) == 0:
		trace += fmt.Sprintf("no token held for %s session %q", server, ev.Session)
	default:
		injected, err := token.Inject(args, o.Arg, held[0])
		if err != nil {
			return Outcome{}, fmt.Errorf("%s %s: %w", ev.Client.Name(), ev.ToolName, err)
		}
		args, changed = string(injected), true
		trace += fmt.Sprintf("injected %s into %s/%s (session %q)", token.Mask(held[0]), server, tool, ev.Session)
	}
	if !changed {
		return Outcome{Trace: "skip: " + trace}, nil
	}
	reply, err := ev.Client.InputReply(ev, []byte(args))
	if errors.Is(err, hooks.ErrCannotRewrite) {
		return Outcome{Warning: fmt.Sprintf("%s cannot rewrite tool input on %q; wire inject to its pre-tool hook that can", ev.Client.Name(), ev.Name)}, nil
	}
	if err != nil {
		return Outcome{}, fmt.Errorf("rendering %s reply: %w", ev.Client.Name(), err)
	}
	return Outcome{Reply: reply, Trace: trace}, nil
}

// Capture stores the token a post-tool result of one of the servers carries,
// and with Redact returns the result with every token held for the session
// (the new one and older ones the result may echo) replaced by its stand-in.
func Capture(ev *hooks.Event, st *state.Store, o Options) (Outcome, error) {
	if ev.Phase != hooks.PhasePostTool {
		return Outcome{}, wrongPhase("capture", hooks.PhasePostTool, ev)
	}
	server, tool, ambiguous, ok := o.match(ev)
	if !ok {
		return o.notMatched(ev, ambiguous), nil
	}
	var out Outcome
	tok, src, err := token.Choose(ev.Result(), o.rules())
	switch {
	case err != nil:
		out.Warning = fmt.Sprintf("%s/%s: %v", server, tool, err)
	case tok == "":
		out.Trace = fmt.Sprintf("no %s in the result of %s/%s", o.MetaKey, server, tool)
	default:
		rec := state.Record{Token: tok, Server: server, Session: ev.Session, Client: ev.Client.Name()}
		if err := st.Put(rec); err != nil {
			return Outcome{}, err
		}
		out.Trace = fmt.Sprintf("captured %s from %s of %s/%s (session %q)", token.Mask(tok), src, server, tool, ev.Session)
	}
	if !o.Redact {
		return out, nil
	}
	rec, err := st.Get(server, ev.Session)
	if err != nil && !errors.Is(err, state.ErrNotFound) {
		return Outcome{}, err
	}
	held := rec.Held()
	if tok != "" && (len(held) == 0 || held[0] != tok) {
		held = held.Push(tok) // another session's capture got in between: still hide ours
	}
	if len(held) == 0 {
		return out, nil
	}
	reply, err := ev.Client.RedactReply(ev, o.MetaKey, held)
	switch {
	case errors.Is(err, hooks.ErrCannotRewrite):
		if tok != "" {
			out.Warning = joinWarnings(out.Warning, fmt.Sprintf("--redact: %s cannot rewrite tool results on %q; the token stays visible to the model", ev.Client.Name(), ev.Name))
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
