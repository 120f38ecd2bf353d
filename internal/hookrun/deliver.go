package hookrun

import (
	"fmt"
	"os"

	"github.com/interceptor-dev/interceptor/internal/approvals"
	"github.com/interceptor-dev/interceptor/internal/hooks"
	"github.com/interceptor-dev/interceptor/internal/humantools"
	"github.com/interceptor-dev/interceptor/internal/lifecycle"
)

// deliver acts on a deliver hook's event by its kind: a turn's start gets
// the answers given to the session's parked human tool calls; a human
// tool's parked call is tied to the session; a session's end, with
// expireOnEnd, expires its requests.
func deliver(ev *hooks.Event, q *approvals.Store, expireOnEnd bool) (lifecycle.Outcome, error) {
	switch {
	case ev.Phase == hooks.PhasePostTool:
		id, err := humantools.Bind(q, ev.Session, ev.ToolName, ev.Result().Texts)
		if err != nil || id == "" {
			return lifecycle.Outcome{Trace: "post-tool: no parked human request in the result"}, err
		}
		return lifecycle.Outcome{Trace: "bound human request " + id + " to the session"}, nil
	case ev.Phase == hooks.PhaseSessionEnd && expireOnEnd:
		rs, err := humantools.EndSession(q, ev.Session, "the session ended")
		return lifecycle.Outcome{Trace: fmt.Sprintf("session end: %d human request(s) expired", len(rs))}, err
	case !hooks.IsPromptEvent(ev):
		return lifecycle.Outcome{Trace: "event " + ev.Name + ": nothing to do"}, nil
	}
	text, rs, err := humantools.Deliver(q, ev.Session, "", fmt.Sprintf("%s prompt hook pid %d", ev.Client.Name(), os.Getpid()))
	if err != nil || text == "" {
		return lifecycle.Outcome{Trace: "no answers waiting"}, err
	}
	reply, err := hooks.PromptContextReply(ev, text)
	if err != nil {
		return lifecycle.Outcome{}, err
	}
	ids := ""
	for _, r := range rs {
		ids += " " + r.ID
	}
	return lifecycle.Outcome{Reply: reply, Trace: "delivered" + ids}, nil
}
