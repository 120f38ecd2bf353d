package hooks

// Decision is a supervisor's answer to a pre-tool call, rendered by each
// adapter's DecisionReply in the client's own terms.
type Decision struct {
	// Allow runs the call; false blocks it.
	Allow bool
	// Reason tells the model (and the user) why; used on deny, and on allow
	// where the client shows one.
	Reason string
	// UpdatedInput, when set, is the complete new argument object (JSON) the
	// call runs with instead of the model's. Only used on allow.
	UpdatedInput []byte
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
