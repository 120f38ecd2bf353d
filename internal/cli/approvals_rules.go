package cli

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/interceptor-dev/interceptor/internal/approvals"
	"github.com/spf13/cobra"
)

// approvals rules: the standing decisions the approve hook applies before
// it queues a call (internal/approvals/rules.go).

func newApprovalsRulesCmd(io *IO) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "rules",
		Short: "Standing rules: always allow or deny a shape of call, in a session, a project or everywhere",
		Long: `A rule decides a call before it is queued: the approve hook reads
<state dir>/approvals/rules.json, and a call a rule matches never waits; its
decision goes to the history naming the rule. A deny rule wins over an allow
rule. A rule matches one client's tool by its exact name (an MCP tool's name
carries its server, so a rule never crosses servers), optionally narrowed to
a command prefix (no shell operator may follow it) or a directory.`,
	}
	cmd.AddCommand(newRulesListCmd(io), newRulesAddCmd(io), newRulesRevokeCmd(io))
	return withSubcommands(cmd)
}

func newRulesListCmd(io *IO) *cobra.Command {
	f := &approvalsFlags{}
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list [--json]",
		Short: "List the rules",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			q, err := f.queue()
			if err != nil {
				return err
			}
			rs, err := q.Rules()
			if err != nil {
				return err
			}
			if asJSON {
				if rs == nil {
					rs = []approvals.Rule{}
				}
				b, err := json.MarshalIndent(rs, "", "  ")
				if err != nil {
					return err
				}
				fmt.Fprintln(io.Out, approvals.VisibleJSON(string(b)))
				return nil
			}
			if len(rs) == 0 {
				fmt.Fprintln(io.Out, "no rules")
			}
			v := q.Viewer()
			for _, r := range rs {
				fmt.Fprintln(io.Out, approvals.Visible(v.Request(approvals.Request{Reason: r.Describe()}).Reason))
			}
			return nil
		},
	}
	f.register(cmd)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the rules as JSON")
	return cmd
}

func newRulesAddCmd(io *IO) *cobra.Command {
	f := &approvalsFlags{}
	var allow, deny bool
	var from, scope, client, tool, session, project, cmdPrefix, pathPrefix, command string
	cmd := &cobra.Command{
		Use:   "add (--allow | --deny) [--from ID | --client C --tool T] [--scope session|project|everywhere] [--command C | --command-prefix P | --path-prefix DIR]",
		Short: "Add a rule, from a request (--from) or spelled out",
		Long: `--from ID takes the client, tool, session and project of request ID
(and with --command-prefix or --path-prefix "" nothing more); without it give
--client and --tool, and --session or --project for those scopes.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if allow == deny {
				return errors.New("give one of --allow and --deny")
			}
			q, err := f.queue()
			if err != nil {
				return err
			}
			rule := approvals.Rule{Allow: allow, Scope: scope, Client: client, Tool: tool, Session: session, Project: project,
				CommandPrefix: cmdPrefix, PathPrefix: pathPrefix, Command: command, By: approvals.Decider("cli")}
			if from != "" {
				r, err := q.Get(from)
				if err != nil {
					return err
				}
				shape, prefix := approvals.ShapeTool, ""
				if c.Flags().Changed("command-prefix") || c.Flags().Changed("path-prefix") {
					shape, prefix = approvals.ShapePrefix, cmdPrefix+pathPrefix
				}
				if c.Flags().Changed("command") {
					shape = approvals.ShapeCommand
				}
				if rule, err = approvals.RuleFor(r, allow, scope, shape, prefix, rule.By); err != nil {
					return err
				}
			}
			rule, err = q.AddRule(rule)
			if err != nil {
				return err
			}
			fmt.Fprintln(io.Out, approvals.Visible(rule.Describe()))
			return nil
		},
	}
	f.register(cmd)
	fl := cmd.Flags()
	fl.BoolVar(&allow, "allow", false, "always allow what the rule matches")
	fl.BoolVar(&deny, "deny", false, "always deny what the rule matches")
	fl.StringVar(&from, "from", "", "take client, tool, session and project from this request")
	fl.StringVar(&scope, "scope", approvals.ScopeProject, "session, project or everywhere")
	fl.StringVar(&client, "client", "", "the client's --client name")
	fl.StringVar(&tool, "tool", "", "the tool name exactly as the client spells it")
	fl.StringVar(&session, "session", "", "the session (scope session)")
	fl.StringVar(&project, "project", "", "the project dir (scope project)")
	fl.StringVar(&cmdPrefix, "command-prefix", "", "only commands that start with this (then a space and plain words)")
	fl.StringVar(&pathPrefix, "path-prefix", "", "only files under this absolute directory")
	fl.StringVar(&command, "command", "", `only exactly this command (with --from, "" takes the request's)`)
	return cmd
}

func newRulesRevokeCmd(io *IO) *cobra.Command {
	f := &approvalsFlags{}
	cmd := &cobra.Command{
		Use:   "revoke ID",
		Short: "Revoke a rule",
		Args:  cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			q, err := f.queue()
			if err != nil {
				return err
			}
			r, err := q.RevokeRule(args[0])
			if err != nil {
				return err
			}
			fmt.Fprintln(io.Out, "revoked", approvals.Visible(r.Describe()))
			return nil
		},
	}
	f.register(cmd)
	return cmd
}
