package cli

import (
	"time"

	"github.com/interceptor-dev/interceptor/internal/carry"
	"github.com/interceptor-dev/interceptor/internal/hookrun"
	"github.com/interceptor-dev/interceptor/internal/hooks"
	"github.com/spf13/cobra"
)

// hookFlags are the flags every hook command shares, read into the
// options of the hook harness (internal/hookrun).
type hookFlags struct{ hookrun.Flags }

// register adds the hook flags (hookrun.HookFlags) and the handle options
// (carry.Table) the command c takes.
func (f *hookFlags) register(cmd *cobra.Command, c hookrun.Cmds, takes carry.Commands) {
	f.Changed = cmd.Flags().Changed
	registerHookFlags(cmd, c, &f.Flags, nil)
	registerCarried(cmd.Flags(), &f.Opts, takes)
}

// registerHookFlags adds the flags of hookrun.HookFlags the hook command
// c takes, bound to h (approve: a), as interceptor-hook's parser reads
// them: one table for both.
func registerHookFlags(cmd *cobra.Command, c hookrun.Cmds, h *hookrun.Flags, a *hookrun.ApproveFlags) {
	fl := cmd.Flags()
	for i := range hookrun.HookFlags {
		hf := &hookrun.HookFlags[i]
		if hf.Cmds&c == 0 {
			continue
		}
		help := hf.Usage(c)
		switch p := hf.Field(h, a).(type) {
		case *string:
			if hf.Name == "state-dir" {
				stateDirVar(cmd, p, help) // its help says the default dir
				continue
			}
			d, _ := hf.Default.(string)
			fl.StringVar(p, hf.Name, d, help)
		case *bool:
			d, _ := hf.Default.(bool)
			fl.BoolVar(p, hf.Name, d, help)
		case *time.Duration:
			d, _ := hf.Default.(time.Duration)
			fl.DurationVar(p, hf.Name, d, help)
		case *[]string:
			fl.StringArrayVar(p, hf.Name, nil, help)
		}
	}
}

// hookRunE runs the hook command whose flags f read on the one hook
// harness; its error is the hook's one stderr line (Main exits 0).
func hookRunE(io *IO, f *hookFlags, hook func(*hookrun.IO, *hookrun.Flags) error) func(*cobra.Command, []string) error {
	return func(*cobra.Command, []string) error {
		return runHook(hook, io, &f.Flags)
	}
}

// runHook runs a hook command on the harness; TestHookArgvMatchesCobra
// replaces it to read what the flags parsed.
var runHook = func(hook func(*hookrun.IO, *hookrun.Flags) error, io *IO, f *hookrun.Flags) error { return hook(io, f) }

func hookCmd(use, short, long string) *cobra.Command {
	return &cobra.Command{
		Use:         use,
		Short:       short,
		Long:        long,
		Args:        cobra.NoArgs,
		Annotations: map[string]string{hookAnnotation: "true"},
	}
}

func newInjectCmd(io *IO) *cobra.Command {
	f := &hookFlags{}
	cmd := hookCmd("inject --server NAME", "Pre-tool hook: put the held token into a call to the server's tools",
		`Reads one pre-tool hook event on stdin. When the call is to a tool of a
--server, is not a --skip-tool, carries none of the --keep-if arguments, and a
token is held for the event's session, prints the client's reply that adds the
token as --arg to the call's arguments. Otherwise prints nothing.

Always exits 0: on a problem it prints one line on stderr and the call
proceeds unchanged.`)
	f.register(cmd, hookrun.CmdInject, carry.Inject)
	cmd.RunE = hookRunE(io, f, hookrun.Inject)
	return cmd
}

func newCaptureCmd(io *IO) *cobra.Command {
	f := &hookFlags{}
	cmd := hookCmd("capture --server NAME [--redact]", "Post-tool hook: store the token a result of the server's tools carries",
		wrap(`Reads one post-tool hook event on stdin. When the result of a --server tool
carries a token (in _meta, structuredContent or the text, under --meta-key),
stores it for the event's session and as the server's current token.

With --redact, prints the client's reply that removes the token from what the
model reads, where the client allows it (`+displays(clientsWhere(rewritesResult))+`). `+
			displays(clientsWhere(func(c *hooks.Client) bool { return !c.RewritesResult }))+` cannot
rewrite results: one line on stderr says so.

Always exits 0: on a problem it prints one line on stderr.`))
	f.register(cmd, hookrun.CmdCapture, carry.Capture)
	cmd.RunE = hookRunE(io, f, hookrun.Capture)
	return cmd
}

func newClearCmd(io *IO) *cobra.Command {
	f := &hookFlags{}
	cmd := hookCmd("clear [--server NAME]", "Session-end hook: forget the token of the event's session",
		wrap(`Reads one hook event on stdin (the session-end event install wires it to: `+byValue(clientsWhere(all), func(c *hooks.Client) string { return c.SessionEnd })+`) and forgets the
tokens held for its session: for the --server(s) given, else for every server.
A server's current token goes too when that session wrote it.`))
	f.register(cmd, hookrun.CmdClear, carry.Clear)
	cmd.RunE = hookRunE(io, f, hookrun.Clear)
	return cmd
}

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
	f.register(cmd, hookrun.CmdDeliver, carry.Deliver)
	cmd.RunE = hookRunE(io, f, hookrun.Deliver)
	return cmd
}
