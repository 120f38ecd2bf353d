package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// streams are the command's I/O, injected so tests drive commands directly.
type streams struct {
	In  io.Reader
	Out io.Writer
	Err io.Writer
	// exit, when set, lets a hook command arm its watchdog; tests leave it nil.
	exit func(int)
}

// envPrefix: every flag also reads INTERCEPTOR_<FLAG>, e.g. --state-dir from
// INTERCEPTOR_STATE_DIR. A flag given on the command line wins.
const envPrefix = "INTERCEPTOR_"

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
var hookCommands = map[string]func(*streams) *cobra.Command{
	"inject":  newInjectCmd,
	"capture": newCaptureCmd,
	"clear":   newClearCmd,
	"approve": newApproveCmd,
	"deliver": newDeliverCmd,
}

// newRootCmd builds the command tree; with only naming a hook command, just
// that command.
func newRootCmd(io *streams, only string) *cobra.Command {
	root := &cobra.Command{
		Use:   "interceptor",
		Short: "Own the session token of token-authenticated MCP servers, in every client's tool-call path",
		Long: `interceptor runs as a hook of an AI coding agent (Claude Code, Codex CLI,
Gemini CLI, OpenCode, Cursor). It captures the session_token each tool result
of your MCP server carries and injects it into the next call, per client
session, so the model never types it.

Every flag also reads an environment variable INTERCEPTOR_<FLAG>
(e.g. INTERCEPTOR_STATE_DIR, INTERCEPTOR_SERVER=a,b); a flag wins.`,
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
		return fmt.Errorf("%w (see --help)", err)
	})
	if newHook, ok := hookCommands[only]; ok {
		root.CompletionOptions.DisableDefaultCmd = true
		root.AddCommand(newHook(io))
		return root
	}
	// `interceptor completion bash|zsh|fish|powershell` prints a completion
	// script (cobra's).
	root.CompletionOptions.HiddenDefaultCmd = false
	root.AddCommand(
		newInjectCmd(io),
		newCaptureCmd(io),
		newClearCmd(io),
		newTokenCmd(io),
		newVersionCmd(io),
		newDemoCmd(io),
		newProxyCmd(io),
		newInstallCmd(io),
		newUninstallCmd(io),
		newDoctorCmd(io),
		newGCCmd(io),
		newApproveCmd(io),
		newApprovalsCmd(io),
		newMCPCmd(io),
		newChildrenCmd(io),
		newDeliverCmd(io),
	)
	return root
}

// applyEnv fills every flag not given on the command line from its
// environment variable.
func applyEnv(flags *pflag.FlagSet) error {
	var errs []error
	flags.VisitAll(func(f *pflag.Flag) {
		if f.Changed || f.Name == "help" {
			return
		}
		v, ok := os.LookupEnv(envName(f.Name))
		if !ok {
			return
		}
		if err := flags.Set(f.Name, v); err != nil {
			errs = append(errs, fmt.Errorf("%s=%q: %v", envName(f.Name), v, err))
		}
	})
	return errors.Join(errs...)
}

// run executes the command line and returns the exit code. Hook commands
// exit 0 whatever happens, with at most one line on stderr: exit 2 would
// block the tool call, and any failure must let the call proceed unchanged.
func run(args []string, io *streams) (code int) {
	root := newRootCmd(io, firstWord(args))
	root.SetArgs(args)
	cmd, err := root.ExecuteC()
	if err == nil {
		return 0
	}
	fmt.Fprintf(io.Err, "interceptor: %s\n", oneLine(err.Error()))
	if isHook(cmd) {
		return 0
	}
	return 1
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
