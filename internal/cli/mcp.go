package cli

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"regexp"
	"time"

	"github.com/interceptor-dev/interceptor/internal/approvals"
	"github.com/interceptor-dev/interceptor/internal/children"
	"github.com/interceptor-dev/interceptor/internal/hooks"
	"github.com/interceptor-dev/interceptor/internal/humantools"
	"github.com/interceptor-dev/interceptor/internal/mcpserver"
	"github.com/interceptor-dev/interceptor/internal/state"
	"github.com/spf13/cobra"
)

func newMCPCmd(io *IO, version string) *cobra.Command {
	f := &approvalsFlags{}
	var role, onTimeout, chat, arg, humanTools, match string
	var timeout, parkTTL time.Duration
	cmd := &cobra.Command{
		Use:   "mcp --role child|supervisor",
		Short: "Stdio MCP server for the approval queue: a child's permission prompt, or a supervisor's controls",
		Long: `Runs a stdio MCP server (newline-delimited JSON-RPC) on the approval queue.
It speaks MCP 2026-07-28 (server/discover, the revision in each request's
_meta) and, through initialize, 2025-11-25 and earlier.

--role child offers one tool, permit, for ` + hooks.PermitClient.Display + `'s
--permission-prompt-tool mcp__<name>__permit: it queues the call and answers
with exactly {"behavior":"allow","updatedInput":{…}} or
{"behavior":"deny","message":"…"} once a supervisor decides (deny after
--timeout, or allow with --on-timeout allow; any failure denies). A child can
only ask: nothing in this role decides a request. With --human-tools FILE it
also serves the tools FILE declares, which a person answers
(docs/human-tools.md); a held one waits up to --timeout.

--role supervisor offers pending (optionally long-polling with wait_seconds),
respond(id, allow, message?, updated_input?) and history, for a parent agent,
and the child-session tools create, chat_async, poll, cancel and list
(docs/children.md). Give it only to the supervisor.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			q, err := f.queue()
			if err != nil {
				return err
			}
			srv := &mcpserver.Server{Name: "interceptor-approvals", Version: versionString(version)}
			switch role {
			case "child":
				o := mcpserver.ChildOptions{Timeout: timeout, Chat: chat, Tokens: state.New(q.StateDir), Key: arg}
				if match != "" {
					re, err := regexp.Compile(match)
					if err != nil {
						return fmt.Errorf("--match %q: %v", match, err)
					}
					o.Match = re
				}
				switch onTimeout {
				case "deny":
				case "allow":
					o.OnTimeoutAllow = true
				default:
					return fmt.Errorf("--on-timeout %q: want deny or allow", onTimeout)
				}
				srv.Tools = mcpserver.ChildTools(q, o)
				srv.Instructions = "permit is " + hooks.PermitClient.Display + "'s permission prompt; a supervisor decides each call."
				if humanTools != "" {
					ht, err := childHumanTools(q, humanTools, chat, arg, timeout, parkTTL)
					if err != nil {
						return err
					}
					srv.Tools = append(srv.Tools, ht...)
					srv.Instructions += " The other tools are answered by a person."
				}
			case "supervisor":
				srv.Tools = mcpserver.WithChildren(mcpserver.SupervisorTools(q, approvals.Decider("mcp supervisor")), children.New(q.StateDir), q)
				srv.Instructions = "Call pending (with wait_seconds to wait) and decide each request with respond. " +
					"Child agents: create, chat_async, then poll (wait_seconds) until complete, answering pending_approvals with respond."
			default:
				return fmt.Errorf("--role %q: want child or supervisor", role)
			}
			if humanTools != "" && role != "child" {
				return fmt.Errorf("--human-tools goes with --role child")
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
			defer stop()
			return srv.Serve(ctx, io.In, io.Out)
		},
	}
	f.register(cmd)
	cmd.Flags().StringVar(&role, "role", "", "child (permit) or supervisor (pending, respond, history)")
	cmd.Flags().DurationVar(&timeout, "timeout", approvals.DefaultTimeout, "child: how long permit waits for a decision, and a held human tool for its answer")
	cmd.Flags().StringVar(&onTimeout, "on-timeout", "deny", "child: what an undecided call gets after --timeout: deny or allow")
	cmd.Flags().StringVar(&humanTools, "human-tools", "", "child: also serve the human tools this JSON file declares (docs/human-tools.md)")
	cmd.Flags().DurationVar(&parkTTL, "park-ttl", humantools.DefaultParkTTL, "child: how long a parked human tool call waits for its answer")
	cmd.Flags().StringVar(&match, "match", "", "child: only tools whose name matches this regex wait for a decision; permit allows the others")
	cmd.Flags().StringVar(&chat, "chat", "", "child: tag requests with this child chat (set by interceptor children)")
	cmd.Flags().StringVar(&arg, "arg", approvals.DefaultKey, "child: the token argument; the queue shows a stand-in for any value under it and for any token held for the session")
	return cmd
}
