package hooks

// Decision is one decision on a tool call, the same value all the way:
// a supervisor makes it (approvals allow/deny and watch, the supervisor's
// respond tool, the inbox page), the approval queue records it
// (approvals.Store.Decide) and hands it back to the call waiting for it
// (approvals.Store.Ask), or a rule makes it there; the approve hook's
// adapter renders it in the client's own terms (DecisionReply), the permit
// tool as Claude Code's permission-prompt answer (PermitReply). On disk and
// on the wire its reason is "message" and its new input "updated_input".
type Decision struct {
	// Allow runs the call; false blocks it.
	Allow bool
	// Reason tells the model (and the user) why; used on deny, and on allow
	// where the client shows one.
	Reason string
	// UpdatedInput, when set, is the complete new argument object (raw
	// JSON) the call runs with instead of the model's. Only with Allow.
	UpdatedInput string
	// By says who or what decided, in words: the supervisor, as the queue
	// records it (decided_by); from Ask, also a rule or a timeout, for the
	// hook's trace.
	By string
}

// denyReason is the reason a deny carries when the supervisor gave none:
// every client shows the reason to the model, and an empty one reads as a
// failure of the tool.
func (d Decision) denyReason() string {
	if d.Reason != "" {
		return d.Reason
	}
	return "denied by the supervisor"
}
