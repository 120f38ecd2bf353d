package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/interceptor-dev/interceptor/internal/approvals"
	"github.com/interceptor-dev/interceptor/internal/hooks"
	"github.com/interceptor-dev/interceptor/internal/rawjson"
	"github.com/spf13/cobra"
	"github.com/tidwall/gjson"
	"golang.org/x/term"
)

// approvalsFlags are the flags every approvals subcommand shares: the state
// dir, from which the queue opens (stateDirFlag.queue).
type approvalsFlags struct{ stateDirFlag }

func (f *approvalsFlags) register(cmd *cobra.Command) {
	f.stateDirFlag.register(cmd, "state dir holding the approval queue")
}

func newApprovalsCmd(io *streams) *cobra.Command {
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

func newApprovalsListCmd(io *streams) *cobra.Command {
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

func newApprovalsShowCmd(io *streams) *cobra.Command {
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

func newApprovalsDecideCmd(io *streams, allow bool) *cobra.Command {
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

func newApprovalsPruneCmd(io *streams) *cobra.Command {
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

func newApprovalsWatchCmd(io *streams) *cobra.Command {
	f := &approvalsFlags{}
	cmd := &cobra.Command{
		Use:   "watch",
		Short: "Show requests live and decide them with a keypress",
		Long: `Prints every pending request as it arrives and asks about the oldest one,
with its whole input (indented, wrapped; control characters shown as
escapes): a = allow, d = deny, s = skip (ask about the next), q = quit. An
input longer than 60 lines is cut with a note, and a = allow waits until v
has printed all of it. On a terminal one keypress decides; otherwise (a
pipe) each key is read as typed. A request decided elsewhere meanwhile is
reported and passed over.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			q, err := f.queue()
			if err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
			defer stop()
			out := io.Out
			// On a terminal, one keypress decides: raw mode, restored on
			// the way out. Raw mode also stops the terminal from turning
			// "\n" into "\r\n" and Ctrl-C into SIGINT: crlf puts the first
			// back, and watch reads Ctrl-C as q.
			if file, ok := io.In.(*os.File); ok && term.IsTerminal(int(file.Fd())) {
				if old, err := term.MakeRaw(int(file.Fd())); err == nil {
					defer term.Restore(int(file.Fd()), old)
					out = crlf{out}
				}
			}
			return watchApprovals(ctx, q, io.In, out)
		},
	}
	f.register(cmd)
	return cmd
}

// crlf writes "\r\n" for every "\n", for a terminal in raw mode.
type crlf struct{ w io.Writer }

func (c crlf) Write(p []byte) (int, error) {
	if _, err := c.w.Write(bytes.ReplaceAll(p, []byte("\n"), []byte("\r\n"))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// watchWidth and watchMaxLines bound what watch prints of one input before
// asking: lines wrap at watchWidth; an input of more lines is cut, and
// cannot be allowed with one key until v has printed it whole.
const (
	watchWidth    = 100
	watchMaxLines = 60
)

// watchApprovals is the watch loop: keys from in, the view to out.
func watchApprovals(ctx context.Context, q *approvals.Store, in io.Reader, out io.Writer) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	keys := make(chan byte)
	go func() {
		defer close(keys)
		r := bufio.NewReader(in)
		for {
			b, err := r.ReadByte()
			if err != nil {
				return
			}
			select {
			case keys <- b:
			case <-ctx.Done():
				return
			}
		}
	}()
	changed := make(chan struct{}, 1)
	watchErr := make(chan error, 1)
	go func() {
		watchErr <- q.Changes(ctx, func() bool {
			select {
			case changed <- struct{}{}:
			default:
			}
			return ctx.Err() == nil
		})
	}()

	seen := map[string]bool{}
	skipped := map[string]bool{}
	var asking string // the id the prompt is about
	var shown bool    // its whole input has been printed
	prompt := func() { fmt.Fprint(out, "  [a]llow [d]eny [s]kip [q]uit? ") }
	// ask prints the request and its input, whole and wrapped up to
	// watchMaxLines lines. A longer input is cut with a note, and a one-key
	// allow waits until v has printed all of it: a person allows only what
	// they could read.
	var typing *answerLine // the answer being typed to a human tool's question
	ask := func(r approvals.Request) {
		asking = r.ID
		lines := r.InputLines(watchWidth)
		if r.IsInput() {
			typing = askInput(out, r, lines)
			return
		}
		typing = nil
		fmt.Fprintf(out, "%s %s (%s, session %s), input:\n", r.ID, approvals.Visible(r.Tool), approvals.Visible(r.Client), approvals.Visible(r.Session))
		shown = len(lines) <= watchMaxLines
		if !shown {
			lines = lines[:watchMaxLines]
		}
		for _, l := range lines {
			fmt.Fprintf(out, "    %s\n", l)
		}
		if !shown {
			fmt.Fprintf(out, "  [input cut: %d of %d lines shown; v shows it all, and allow waits until then]\n", watchMaxLines, len(r.InputLines(watchWidth)))
			fmt.Fprint(out, "  [v]iew all [d]eny [s]kip [q]uit? ")
			return
		}
		prompt()
	}
	fmt.Fprintln(out, "watching for approval requests (a = allow, d = deny, s = skip, v = view the whole input, q = quit)")
	refresh := func() error {
		rs, err := q.Pending()
		if err != nil {
			return err
		}
		rs = q.Viewer().Requests(rs)
		now := time.Now()
		pending := map[string]bool{}
		for _, r := range rs {
			pending[r.ID] = true
			if !seen[r.ID] {
				seen[r.ID] = true
				fmt.Fprintf(out, "new: %s\n", summary(r, now))
			}
		}
		if asking != "" && !pending[asking] {
			if r, err := q.Get(asking); err == nil {
				fmt.Fprintf(out, "%s was %s elsewhere (by %s)\n", r.ID, status(r, now), approvals.Visible(r.DecidedBy))
			}
			asking = ""
		}
		if asking == "" {
			for _, r := range rs {
				if !skipped[r.ID] {
					ask(r)
					break
				}
			}
		}
		return nil
	}
	if err := refresh(); err != nil {
		return err
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case err := <-watchErr:
			return err
		case <-changed:
			if err := refresh(); err != nil {
				return err
			}
		case k, ok := <-keys:
			if !ok {
				return nil // end of input
			}
			if typing != nil && asking != "" {
				done, err := typing.key(q, asking, k)
				if errors.Is(err, errQuit) {
					return nil
				}
				if err != nil {
					return err
				}
				if done {
					if typing.skipped {
						skipped[asking] = true
					}
					asking, typing = "", nil
					if err := refresh(); err != nil {
						return err
					}
				}
				continue
			}
			switch k {
			case 'q', 'Q', 3, 4: // 3: Ctrl-C, 4: Ctrl-D
				fmt.Fprintln(out)
				return nil
			case 'v', 'V':
				if asking == "" || shown {
					continue
				}
				r, err := q.Get(asking)
				if err != nil {
					fmt.Fprintf(out, "\n%v\n", err)
					asking = ""
					break
				}
				r = q.Viewer().Request(r)
				fmt.Fprintln(out)
				for _, l := range r.InputLines(watchWidth) {
					fmt.Fprintf(out, "    %s\n", l)
				}
				shown = true
				prompt()
				continue
			case 'a', 'A', 'd', 'D':
				if asking == "" {
					continue
				}
				allow := k == 'a' || k == 'A'
				if allow && !shown {
					fmt.Fprintf(out, "\nthe input of %s was not shown whole: press v to read it before allowing\n", asking)
					fmt.Fprint(out, "  [v]iew all [d]eny [s]kip [q]uit? ")
					continue
				}
				r, err := q.Decide(asking, hooks.Decision{Allow: allow, By: approvals.Decider("watch")})
				switch {
				case errors.Is(err, approvals.ErrDecided), errors.Is(err, approvals.ErrUnknown):
					fmt.Fprintf(out, "\n%v\n", err)
				case err != nil:
					return err
				default:
					fmt.Fprintf(out, "\n%s %s\n", r.ID, r.Status)
				}
				asking = ""
			case 's', 'S':
				if asking == "" {
					continue
				}
				skipped[asking] = true
				fmt.Fprintf(out, "\nskipped %s\n", asking)
				asking = ""
			default:
				continue
			}
			if err := refresh(); err != nil {
				return err
			}
		}
	}
}
