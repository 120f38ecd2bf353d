package approvals

import (
	"context"
	"fmt"
	"regexp"
	"time"

	"github.com/interceptor-dev/interceptor/internal/state"
	"github.com/interceptor-dev/interceptor/internal/token"
)

// Policy is how a tool call is decided: by rule first, else by a supervisor
// through the queue. The approve hook builds it from its flags, permit from
// its options.
type Policy struct {
	// Match, when set, limits approval to tools whose name matches; any
	// other call is not ours to decide (Answer.Pass).
	Match *regexp.Regexp
	// Deny and Allow decide a call by its tool name without asking; a Deny
	// match wins.
	Deny, Allow []*regexp.Regexp
	// Timeout is how long a queued call waits for a decision (default
	// DefaultTimeout); OnTimeoutAllow allows it instead of denying after.
	Timeout        time.Duration
	OnTimeoutAllow bool
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
	// Tokens is the token store and Key the token argument (default
	// DefaultKey): the record shows stand-ins for the session's tokens and
	// for every value under Key, and a supervisor's new input naming a
	// token by its stand-in gets it back (see Secrets). With Tokens nil
	// only the values under Key are masked.
	Tokens *state.Store
	Key    string
}

// Answer is the decision on a Call.
type Answer struct {
	// Pass: Policy.Match does not match; print nothing, the client's own
	// rules apply. Allow and the rest are unset.
	Pass bool
	// Allow runs the call; false denies it.
	Allow bool
	// Message is the reason the model reads (a deny always has one).
	Message string
	// UpdatedInput is the supervisor's replacement arguments (allow only),
	// with the real token wherever the supervisor put a stand-in; "" keeps
	// the call's own.
	UpdatedInput string
	// Why says how it was decided, for traces: a rule, or the request id
	// and who decided it.
	Why string
}

// Ask decides c under p: a Deny rule, an Allow rule, else a queued request
// (its input masked: the supervisor never reads the child's tokens) that
// waits for a supervisor until p.Timeout, when it expires and is denied (or
// allowed with OnTimeoutAllow). When ctx ends first (the client
// cancelled the call) the request expires and the call is denied. An error
// means no decision could be had: the caller fails closed.
func (s *Store) Ask(ctx context.Context, p Policy, c Call) (Answer, error) {
	if p.Timeout <= 0 {
		p.Timeout = DefaultTimeout
	}
	if p.Match != nil && !p.Match.MatchString(c.Tool) {
		return Answer{Pass: true, Why: "not matched by --match: passed through"}, nil
	}
	for _, re := range p.Deny {
		if re.MatchString(c.Tool) {
			return Answer{Message: fmt.Sprintf("%s is denied by rule (--deny %s)", c.Tool, re), Why: "rule --deny " + re.String()}, nil
		}
	}
	for _, re := range p.Allow {
		if re.MatchString(c.Tool) {
			return Answer{Allow: true, Why: "rule --allow " + re.String()}, nil
		}
	}
	secrets := LoadSecrets(c.Tokens, c.Session, c.Key)
	req, err := s.Enqueue(Request{
		Client: c.Client, Session: c.Session, Tool: c.Tool, Input: secrets.Mask(c.Input),
		Deadline: time.Now().Add(p.Timeout), Origin: c.Origin,
		Chat: c.Chat, ToolUseID: c.ToolUseID,
	})
	if err != nil {
		return Answer{}, err
	}
	wctx, cancel := context.WithTimeout(ctx, p.Timeout)
	defer cancel()
	got, err := s.Wait(wctx, req.ID)
	if err != nil {
		if wctx.Err() == nil {
			return Answer{}, err
		}
		by := "timeout after " + p.Timeout.String()
		if ctx.Err() != nil {
			by = "the client cancelled the call"
		}
		// Expire it, unless a decision won the race.
		if got, err = s.Expire(req.ID, by); err != nil {
			return Answer{}, err
		}
	}
	switch got.Status {
	case Allowed:
		upd := got.Updated
		if upd != "" {
			// The supervisor saw stand-ins; the call runs with the tokens.
			var err error
			if upd, _, err = token.ResolveStandIns(upd, secrets.Held); err != nil {
				return Answer{Message: fmt.Sprintf("the supervisor allowed request %s with new input, but %v; denied", got.ID, err),
					Why: "request " + got.ID + " allowed by " + got.DecidedBy + " with an unknown stand-in, denied"}, nil
			}
		}
		return Answer{Allow: true, Message: got.Message, UpdatedInput: upd, Why: "request " + got.ID + " allowed by " + got.DecidedBy}, nil
	case Denied:
		msg := got.Message
		if msg == "" {
			msg = "denied by the supervisor"
		}
		return Answer{Message: msg, Why: "request " + got.ID + " denied by " + got.DecidedBy}, nil
	}
	if ctx.Err() != nil {
		return Answer{Message: fmt.Sprintf("the call was cancelled before a supervisor decided (approval request %s); denied", got.ID), Why: "cancelled, denied"}, nil
	}
	msg := fmt.Sprintf("no supervisor decided within %s (approval request %s)", p.Timeout, got.ID)
	if p.OnTimeoutAllow {
		return Answer{Allow: true, Message: msg + "; allowed by --on-timeout allow", Why: "expired, --on-timeout allow"}, nil
	}
	return Answer{Message: msg + "; denied", Why: "expired, denied"}, nil
}
