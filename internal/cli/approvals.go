package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/interceptor-dev/interceptor/internal/approvals"
	"github.com/interceptor-dev/interceptor/internal/hooks"
	"github.com/interceptor-dev/interceptor/internal/rawjson"
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
		newApprovalsWatchCmd(io), newApprovalsPruneCmd(io), newApprovalsAnswerCmd(io))
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
			fmt.Fprintln(io.Out, summaryHeader)
			for _, r := range rs {
				fmt.Fprintln(io.Out, summary(r, now))
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

// status is a request's status for people: a pending request nobody waits
// for any more reads "stale".
func status(r approvals.Request, now time.Time) string {
	if r.Stale(now) {
		return "stale"
	}
	if r.IsInput() && r.Status == approvals.Pending {
		return "asks" // a human tool's question: answer, not allow/deny
	}
	return string(r.Status)
}

// summaryFormat lays out summary's columns, and summaryHeader names them.
const summaryFormat = "%-20s  %-7s  %10s  %-11s  %s  %s"

var summaryHeader = fmt.Sprintf(summaryFormat, "ID", "STATUS", "AGE", "CLIENT", "TOOL", "INPUT")

// summary is one request on one line. The tool name and input come from
// the model: both are made Visible, and an input too long for the line says
// it is cut and where to read it whole.
func summary(r approvals.Request, now time.Time) string {
	return fmt.Sprintf(summaryFormat, r.ID, status(r, now),
		now.Sub(r.Created).Round(time.Second).String()+" ago", approvals.Visible(r.Client), approvals.Visible(r.Tool), clip(r, 80))
}

// clip is the input on one line, cut at a word's end near n bytes (never
// inside a word or a rune) with a note saying where to read it whole.
func clip(r approvals.Request, n int) string {
	s := approvals.Visible(r.Input)
	if len(s) <= n {
		return s
	}
	cut := n
	if sp := strings.LastIndexAny(s[:n], " ,"); sp > n/2 {
		cut = sp + 1
	}
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… [cut: %d of %d bytes shown; approvals show %s]", strings.TrimRight(s[:cut], " "), cut, len(s), r.ID)
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
