package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/interceptor-dev/interceptor/internal/approvals"
	"github.com/interceptor-dev/interceptor/internal/hooks"
	"github.com/interceptor-dev/interceptor/internal/rawjson"
	"github.com/interceptor-dev/interceptor/internal/termio"
	"github.com/interceptor-dev/interceptor/internal/watch"
	"github.com/spf13/cobra"
	"github.com/tidwall/gjson"
)

// approvalsFlags are the flags every approvals subcommand shares: the state
// dir, from which the queue opens (stateDirFlag.queue).
type approvalsFlags struct{ stateDirFlag }

func (f *approvalsFlags) register(cmd *cobra.Command) {
	f.stateDirFlag.register(cmd, "state dir holding the approval queue")
}

func newApprovalsCmd(io *IO) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "approvals",
		Short: "The supervisor's side of the approval queue: list, show, allow, deny, watch, prune",
		Long: `Tool calls held by the approve hook wait in the approval queue
(<state dir>/approvals/) until a supervisor decides them. These commands are
that supervisor, for a person; a parent agent uses interceptor mcp --role
supervisor.`,
	}
	cmd.AddCommand(newApprovalsListCmd(io), newApprovalsShowCmd(io),
		newApprovalsDecideCmd(io, true), newApprovalsDecideCmd(io, false),
		newApprovalsWatchCmd(io), newApprovalsPruneCmd(io), newApprovalsAnswerCmd(io), newApprovalsRulesCmd(io))
	return withSubcommands(cmd)
}

func newApprovalsListCmd(io *IO) *cobra.Command {
	f := &approvalsFlags{}
	var all, asJSON bool
	var limit int
	cmd := &cobra.Command{
		Use:   "list [--all] [--json] [--limit N]",
		Short: "List pending requests (with --all, the history too)",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			q, err := f.queue()
			if err != nil {
				return err
			}
			rs, err := q.List(approvals.Filter{Pending: !all, Limit: limit})
			if err != nil {
				return err
			}
			rs = q.Viewer().Requests(rs)
			if asJSON {
				recs := make([]string, len(rs))
				for i, r := range rs {
					recs[i] = r.JSON()
				}
				return printJSONArray(io.Out, recs)
			}
			if len(rs) == 0 {
				if all {
					fmt.Fprintln(io.Out, "no approval requests")
				} else {
					fmt.Fprintln(io.Out, "no pending approval requests")
				}
				return nil
			}
			now := time.Now()
			fmt.Fprintln(io.Out, watch.Header)
			for _, r := range rs {
				fmt.Fprintln(io.Out, watch.Summary(r, now))
			}
			return nil
		},
	}
	f.register(cmd)
	cmd.Flags().BoolVar(&all, "all", false, "list decided and expired requests too, oldest first")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON array of the records ([] when there are none)")
	cmd.Flags().IntVar(&limit, "limit", 0, "only the newest N")
	return cmd
}

// printJSONArray prints records (each one JSON value) as one JSON array,
// one record a line: a list command's --json is one document that parsers
// take whole, [] when there is nothing (as gh does).
func printJSONArray(w io.Writer, records []string) error {
	if len(records) == 0 {
		_, err := fmt.Fprintln(w, "[]")
		return err
	}
	var b strings.Builder
	b.WriteString("[\n")
	for i, r := range records {
		b.WriteString("  ")
		b.WriteString(rawjson.OneLine(r))
		if i < len(records)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString("]\n")
	_, err := io.WriteString(w, b.String())
	return err
}

func newApprovalsShowCmd(io *IO) *cobra.Command {
	f := &approvalsFlags{}
	cmd := &cobra.Command{
		Use:   "show ID",
		Short: "Show one request and its decision, as JSON",
		Args:  cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			q, err := f.queue()
			if err != nil {
				return err
			}
			r, err := q.Get(args[0])
			if err != nil {
				return err
			}
			fmt.Fprintln(io.Out, q.Viewer().Request(r).JSON())
			return nil
		},
	}
	f.register(cmd)
	return cmd
}

func newApprovalsDecideCmd(io *IO, allow bool) *cobra.Command {
	f := &approvalsFlags{}
	var message, updated string
	verb := "deny"
	if allow {
		verb = "allow"
	}
	cmd := &cobra.Command{
		Use:   verb + " ID [--message M]",
		Short: map[bool]string{true: "Allow a pending request", false: "Deny a pending request"}[allow],
		Long: `Decides a pending request; the waiting hook answers its client within
100 ms. --message is the reason the model reads. A request already decided
(or expired) is reported and left unchanged: exit 1.`,
		Args: cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			q, err := f.queue()
			if err != nil {
				return err
			}
			if updated != "" && !gjson.Valid(updated) {
				return errors.New("--updated-input is not valid JSON")
			}
			r, err := q.Decide(args[0], hooks.Decision{Allow: allow, Reason: message, UpdatedInput: updated, By: approvals.Decider("cli")})
			if err != nil {
				return err
			}
			fmt.Fprintf(io.Out, "%s %s\n", r.ID, r.Status)
			return nil
		},
	}
	f.register(cmd)
	cmd.Flags().StringVar(&message, "message", "", "the reason, shown to the model")
	if allow {
		cmd.Flags().StringVar(&updated, "updated-input", "", "run the call with these arguments instead (a complete JSON object)")
	}
	return cmd
}

func newApprovalsPruneCmd(io *IO) *cobra.Command {
	f := &approvalsFlags{}
	var olderThan time.Duration
	cmd := &cobra.Command{
		Use:   "prune [--older-than 168h]",
		Short: "Delete decided, expired and stale requests older than --older-than",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			q, err := f.queue()
			if err != nil {
				return err
			}
			n, err := q.Prune(time.Now().Add(-olderThan))
			if err != nil {
				return err
			}
			fmt.Fprintf(io.Out, "pruned %d approval request(s)\n", n)
			return nil
		},
	}
	f.register(cmd)
	cmd.Flags().DurationVar(&olderThan, "older-than", 7*24*time.Hour, "keep requests decided more recently than this")
	return cmd
}

func newApprovalsWatchCmd(io *IO) *cobra.Command {
	f := &approvalsFlags{}
	cmd := &cobra.Command{
		Use:   "watch",
		Short: "Show requests live and decide them with a keypress",
		Long: `Prints every pending request as it arrives and asks about the oldest one,
with its whole input (indented, wrapped; control characters shown as
escapes): a = allow, d = deny, s = skip (ask about the next), q = quit.
After d, type the reason the model reads and press Enter (Enter alone denies
without one). An input longer than 60 lines is cut with a note, and
a = allow waits until v has printed all of it. On a terminal one keypress
decides; otherwise (a pipe) each key is read as typed. A request decided
elsewhere meanwhile is reported and passed over.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			q, err := f.queue()
			if err != nil {
				return err
			}
			if err := approvals.WatchUnavailable(); err != nil {
				fmt.Fprintf(io.Err, "%s: note: watch re-reads the queue every 50 ms instead of waking on a change: %v\n", progName(), err)
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
			defer stop()
			// On a terminal, one keypress decides: raw mode, restored on
			// the way out; watch reads Ctrl-C as q.
			out, restore := termio.Raw(io.In, io.Out)
			defer restore()
			return watch.Run(ctx, q, io.In, out)
		},
	}
	f.register(cmd)
	return cmd
}
