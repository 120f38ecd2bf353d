package cli

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/interceptor-dev/interceptor/internal/hookrun"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// IO is a command's I/O, injected so tests drive commands directly: the
// hook harness's, which every command uses.
type IO = hookrun.IO

// Factory is what the commands are built from: their I/O, the binary's
// version and the parts that link net/http, which only interceptor-http
// has.
type Factory struct {
	IO *IO
	// Version is the release's version, stamped into the main package
	// (-X main.version); "" is a build from source.
	Version string
	HTTP    HTTP
}

// System is the factory of a process: the process's own streams, and
// os.Exit for a hook's watchdog.
func System() *Factory {
	return &Factory{IO: &IO{In: os.Stdin, Out: os.Stdout, Err: os.Stderr, Exit: os.Exit}}
}

// Main runs the command line args (without the program's name) and returns
// the exit code. Hook commands exit 0 whatever happens, with at most one
// line on stderr: exit 2 would block the tool call, and any failure must let
// the call proceed unchanged.
func Main(args []string, f *Factory) int {
	root := newRootCmd(f, firstWord(args))
	root.SetArgs(args)
	cmd, err := root.ExecuteC()
	if err == nil {
		return 0
	}
	if uerr := unknownCommand(root, args); uerr != nil {
		// A mistyped command comes first, even when cobra met a flag the
		// command it stopped at does not have ("unknown flag: --server"
		// for `instal claude-code --server wf`).
		cmd, err = root, uerr
	}
	// The binary's own name: interceptor-http's errors said interceptor.
	fmt.Fprintf(f.IO.Err, "%s: %s\n", progName(), oneLine(err.Error()))
	if isHook(cmd) {
		return 0
	}
	if errors.As(err, new(usageError)) {
		return 2
	}
	return 1
}

// envFlagList are the only flags an environment variable may set
// (INTERCEPTOR_<FLAG>) as --flag names, sorted, for help and errors:
// hookrun.EnvFlag's, whose comment says why these and no others;
// interceptor-hook asks the same function.
func envFlagList() string {
	var names []string
	for _, n := range hookrun.EnvFlagNames() {
		names = append(names, "--"+n)
	}
	return strings.Join(names, ", ")
}

func envName(flag string) string { return hookrun.EnvName(flag) }

// hookCommand marks commands that run as client hooks: they must never fail
// the agent, so they always exit 0.
const hookAnnotation = "hook"

func isHook(cmd *cobra.Command) bool {
	return cmd != nil && cmd.Annotations[hookAnnotation] == "true"
}

// hookCommands are built alone when invoked: a hook runs twice per tool call,
// and building the whole command tree (and cobra's completion command) would
// be most of its start-up.
var hookCommands = map[string]func(*IO) *cobra.Command{
	"inject":  newInjectCmd,
	"capture": newCaptureCmd,
	"clear":   newClearCmd,
	"approve": newApproveCmd,
	"deliver": newDeliverCmd,
}

// rootLong is the root's help (not built for a hook command alone, which
// shows only its own).
func rootLong() string {
	return wrap(`interceptor runs as a hook of an AI coding agent (`+displays(clientsWhere(all))+`), or as
a proxy in front of an MCP server, and carries the handles the server mints:
the values a tool result hands out and later calls must pass back exactly (a
session_token, a session index, a pid, the next page's marker). It takes each from the
results and puts it into the calls that take it, per client session, so the
model never types it; with --redact, or in the proxy, the model reads a
stand-in instead. One handle needs only --arg NAME; several are declared in
a --handles file.`) + `

These flags also read an environment variable INTERCEPTOR_<FLAG> (e.g.
INTERCEPTOR_STATE_DIR, INTERCEPTOR_SERVER=a,b), and a flag given wins:
` + envFlagList() + `.
No other flag comes from the environment: a variable naming one of the
command's other flags (INTERCEPTOR_APPROVE, INTERCEPTOR_MATCH, ...) is
refused.`
}

// newRootCmd builds the command tree; with only naming a hook command, just
// that command.
func newRootCmd(f *Factory, only string) *cobra.Command {
	io := f.IO
	root := &cobra.Command{
		Use:           "interceptor",
		Short:         "Carry the handles MCP servers mint (session tokens, indexes, pids) into the calls that take them, in every client's tool-call path",
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			return applyEnv(cmd.Flags())
		},
	}
	root.SetIn(io.In)
	root.SetOut(io.Out)
	root.SetErr(io.Err)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		return usageError{fmt.Errorf("%w (see --help)", err)}
	})
	if newHook, ok := hookCommands[only]; ok {
		root.CompletionOptions.DisableDefaultCmd = true
		root.AddCommand(newHook(io))
		return root
	}
	// Help names the binary that runs it: interceptor-http's said
	// "interceptor inbox", which only interceptor-http can run.
	root.Use = progName()
	root.Long = rootLong()
	// --version as the version command (each binary names itself); not on
	// the hook path above, which must not read the build info.
	root.Version = versionString(f.Version)
	root.SetVersionTemplate("{{.Version}}\n")
	root.Flags().BoolP("version", "v", false, "print the version, as the version command does")
	// `interceptor completion bash|zsh|fish|powershell` prints a completion
	// script (cobra's).
	root.CompletionOptions.HiddenDefaultCmd = false
	root.AddCommand(
		newInjectCmd(io),
		newCaptureCmd(io),
		newClearCmd(io),
		newTokenCmd(io),
		newVersionCmd(io, f.Version),
		newDemoCmd(io),
		newProxyCmd(io, f.HTTP.runProxy),
		newInstallCmd(io, runInstall),
		newUninstallCmd(io, runUninstall),
		newDoctorCmd(io),
		newGCCmd(io),
		newApproveCmd(io),
		newApprovalsCmd(io),
		newMCPCmd(io, f.Version),
		newChildrenCmd(io),
		newDeliverCmd(io),
		newInboxCmd(io, f.HTTP.Inbox),
		newAuthCmd(io, f.HTTP.Auth),
		newRelayCmd(io, f.HTTP.NATSRelay),
	)
	return withSubcommands(root)
}

// applyEnv fills each flag hookrun.EnvFlag allows not given on the command line from
// its environment variable, and refuses a variable naming another of the
// command's flags (hookrun.ApplyEnv, which interceptor-hook runs too).
func applyEnv(flags *pflag.FlagSet) error {
	var names []string
	flags.VisitAll(func(f *pflag.Flag) {
		if f.Name != "help" {
			names = append(names, f.Name)
		}
	})
	return hookrun.ApplyEnv(names, flags.Changed, flags.Set, os.LookupEnv)
}

// run is Main with io and nothing else: the demo's steps and the tests.
func run(args []string, io *IO) int { return Main(args, &Factory{IO: io}) }

// usageError is a command line that names no command or flag there is:
// exit 2, as other command-line tools do (1 is a command that ran and
// failed).
type usageError struct{ error }

// withSubcommands makes a command that only groups subcommands refuse an
// unknown one with one line naming the valid ones (cobra printed the help
// and exited 0, so a typo looked like success); with none, it prints its
// help.
func withSubcommands(cmd *cobra.Command) *cobra.Command {
	cmd.Args = cobra.ArbitraryArgs
	cmd.RunE = func(c *cobra.Command, args []string) error {
		if len(args) == 0 {
			return c.Help()
		}
		var names []string
		for _, sub := range c.Commands() {
			if sub.IsAvailableCommand() {
				names = append(names, sub.Name())
			}
		}
		return unknownCommandError(c, args[0])
	}
	return cmd
}

// unknownCommand is the error for a command line whose words, before the
// first flag, name a command that does not exist under the one before
// them; nil when they do not.
func unknownCommand(root *cobra.Command, args []string) error {
	c := root
	for _, a := range args {
		if strings.HasPrefix(a, "-") || !c.HasSubCommands() {
			return nil
		}
		next := slices.IndexFunc(c.Commands(), func(sub *cobra.Command) bool { return sub.Name() == a || sub.HasAlias(a) })
		if next < 0 {
			return unknownCommandError(c, a)
		}
		c = c.Commands()[next]
	}
	return nil
}

// unknownCommandError names the mistyped command word under c, with the
// nearest command when one is near, else the ones there are.
func unknownCommandError(c *cobra.Command, word string) error {
	prefix := ""
	if c.HasParent() {
		prefix = c.CommandPath() + ": "
	}
	if c.SuggestionsMinimumDistance <= 0 {
		c.SuggestionsMinimumDistance = 2 // cobra's own default, which SuggestionsFor does not apply
	}
	if near := c.SuggestionsFor(word); len(near) > 0 {
		return usageError{fmt.Errorf("%sunknown command %q; did you mean %s?", prefix, word, strings.Join(near, " or "))}
	}
	var names []string
	for _, sub := range c.Commands() {
		if sub.IsAvailableCommand() {
			names = append(names, sub.Name())
		}
	}
	return usageError{fmt.Errorf("%sunknown command %q (want one of: %s)", prefix, word, strings.Join(names, ", "))}
}

// firstWord is the subcommand's name, if it comes first (flags go after it
// in every config we write).
func firstWord(args []string) string {
	if len(args) > 0 {
		return args[0]
	}
	return ""
}

// oneLine folds an error onto one line, so a hook never prints more than
// one line on stderr.
func oneLine(s string) string {
	s = strings.TrimSpace(s)
	if !strings.ContainsAny(s, "\r\n") {
		return s
	}
	return strings.Join(strings.Fields(s), " ")
}
