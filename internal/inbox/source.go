package inbox

import (
	"context"
	"errors"

	"github.com/interceptor-dev/interceptor/internal/approvals"
	"github.com/interceptor-dev/interceptor/internal/hooks"
)

// Source is where the page's open requests come from and where its
// decisions and answers go: this machine's queue (the default), or every
// machine's through NATS (internal/relay's Inbox, interceptor-http inbox
// --nats). History, the children and their chats stay this machine's.
type Source interface {
	// Open is what waits, oldest first, each request already masked as a
	// view of its own machine masks it (the queue's Viewer).
	Open(ctx context.Context) ([]Open, error)
	// Get is one request of machine ("" this one), masked.
	Get(ctx context.Context, machine, id string) (approvals.Request, error)
	// Decide and Answer are approvals.Store.Decide and AnswerInput on the
	// request's own machine: its rules, its exactly-once.
	Decide(ctx context.Context, machine, id string, d hooks.Decision) (approvals.Request, error)
	Answer(ctx context.Context, machine, id, answer, by string) (approvals.Request, error)
	// Changes calls fn after every change of what Open returns (and now
	// and then), until ctx ends or fn returns false.
	Changes(ctx context.Context, fn func() bool) error
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

func (l localSource) Get(_ context.Context, _, id string) (approvals.Request, error) {
	r, err := l.q.Get(id)
	if err != nil {
		return r, err
	}
	return l.q.Viewer().Request(r), nil
}

func (l localSource) Decide(_ context.Context, _, id string, d hooks.Decision) (approvals.Request, error) {
	return l.q.Decide(id, d)
}

func (l localSource) Answer(_ context.Context, _, id, answer, by string) (approvals.Request, error) {
	return l.q.AnswerInput(id, answer, by)
}

func (l localSource) Changes(ctx context.Context, fn func() bool) error { return l.q.Changes(ctx, fn) }
