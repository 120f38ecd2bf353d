package cli

import (
	"fmt"
	"os"

	"github.com/interceptor-dev/interceptor/internal/approvals"
	"github.com/interceptor-dev/interceptor/internal/hooks"
	"github.com/interceptor-dev/interceptor/internal/humantools"
	"github.com/interceptor-dev/interceptor/internal/lifecycle"
	"github.com/interceptor-dev/interceptor/internal/state"
	"github.com/spf13/cobra"
)

func newDeliverCmd(io *IO) *cobra.Command {
	f := &hookFlags{}
	cmd := hookCmd("deliver", "Prompt hook: hand the model the answers a person gave to its parked human tool calls",
		`Reads one hook event on stdin and acts by its kind:

`+listItem(`turn start (`+byValue(clientsWhere(all), func(c *hooks.Client) string { return c.PromptEvent })+`):
prints the client's reply that adds every answer given to this session's
parked human tool calls (interceptor mcp --human-tools) to what the model
reads this turn. Each answer is delivered exactly once, however many
deliver hooks run at the same time.`)+`
- post-tool, for a human tool's parked call: ties the call's request to the
  event's session (not every client tells an MCP server its session).
- session end, with --expire-on-session-end: expires the session's human
  tool requests; a later answer is refused. Without it (the default) a
  session end changes nothing: clients end a "session" with every headless
  run and can resume it later, where its answers are still delivered.

Always exits 0: on a problem it prints one line on stderr and the turn
proceeds without the answers (they stay queued).`)
	f.register(cmd, false)
	var expire bool
	cmd.Flags().BoolVar(&expire, "expire-on-session-end", false, "on a session-end event, expire the session's open human tool requests")
	cmd.RunE = hookRunE(io, f, false, func(ev *hooks.Event, st *state.Store, _ *hookFlags) (lifecycle.Outcome, error) {
		return deliver(ev, approvals.New(st.Dir), expire)
	})
	return cmd
}

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
