package humantools

import "github.com/interceptor-dev/interceptor/internal/approvals"

// DeliverMatching is Deliver for callers with their own idea of whose
// answers they take (a child session's runner takes those of every chat
// of the child).
func DeliverMatching(q *approvals.Store, match func(approvals.Request) bool, to string) (string, []approvals.Request, error) {
	rs, err := q.TakeAnswers(match, to)
	if err != nil || len(rs) == 0 {
		return "", rs, err
	}
	return Context(rs), rs, nil
}
