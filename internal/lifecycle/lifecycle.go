// Package lifecycle is the token lifecycle of hook mode, independent of any
// client: inject the held token into a call, capture the new one from a
// result, forget a session's token when it ends. Client formats stay in
// internal/hooks; the token logic itself is in internal/token.
package lifecycle

import (
	"errors"
	"fmt"
	"slices"

	"github.com/interceptor-dev/interceptor/internal/hooks"
	"github.com/interceptor-dev/interceptor/internal/state"
	"github.com/interceptor-dev/interceptor/internal/token"
)

// Options are the hook options shared by inject and capture.
type Options struct {
	Servers   []string // the token servers; tools of any other server are left alone
	Arg       string   // the argument the token goes into
	MetaKey   string   // the key the server returns the token under
	SkipTools []string // tools never injected (e.g. start_session)
	KeepIf    []string // arguments that, when present, mean the call needs no token
	Redact    bool     // remove the token from what the model reads
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

func (o Options) match(ev *hooks.Event) (server, tool string, ok bool) {
	for _, s := range o.Servers {
		if tool, ok := ev.Client.Tool(ev, s); ok {
			return s, tool, true
		}
	}
	return "", "", false
}

func wrongPhase(cmd string, want hooks.Phase, ev *hooks.Event) error {
	return fmt.Errorf("%s expects a %s event, but %s sent %q; check which hook runs it", cmd, want, ev.Client.Name(), ev.Name)
}

// Inject puts the held token into a pre-tool call of one of the servers.
func Inject(ev *hooks.Event, st *state.Store, o Options) (Outcome, error) {
	if ev.Phase != hooks.PhasePreTool {
		return Outcome{}, wrongPhase("inject", hooks.PhasePreTool, ev)
	}
	server, tool, ok := o.match(ev)
	if !ok {
		return Outcome{Trace: fmt.Sprintf("skip: %q is not a tool of %v", ev.ToolName, o.Servers)}, nil
	}
	if slices.Contains(o.SkipTools, tool) {
		return Outcome{Trace: fmt.Sprintf("skip: %s/%s is a skipped tool", server, tool)}, nil
	}
	keep := o.KeepIf
	if !slices.Contains(keep, o.Arg) {
		keep = append(slices.Clone(keep), o.Arg)
	}
	if token.Carries(ev.Input, keep) {
		return Outcome{Trace: fmt.Sprintf("skip: %s/%s already carries one of %v", server, tool, keep)}, nil
	}
	rec, err := st.Get(server, ev.Session)
	if errors.Is(err, state.ErrNotFound) {
		return Outcome{Trace: fmt.Sprintf("skip: no token held for %s session %q", server, ev.Session)}, nil
	}
	if err != nil {
		return Outcome{}, err
	}
	args := ev.Input.Raw
	if !ev.Input.Exists() {
		args = "{}"
	}
	injected, err := token.Inject(args, o.Arg, rec.Token)
	if err != nil {
		return Outcome{}, fmt.Errorf("%s %s: %w", ev.Client.Name(), ev.ToolName, err)
	}
	reply, err := ev.Client.InputReply(ev, injected)
	if errors.Is(err, hooks.ErrCannotRewrite) {
		return Outcome{Warning: fmt.Sprintf("%s cannot rewrite tool input on %q; wire inject to its pre-tool hook that can", ev.Client.Name(), ev.Name)}, nil
	}
	if err != nil {
		return Outcome{}, fmt.Errorf("rendering %s reply: %w", ev.Client.Name(), err)
	}
	return Outcome{Reply: reply, Trace: fmt.Sprintf("injected %s into %s/%s (session %q)", token.Mask(rec.Token), server, tool, ev.Session)}, nil
}

// Capture stores the token a post-tool result of one of the servers carries,
// and with Redact returns the result without it.
func Capture(ev *hooks.Event, st *state.Store, o Options) (Outcome, error) {
	if ev.Phase != hooks.PhasePostTool {
		return Outcome{}, wrongPhase("capture", hooks.PhasePostTool, ev)
	}
	server, tool, ok := o.match(ev)
	if !ok {
		return Outcome{Trace: fmt.Sprintf("skip: %q is not a tool of %v", ev.ToolName, o.Servers)}, nil
	}
	tok, src, ok := token.Find(ev.Result(), o.MetaKey)
	if !ok {
		return Outcome{Trace: fmt.Sprintf("skip: no %s in the result of %s/%s", o.MetaKey, server, tool)}, nil
	}
	if err := token.Validate(tok); err != nil {
		return Outcome{Warning: fmt.Sprintf("refused the %s in %s of %s/%s: %v; nothing stored", o.MetaKey, src, server, tool, err)}, nil
	}
	rec := state.Record{Token: tok, Server: server, Session: ev.Session, Client: ev.Client.Name()}
	if err := st.Put(rec); err != nil {
		return Outcome{}, err
	}
	out := Outcome{Trace: fmt.Sprintf("captured %s from %s of %s/%s (session %q)", token.Mask(tok), src, server, tool, ev.Session)}
	if !o.Redact {
		return out, nil
	}
	reply, err := ev.Client.RedactReply(ev, o.MetaKey, tok)
	switch {
	case errors.Is(err, hooks.ErrCannotRewrite):
		out.Warning = fmt.Sprintf("--redact: %s cannot rewrite tool results on %q; the token stays visible to the model", ev.Client.Name(), ev.Name)
	case err != nil:
		return Outcome{}, fmt.Errorf("rendering %s reply: %w", ev.Client.Name(), err)
	default:
		out.Reply = reply
	}
	return out, nil
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
