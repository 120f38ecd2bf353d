package inbox

import (
	"context"

	"github.com/interceptor-dev/interceptor/internal/approvals"
	"github.com/interceptor-dev/interceptor/internal/hooks"
)

// Source is where the page's requests come from and where its decisions
// and rules go. The local approval queue (*approvals.Store) is one; a
// source that gathers several machines' queues is another. Everything the
// page shows passes through Viewer (stand-ins) and this package's
// escaping whatever the source.
type Source interface {
	// Pending is every open request, oldest first.
	Pending() ([]approvals.Request, error)
	// Get is one request, open or decided (approvals.ErrUnknown: none).
	Get(id string) (approvals.Request, error)
	// History is a page of closed requests, newest first, older than before.
	History(limit int, before string) (approvals.HistoryPage, error)
	// Changes calls fn on every change of the open requests until fn
	// returns false or ctx ends.
	Changes(ctx context.Context, fn func() bool) error
	// Viewer masks what a person reads.
	Viewer() *approvals.Viewer
	Decide(id string, d hooks.Decision) (approvals.Request, error)
	AnswerInput(id, answer, by string) (approvals.Request, error)
	// Rules, AddRule and RevokeRule are the standing rules (approvals'
	// rules.go).
	Rules() ([]approvals.Rule, error)
	AddRule(r approvals.Rule) (approvals.Rule, error)
	RevokeRule(id string) (approvals.Rule, error)
}

var _ Source = (*approvals.Store)(nil)
