package inbox

import (
	"context"
	"errors"
	"fmt"

	"github.com/interceptor-dev/interceptor/internal/approvals"
	"github.com/interceptor-dev/interceptor/internal/hooks"
)

// Source is where the page's requests come from and where its decisions,
// answers and rules go: this machine's queue (Local, the default), or
// every machine's through NATS (internal/relay's Inbox, interceptor-http
// inbox --nats).
//
// The open requests are machine-aware: each names the machine whose queue
// holds it, and a decision or an answer goes to that queue's own Decide
// or AnswerInput (its exactly-once). History, the standing rules and the
// Viewer are this machine's whatever the source: a rule is a standing
// grant that never crosses machines (docs/relay.md), so the page offers
// "Always" only on a request Here holds.
type Source interface {
	// Open is what waits, oldest first, each request already masked as a
	// view of its own machine masks it (the queue's Viewer).
	Open(ctx context.Context) ([]Open, error)
	// Get is one request of machine ("" this one), masked
	// (approvals.ErrUnknown: none).
	Get(ctx context.Context, machine, id string) (approvals.Request, error)
	// Decide and Answer are approvals.Store.Decide and AnswerInput on the
	// request's own machine: its rules, its exactly-once.
	Decide(ctx context.Context, machine, id string, d hooks.Decision) (approvals.Request, error)
	Answer(ctx context.Context, machine, id, answer, by string) (approvals.Request, error)
	// Changes calls fn after every change of what Open returns (and, for a
	// source that must notice silence, now and then), until ctx ends or fn
	// returns false.
	Changes(ctx context.Context, fn func() bool) error

	// Here reports whether machine names this machine's queue: the one
	// whose history, rules and Viewer the methods below are.
	Here(machine string) bool
	// Held is request id of this machine's queue as stored, unmasked: what
	// a rule is made from (approvals.RuleFor). Never sent to the page.
	Held(id string) (approvals.Request, error)
	// Viewer masks what a person reads of this machine's records.
	Viewer() *approvals.Viewer
	// History is a page of this machine's closed requests, newest first,
	// older than before.
	History(limit int, before string) (approvals.HistoryPage, error)
	// Rules, AddRule and RevokeRule are this machine's standing rules
	// (approvals' rules.go).
	Rules() ([]approvals.Rule, error)
	AddRule(r approvals.Rule) (approvals.Rule, error)
	RevokeRule(id string) (approvals.Rule, error)
}

// Open is one request that waits, and where.
type Open struct {
	Request approvals.Request
	// Machine names the machine whose queue holds it; "" is this one.
	Machine string
	// Child is the name of the child whose chat asked, when the source
	// knows it ("" lets the page look it up here).
	Child string
	// Unreachable: the machine's relay has gone silent; a decision would
	// find nobody to apply it.
	Unreachable bool
}

// ErrUnreachable: the request's machine did not answer (its relay is
// offline, or NATS is); nothing was decided.
var ErrUnreachable = errors.New("machine unreachable")

// ErrElsewhere: what was asked of a request (a standing rule) stays on its
// own machine, and the request is another machine's.
var ErrElsewhere = errors.New("another machine's request")

// Local is this machine's queue q as a Source: every request is Here.
func Local(q *approvals.Store) Source { return localSource{q: q} }

// localSource is this machine's queue.
type localSource struct{ q *approvals.Store }

func (l localSource) Open(context.Context) ([]Open, error) {
	rs, err := l.q.Pending()
	if err != nil {
		return nil, err
	}
	rs = l.q.Viewer().Requests(rs)
	out := make([]Open, len(rs))
	for i, r := range rs {
		out[i] = Open{Request: r}
	}
	return out, nil
}

func (l localSource) Get(_ context.Context, machine, id string) (approvals.Request, error) {
	if machine != "" {
		return approvals.Request{}, notHere(machine)
	}
	r, err := l.q.Get(id)
	if err != nil {
		return r, err
	}
	return l.q.Viewer().Request(r), nil
}

func (l localSource) Decide(_ context.Context, machine, id string, d hooks.Decision) (approvals.Request, error) {
	if machine != "" {
		return approvals.Request{}, notHere(machine)
	}
	return l.q.Decide(id, d)
}

func (l localSource) Answer(_ context.Context, machine, id, answer, by string) (approvals.Request, error) {
	if machine != "" {
		return approvals.Request{}, notHere(machine)
	}
	return l.q.AnswerInput(id, answer, by)
}

// notHere is the error for a request of a machine a local source does
// not reach.
func notHere(machine string) error {
	return fmt.Errorf("%w: this inbox has no machine %q (it was started without --nats)", approvals.ErrUnknown, approvals.Visible(machine))
}

func (l localSource) Changes(ctx context.Context, fn func() bool) error { return l.q.Changes(ctx, fn) }

func (l localSource) Here(machine string) bool { return machine == "" }

func (l localSource) Held(id string) (approvals.Request, error) { return l.q.Get(id) }

func (l localSource) Viewer() *approvals.Viewer { return l.q.Viewer() }

func (l localSource) History(limit int, before string) (approvals.HistoryPage, error) {
	return l.q.History(limit, before)
}

func (l localSource) Rules() ([]approvals.Rule, error) { return l.q.Rules() }

func (l localSource) AddRule(r approvals.Rule) (approvals.Rule, error) { return l.q.AddRule(r) }

func (l localSource) RevokeRule(id string) (approvals.Rule, error) { return l.q.RevokeRule(id) }
