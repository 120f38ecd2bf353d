package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/interceptor-dev/interceptor/internal/approvals"
	"github.com/interceptor-dev/interceptor/internal/children"
	"github.com/interceptor-dev/interceptor/internal/rawjson"
	"github.com/spf13/cobra"
	"github.com/tidwall/gjson"
)

// defaultChildApproveTimeout is how long a child's call waits for the
// parent's decision: a parent polls between other work, so longer than a
// person's default.
const defaultChildApproveTimeout = 10 * time.Minute

func (f *approvalsFlags) children() (*children.Store, *approvals.Store, error) {
	q, err := f.queue()
	if err != nil {
		return nil, nil, err
	}
	return children.New(q.StateDir), q, nil
}

// childrenSub is a children subcommand with its --state-dir, whose run gets
// the children store and the approval queue.
func childrenSub(use, short string, args cobra.PositionalArgs, run func(cmd *cobra.Command, cs *children.Store, q *approvals.Store, args []string) error) *cobra.Command {
	f := &approvalsFlags{}
	cmd := &cobra.Command{Use: use, Short: short, Args: args, RunE: func(cmd *cobra.Command, a []string) error {
		cs, q, err := f.children()
		if err != nil {
			return err
		}
		return run(cmd, cs, q, a)
	}}
	f.register(cmd)
	return cmd
}

func newChildrenCmd(io *IO) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "children",
		Short: "Child agents run headless for a parent: create, chat, list, show, follow, cancel",
		Long: `A child is an agent of any client (` + strings.Join(children.ClientNames(), ", ") + `)
that interceptor runs headless, one chat at a time, each chat resuming the
child's own session. A detached runner owns each chat and appends its events
to <state dir>/children/<id>/chat-<n>/events.jsonl; the child's tool calls
that need approval wait in the approval queue tagged with the chat. A parent
agent uses the same through interceptor mcp --role supervisor
(docs/children.md).`,
	}
	cmd.AddCommand(newChildrenCreateCmd(io), newChildrenChatCmd(io), newChildrenListCmd(io),
		newChildrenShowCmd(io), newChildrenFollowCmd(io), newChildrenCancelCmd(io), newChildrenRunnerCmd(io))
	return withSubcommands(cmd)
}

func newChildrenCreateCmd(io *IO) *cobra.Command {
	c := children.Child{}
	var env []string
	approvalsOn := true
	cmd := childrenSub("create NAME [--client "+strings.Join(children.ClientNames(), "|")+"] [--dir DIR] [--model M] [--env K=V]...",
		"Create a child (no chat yet)", cobra.ExactArgs(1),
		func(_ *cobra.Command, cs *children.Store, _ *approvals.Store, args []string) error {
			c.Name, c.Env, c.Unsupervised = args[0], map[string]string{}, !approvalsOn
			for _, kv := range env {
				k, v, ok := strings.Cut(kv, "=")
				if !ok || k == "" {
					return fmt.Errorf("--env %q: want NAME=VALUE", kv)
				}
				c.Env[k] = v
			}
			got, err := cs.Create(c)
			if err != nil {
				return err
			}
			fmt.Fprintf(io.Out, "created child %s (id %s, %s, in %s)\n", got.Name, got.ID, got.Client, got.WorkingDir)
			return nil
		})
	fl := cmd.Flags()
	fl.StringVar(&c.Client, "client", children.DefaultClient(), "the child's client: "+strings.Join(children.ClientNames(), ", "))
	fl.StringVar(&c.WorkingDir, "dir", "", "the child's working dir (default: the current dir)")
	fl.StringVar(&c.Model, "model", "", "the model (default: the client's)")
	fl.StringVar(&c.MCPConfig, "mcp-config", "", childClients(honours(children.OptMCPConfig))+": an MCP config file ({\"mcpServers\":…}) for the child")
	fl.StringVar(&c.Approve, "approve", "", childClients(honours(children.OptApprove))+": only tools matching this regex wait for approval, the others are allowed (hook clients: the installed approve hook's --match decides)")
	fl.StringVar(&c.HumanTools, "human-tools", "", childClients(honours(children.OptHumanTools))+": a human tools file (docs/human-tools.md) whose tools the child can call; a person answers (interceptor approvals answer)")
	fl.BoolVar(&approvalsOn, "approvals", true, childClients(hookApprovals)+": --approvals=false runs the child without an installed approve hook, its tools UNSUPERVISED")
	fl.StringArrayVar(&env, "env", nil, "NAME=VALUE added to the child's environment (repeatable)")
	return cmd
}

// childClients are the display names of the children's clients whose
// traits keep holds, "A and B".
func childClients(keep func(children.Traits) bool) string {
	var out []string
	for _, c := range children.Clients() {
		if keep(c.Traits()) {
			out = append(out, c.Display())
		}
	}
	return joinAnd(out)
}

// honours keeps the clients that honour the per-child option opt.
func honours(opt string) func(children.Traits) bool {
	return func(t children.Traits) bool { return slices.Contains(t.Options, opt) }
}

// hookApprovals keeps the clients whose approvals go through an installed
// approve hook.
func hookApprovals(t children.Traits) bool { return t.HookApprovals }

func newChildrenChatCmd(io *IO) *cobra.Command {
	var follow bool
	cmd := childrenSub("chat CHILD [PROMPT...] [--follow]",
		"Start a chat with a child (the prompt from the arguments, else stdin); prints its chat id", cobra.MinimumNArgs(1),
		func(cmd *cobra.Command, cs *children.Store, q *approvals.Store, args []string) error {
			prompt := strings.Join(args[1:], " ")
			if prompt == "" {
				b, err := io2string(io.In)
				if err != nil {
					return err
				}
				prompt = b
			}
			chat, err := cs.StartChat(args[0], prompt)
			if err != nil {
				return err
			}
			fmt.Fprintln(io.Out, chat.ID)
			if !follow {
				return nil
			}
			end, err := followChat(cmd.Context(), io, cs, q, chat.ID, 0, false)
			if err == nil && end.failed {
				// A script that waits for the chat learns how it ended.
				if end.reason == "" {
					return fmt.Errorf("chat %s failed", chat.ID)
				}
				return fmt.Errorf("chat %s failed: %s", chat.ID, children.ClipLine(approvals.Visible(end.reason)))
			}
			return err
		})
	cmd.Flags().BoolVar(&follow, "follow", false, "follow the chat's events until it ends; exit 1 when it failed")
	return cmd
}

func io2string(r io.Reader) (string, error) {
	b, err := io.ReadAll(io.LimitReader(r, 16<<20))
	return strings.TrimSpace(string(b)), err
}

func newChildrenListCmd(io *IO) *cobra.Command {
	var asJSON bool
	cmd := childrenSub("list [--json]", "List the children and the status of each one's latest chat", cobra.NoArgs,
		func(_ *cobra.Command, cs *children.Store, q *approvals.Store, _ []string) error {
			all, err := cs.List()
			if err != nil {
				return err
			}
			if asJSON {
				recs := make([]string, len(all))
				for i, c := range all {
					recs[i] = cs.Summary(q, c)
				}
				return printJSONArray(io.Out, recs)
			}
			for _, c := range all {
				s := cs.Summary(q, c)
				j := gjson.Parse(s)
				latest := "no chat yet"
				if j.Get("latest_chat").Exists() {
					latest = approvals.Visible(j.Get("latest_chat.session_id").Str + " " + j.Get("latest_chat.status").Str)
				}
				fmt.Fprintf(io.Out, "%s  %-20s %-12s %s  (%s)\n", c.ID, approvals.Visible(c.Name), c.Client, latest, approvals.Visible(c.WorkingDir))
			}
			if len(all) == 0 {
				fmt.Fprintln(io.Out, "no children")
			}
			return nil
		})
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON array of the children ([] when there are none)")
	return cmd
}

// chatFor reads CHILD or CHAT: a chat id, or a child's latest chat.
func chatFor(cs *children.Store, arg string) (string, error) {
	if _, _, err := children.ParseChatID(arg); err == nil {
		return arg, nil
	}
	c, err := cs.Get(arg)
	if err != nil {
		return "", err
	}
	if c.Chats == 0 {
		return "", fmt.Errorf("child %s has no chat yet", c.Name)
	}
	return children.ChatID(c.ID, c.Chats), nil
}

func newChildrenShowCmd(io *IO) *cobra.Command {
	return childrenSub("show CHILD|CHAT", "Show a child, and its latest chat (or the chat named) as poll returns it", cobra.ExactArgs(1),
		func(cmd *cobra.Command, cs *children.Store, q *approvals.Store, args []string) error {
			id, err := chatFor(cs, args[0])
			if err != nil {
				c, gerr := cs.Get(args[0])
				if gerr != nil {
					return err
				}
				fmt.Fprintln(io.Out, cs.Summary(q, c))
				return nil
			}
			chat, err := cs.Chat(id)
			if err != nil {
				return err
			}
			fmt.Fprintln(io.Out, cs.Summary(q, chat.Child))
			res, err := cs.Poll(cmd.Context(), q, children.PollRequest{ChatID: id})
			if err != nil {
				return err
			}
			out, err := rawjson.Marshal(res)
			if err != nil {
				return err
			}
			fmt.Fprintln(io.Out, string(out))
			return nil
		})
}

func newChildrenFollowCmd(io *IO) *cobra.Command {
	var from int
	var asJSON bool
	cmd := childrenSub("follow CHILD|CHAT [--from N] [--json]", "Print a chat's events as they come (like tail -f) until it ends", cobra.ExactArgs(1),
		func(cmd *cobra.Command, cs *children.Store, q *approvals.Store, args []string) error {
			id, err := chatFor(cs, args[0])
			if err != nil {
				return err
			}
			_, err = followChat(cmd.Context(), io, cs, q, id, from, asJSON)
			return err
		})
	cmd.Flags().IntVar(&from, "from", 0, "start at this event seq")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print each event as its JSON line (raw client event included)")
	return cmd
}

// chatEnd is how a followed chat ended: failed, and why.
type chatEnd struct {
	failed bool
	reason string
}

// followChat prints events until the chat ends (or Ctrl-C, which is no
// end: failed stays false).
func followChat(ctx context.Context, io *IO, cs *children.Store, q *approvals.Store, id string, from int, asJSON bool) (chatEnd, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt)
	defer stop()
	shown := map[string]bool{}
	var end chatEnd
	for ctx.Err() == nil {
		res, err := cs.Poll(ctx, q, children.PollRequest{ChatID: id, FromSeq: from, Wait: 30 * time.Second})
		if err != nil {
			if ctx.Err() != nil {
				return chatEnd{}, nil
			}
			return chatEnd{}, err
		}
		for _, e := range res.Events {
			ev := gjson.ParseBytes(e.Event) // the normalized event, as the log holds it (its runner may be another version)
			if ev.Get("type").Str == "complete" {
				end.reason = children.EndText(ev)
			}
			if asJSON {
				line, err := rawjson.Marshal(e)
				if err != nil {
					return chatEnd{}, err
				}
				fmt.Fprintln(io.Out, string(line))
			} else {
				fmt.Fprintln(io.Out, children.DescribeEvent(e.Seq, ev))
			}
		}
		for _, a := range res.PendingApprovals {
			if !shown[a.ID] {
				shown[a.ID] = true
				fmt.Fprintln(io.Out, children.DescribePending(a))
			}
		}
		from = res.ReadPosition
		if st := res.Status; (st == children.Complete || st == children.Failed) && !res.HasMore {
			end.failed = st == children.Failed
			return end, nil
		}
		if len(res.Events) == 0 && len(res.PendingApprovals) > 0 {
			// Nothing new but a request waits: don't spin, wait for a change.
			select {
			case <-ctx.Done():
			case <-time.After(500 * time.Millisecond):
			}
		}
	}
	return chatEnd{}, nil
}

func newChildrenCancelCmd(io *IO) *cobra.Command {
	return childrenSub("cancel CHILD|CHAT", "Cancel a running chat: its client's whole process group ends", cobra.ExactArgs(1),
		func(_ *cobra.Command, cs *children.Store, _ *approvals.Store, args []string) error {
			id, err := chatFor(cs, args[0])
			if err != nil {
				return err
			}
			st, err := cs.Cancel(id)
			if err != nil {
				return err
			}
			fmt.Fprintf(io.Out, "chat %s: %s\n", id, st)
			return nil
		})
}

func newChildrenRunnerCmd(io *IO) *cobra.Command {
	var chat string
	var approveTimeout time.Duration
	cmd := childrenSub("runner --chat ID", "Run one chat to its end (started detached by chat_async and children chat)", cobra.NoArgs,
		func(_ *cobra.Command, cs *children.Store, _ *approvals.Store, _ []string) error {
			if chat == "" {
				return errors.New("--chat is required")
			}
			ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
			defer stop()
			return cs.Run(ctx, chat, approveTimeout)
		})
	cmd.Hidden = true
	cmd.Flags().StringVar(&chat, "chat", "", "the chat to run")
	cmd.Flags().DurationVar(&approveTimeout, "approve-timeout", defaultChildApproveTimeout, "how long a child's call waits for a decision (the permission prompt of "+childClients(func(t children.Traits) bool { return !t.HookApprovals })+")")
	return cmd
}
