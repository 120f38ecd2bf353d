package approvals

import (
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"
	"time"

	"github.com/interceptor-dev/interceptor/internal/hooks"
	"github.com/interceptor-dev/interceptor/internal/state"
)

// The approve hook's policy: which calls wait for a supervisor, and how a
// failure answers. It fails CLOSED: any problem once the event is read (a
// rule that does not compile, a queue that cannot be used, a decision the
// client cannot carry out) denies the call, with the problem as the reason
// the model reads. internal/hookrun runs it as a hook.

// Rules are the approve hook's rule and timeout flags as given.
type Rules struct {
	Match       string   // --match: only tools whose name matches need approval ("" all)
	Allow, Deny []string // --allow, --deny: decided by name without asking
	Timeout     time.Duration
	OnTimeout   string // --on-timeout: deny or allow
}

// Policy compiles the rules; an error names the flag.
func (r Rules) Policy() (Policy, error) {
	p := Policy{Timeout: r.Timeout}
	switch r.OnTimeout {
	case "deny":
	case "allow":
		p.OnTimeoutAllow = true
	default:
		return p, fmt.Errorf("--on-timeout %q: want deny or allow", r.OnTimeout)
	}
	if r.Timeout <= 0 {
		return p, fmt.Errorf("--timeout %s: must be positive", r.Timeout)
	}
	compile := func(flag, re string) (*regexp.Regexp, error) {
		c, err := regexp.Compile(re)
		if err != nil {
			return nil, fmt.Errorf("--%s %q: %v", flag, re, err)
		}
		return c, nil
	}
	var err error
	if r.Match != "" {
		if p.Match, err = compile("match", r.Match); err != nil {
			return p, err
		}
	}
	for _, x := range r.Deny {
		re, err := compile("deny", x)
		if err != nil {
			return p, err
		}
		p.Deny = append(p.Deny, re)
	}
	for _, x := range r.Allow {
		re, err := compile("allow", x)
		if err != nil {
			return p, err
		}
		p.Allow = append(p.Allow, re)
	}
	return p, nil
}

// Gated is one approve hook's call to decide.
type Gated struct {
	Event    *hooks.Event // a pre-tool event
	StateDir string       // the queue's, and the value store's
	Chat     string       // the child chat that asks, "" none
	Key      string       // the value argument (--arg) shown as a stand-in
}

// Gate has g's call decided under p (Store.Ask: by the rules, else by a
// supervisor) and returns the client's answer and a trace line. A call p
// does not decide gets no answer: the client's own rules apply. An error
// (the queue, a decision the client cannot carry out) must deny the call:
// FailedDeny.
func Gate(ctx context.Context, p Policy, g Gated) (reply []byte, trace string, err error) {
	ev := g.Event
	if !p.Decides(ev.ToolName) {
		return nil, fmt.Sprintf("tool=%s not matched by --match: passed through", ev.ToolName), nil
	}
	input := ev.Input.Raw
	if input == "" {
		input = "{}"
	}
	cwd, projectDir := ev.Cwd(), ""
	if ev.Client.Name() == hooks.ClaudeCodeClient.Name {
		projectDir = os.Getenv("CLAUDE_PROJECT_DIR") // Claude Code sets it for its hooks
	}
	d, err := New(g.StateDir).Ask(ctx, p, Call{
		Client:  ev.Client.Name(),
		Session: ev.Session,
		Tool:    ev.ToolName,
		Input:   input,
		Cwd:     cwd,
		Project: ProjectOf(projectDir, cwd),
		Origin:  fmt.Sprintf("approve hook pid %d", os.Getpid()),
		Chat:    g.Chat,
		Tokens:  state.New(g.StateDir),
		Key:     g.Key,
		// A stand-in in a supervisor's new input resolves only to a value
		// of the server the event says the tool is of.
		Owns: func(server string) bool { _, ok := ev.Client.Tool(ev, server); return ok },
	})
	if err != nil {
		return nil, "", err
	}
	b, err := ev.Client.DecisionReply(ev, d)
	if errors.Is(err, hooks.ErrCannotRewrite) && d.Allow && d.UpdatedInput != "" {
		return nil, "", fmt.Errorf("%s cannot change the input of a %s call; the allow with new input is not applied", ev.Client.Name(), ev.Name)
	}
	if err != nil {
		return nil, "", err
	}
	return b, fmt.Sprintf("tool=%s allow=%t %s", ev.ToolName, d.Allow, d.By), nil
}

// FailedDeny is the deny of ev's call when the hook failed with problem
// (one line).
func FailedDeny(ev *hooks.Event, problem string) ([]byte, error) {
	return ev.Client.DecisionReply(ev, hooks.Decision{Reason: "interceptor approve failed, so the call is denied: " + problem})
}

// UnreadDeny is the deny, in client's shape, of an event that could not
// be fully read (problem: one line). The model controls much of an event
// (a tool input nested too deep, a payload too large): passing it through
// would let the model skip approval.
func UnreadDeny(client hooks.Adapter, problem string) ([]byte, error) {
	return hooks.DenyUnread(client, "interceptor approve could not read the hook event, so the call is denied: "+problem)
}
