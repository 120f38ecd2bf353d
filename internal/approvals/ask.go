package approvals

import (
	"context"
	"fmt"
	"regexp"
	"time"

	"github.com/interceptor-dev/interceptor/internal/hooks"
	"github.com/interceptor-dev/interceptor/internal/state"
	"github.com/interceptor-dev/interceptor/internal/token"
)

// Policy is how a tool call is decided: by rule first, else by a supervisor
// through the queue. The approve hook builds it from its flags, permit from
// its options.
type Policy struct {
	// Match, when set, limits approval to tools whose name matches; any
	// other call is not ours to decide (Asks).
	Match *regexp.Regexp
	// Deny and Allow decide a call by its tool name without asking; a Deny
	// match wins.
	Deny, Allow []*regexp.Regexp
	// Timeout is how long a queued call waits for a decision (default
	// DefaultTimeout); OnTimeoutAllow allows it instead of denying after.
	Timeout        time.Duration
	OnTimeoutAllow bool
}

// Decides reports whether p decides a call of tool at all. When it does
// not (Match is set and does not match), the call is left to the client's
// own rules: the approve hook prints nothing, and permit, which Claude Code
// asks only when nothing else allowed the call, allows it.
func (p Policy) Decides(tool string) bool {
	return p.Match == nil || p.Match.MatchString(tool)
}

// Call is one tool call to decide.
type Call struct {
	Client  string // the client's --client name
	Session string // the client's session id
	Tool    string // the tool name as the client sent it
	Input   string // the tool arguments, raw JSON ("" or invalid: {})
	Origin  string // what asks, e.g. "approve hook pid 123"
	// Chat is the child chat that asks (interceptor children), "" none;
	// ToolUseID the client's id of the call, when it sends one.
	Chat, ToolUseID string
	// Cwd and Project are the session's working directory and project
	// (ProjectOf), "" when not known: shown to the person, and what
	// project rules and path prefixes match on.
	Cwd, Project string
	// Tokens is the token store and Key the token argument (default
	// DefaultKey): the record shows stand-ins for the session's tokens and
	// for every value under Key, and a supervisor's new input naming a
	// token by its stand-in gets it back (see Secrets), when the token is
	// held on the server whose tool Tool is. With Tokens nil only the
	// values under Key are masked.
	Tokens *state.Store
	Key    string
	// Owns reports whether Tool is a tool of server: the approve hook asks
	// its event (which may name the server exactly, as Claude Code's and
	// Gemini CLI's do). Nil: by Client's spelling of tool names.
	Owns func(server string) bool
}

// owns is Owns, or the client's spelling of tool names; a client not known
// owns nothing (no stand-in resolves).
func (c Call) owns() func(server string) bool {
	if c.Owns != nil {
		return c.Owns
	}
	client, ok := hooks.FindClient(c.Client)
	return func(server string) bool {
		if !ok {
			return false
		}
		_, mine := client.MatchTool(c.Tool, server)
		return mine
	}
}

// Ask decides c under p, which must decide it (Policy.Decides): a Deny
// rule, an Allow rule, else a queued request (its input masked: the
// supervisor never reads the child's tokens) that waits for a supervisor
// until p.Timeout, when it expires and is denied (or allowed with
// OnTimeoutAllow). When ctx ends first (the client cancelled the call) the
// request expires and the call is denied. The decision's By says what
// decided, for traces; a supervisor's new input comes back with the real
// token wherever the supervisor put a stand-in. An error means no decision
// could be had: the caller fails closed.
func (s *Store) Ask(ctx context.Context, p Policy, c Call) (hooks.Decision, error) {
	if p.Timeout <= 0 {
		p.Timeout = DefaultTimeout
	}
	for _, re := range p.Deny {
		if re.MatchString(c.Tool) {
			return hooks.Decision{Reason: fmt.Sprintf("%s is denied by rule (--deny %s)", c.Tool, re), By: "rule --deny " + re.String()}, nil
		}
	}
	rules, err := s.Rules()
	if err != nil {
		return hooks.Decision{}, err
	}
	ruling := Ruling(rules, c)
	if ruling != nil && !ruling.Allow {
		return s.ruled(c, *ruling)
	}
	for _, re := range p.Allow {
		if re.MatchString(c.Tool) {
			return hooks.Decision{Allow: true, By: "rule --allow " + re.String()}, nil
		}
	}
	if ruling != nil {
		return s.ruled(c, *ruling)
	}
	secrets := LoadSecrets(c.Tokens, c.Session, c.Key)
	r := Request{
		Client: c.Client, Session: c.Session, Tool: c.Tool, Input: secrets.Mask(c.Input),
		Deadline: time.Now().Add(p.Timeout), Origin: c.Origin, Chat: c.Chat, ToolUseID: c.ToolUseID,
		Cwd: c.Cwd, Project: c.Project,
	}
	secrets.MaskStrings(&r.Tool, &r.Origin, &r.Chat, &r.ToolUseID, &r.Cwd, &r.Project)
	req, err := s.Enqueue(r)
	if err != nil {
		return hooks.Decision{}, err
	}
	wctx, cancel := context.WithTimeout(ctx, p.Timeout)
	defer cancel()
	got, err := s.Wait(wctx, req.ID)
	if err != nil {
		if wctx.Err() == nil {
			return hooks.Decision{}, err
		}
		by := "timeout after " + p.Timeout.String()
		if ctx.Err() != nil {
			by = "the client cancelled the call"
		}
		// Expire it, unless a decision won the race.
		if got, err = s.Expire(req.ID, by); err != nil {
			return hooks.Decision{}, err
		}
	}
	switch got.Status {
	case Allowed, Denied:
		held, whyNot := secrets.ToolValues(c.Tool, c.owns())
		return decided(got, held, whyNot), nil
	}
	if ctx.Err() != nil {
		return hooks.Decision{Reason: fmt.Sprintf("the call was cancelled before a supervisor decided (approval request %s); denied", got.ID), By: "cancelled, denied"}, nil
	}
	msg := fmt.Sprintf("no supervisor decided within %s (approval request %s)", p.Timeout, got.ID)
	if p.OnTimeoutAllow {
		return hooks.Decision{Allow: true, Reason: msg + "; allowed by --on-timeout allow", By: "expired, --on-timeout allow"}, nil
	}
	return hooks.Decision{Reason: msg + "; denied", By: "expired, denied"}, nil
}

// decided is the decision a supervisor recorded on got, for the call that
// waits: By names the request, and new input that names a token by its
// stand-in gets the token back (the supervisor saw stand-ins; the call runs
// with the tokens), from held: what the session holds on the server whose
// tool the call is. A stand-in held does not name denies the call, and so
// does any stand-in when whyNot says no value may be given to the tool:
// the call never goes out with a stand-in's text or another server's
// value.
func decided(got Request, held token.Held, whyNot error) hooks.Decision {
	d := got.Decision()
	d.By = "request " + got.ID + " " + string(got.Status) + " by " + got.DecidedBy
	if d.UpdatedInput == "" {
		return d
	}
	upd, _, err := token.ResolveStandIns(d.UpdatedInput, held)
	if err != nil {
		why := err.Error()
		if whyNot != nil {
			why = "it names a held value by its stand-in and " + whyNot.Error()
		}
		return hooks.Decision{Reason: fmt.Sprintf("the supervisor allowed request %s with new input, but %s; denied", got.ID, why),
			By: "request " + got.ID + " allowed by " + got.DecidedBy + " with a stand-in that names no value of the tool's server, denied"}
	}
	d.UpdatedInput = upd
	return d
}
