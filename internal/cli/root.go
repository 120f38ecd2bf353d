package cli

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/interceptor-dev/interceptor/internal/carry"
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
	fmt.Fprintf(f.IO.Err, "interceptor: %s\n", oneLine(err.Error()))
	if isHook(cmd) {
		return 0
	}
	if errors.As(err, new(usageError)) {
		return 2
	}
	return 1
}

// envPrefix: the flags in envFlags also read INTERCEPTOR_<FLAG>, e.g.
// --state-dir from INTERCEPTOR_STATE_DIR. A flag given on the command line
// wins.
const envPrefix = "INTERCEPTOR_"

// envFlags are the only flags an environment variable may set: where state
// and the debug log go, and the handle options users give a client's hooks
// (an OpenCode shim, a hook command shared by clients) that carry.Table lets
// the environment set. A variable is inherited by every process below the
// shell that set it, child agents included, so none of them decides what is
// approved, allowed or matched for approval, turns supervision off, reveals
// a token or says where a token is sent: INTERCEPTOR_APPROVE=1 must not
// become `children create --approve 1` (a regex that lets Bash run unasked),
// nor INTERCEPTOR_MATCH an approve hook's --match. A variable that names any
// other flag of the command being run is refused (applyEnv).
var envFlags = envAllowed()

func envAllowed() map[string]bool {
	allowed := map[string]bool{
		"state-dir": true,
		"debug-log": true,
		"chat":      true, // interceptor children tags a child's requests with it (children.ChatEnv)
	}
	// The handle options of inject, capture and clear (proxy takes them
	// too; install writes them into the hooks it installs, and itself reads
	// no variable).
	for _, opt := range carry.Table {
		if opt.Env {
			allowed[opt.Name] = true
		}
	}
	return allowed
}

// envFlagList is envFlags as --flag names, sorted, for help and errors.
func envFlagList() string {
	names := make([]string, 0, len(envFlags))
	for n := range envFlags {
		names = append(names, "--"+n)
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

func envName(flag string) string {
	return envPrefix + strings.ToUpper(strings.ReplaceAll(flag, "-", "_"))
}

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
	root.Long = rootLong()
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

// applyEnv fills each flag of envFlags not given on the command line from
// its environment variable. A non-empty variable naming another of the
// command's flags, not given on the command line, is refused in one error:
// it would have applied before, and ignoring it silently would run the
// command other than its user expects.
func applyEnv(flags *pflag.FlagSet) error {
	var errs []error
	var refused, names []string
	flags.VisitAll(func(f *pflag.Flag) {
		if f.Changed || f.Name == "help" {
			return
		}
		v, ok := os.LookupEnv(envName(f.Name))
		if !ok {
			return
		}
		if !envFlags[f.Name] {
			if v != "" {
				refused, names = append(refused, envName(f.Name)), append(names, "--"+f.Name)
			}
			return
		}
		if err := flags.Set(f.Name, v); err != nil {
			errs = append(errs, fmt.Errorf("%s=%q: %v", envName(f.Name), v, err))
		}
	})
	if len(refused) > 0 {
		errs = append(errs, fmt.Errorf("refusing %s: the environment never sets %s (interceptor --help lists the flags it may set); give it on the command line, or unset the variable",
			strings.Join(refused, ", "), strings.Join(names, ", ")))
	}
	return errors.Join(errs...)
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
		return usageError{fmt.Errorf("%s: unknown command %q (want one of: %s)", c.CommandPath(), args[0], strings.Join(names, ", "))}
	}
	return cmd
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
