package cli

import (
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"github.com/interceptor-dev/interceptor/internal/hooks"
	"github.com/interceptor-dev/interceptor/internal/lifecycle"
	"github.com/interceptor-dev/interceptor/internal/privfs"
	"github.com/interceptor-dev/interceptor/internal/rawjson"
	"github.com/interceptor-dev/interceptor/internal/state"
	"github.com/interceptor-dev/interceptor/internal/token"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// hookDeadline bounds a whole hook run. Clients close stdin and wait for us;
// if anything (a stuck pipe, a slow disk) holds the hook longer, it gives up
// and lets the tool call proceed unchanged.
const hookDeadline = 5 * time.Second

// hookFlags are the flags every hook command shares.
type hookFlags struct {
	client   string
	stateDir stateDirFlag
	debugLog string
	pattern  string // --token-pattern, compiled into opts.Pattern when set
	handles  string // --handles, read into opts.Handles when set
	opts     lifecycle.Options
	cmd      *cobra.Command
}

func (f *hookFlags) register(cmd *cobra.Command, tokenFlags bool) {
	f.cmd = cmd
	fl := cmd.Flags()
	fl.StringVar(&f.client, "client", "auto", "the client sending the event: auto, "+strings.Join(hooks.ClientNames(), ", "))
	f.stateDir.register(cmd, "where tokens are kept")
	fl.StringVar(&f.debugLog, "debug-log", "", "append a trace of each run to this file (tokens masked)")
	fl.StringSliceVar(&f.opts.Servers, "server", nil, "name of the token server as configured in the client (repeatable)")
	fl.BoolVar(&f.opts.Sessionless, "sessionless", false, "let events that carry no session id share the server's latest values (every capture then also writes them); off, such events get and keep nothing")
	if !tokenFlags {
		return
	}
	fl.StringSliceVar(&f.opts.NotServers, "not-server", nil, "another configured server whose tool names could be read as --server's (e.g. wf__admin beside wf): its tools never get a token (repeatable)")
	registerTokenFlags(fl, &f.opts, &f.pattern, &f.handles)
}

// registerTokenFlags adds the flags that say what is carried, shared by the
// hooks and the proxy.
func registerTokenFlags(fl *pflag.FlagSet, o *lifecycle.Options, pattern, handles *string) {
	fl.IntVar(&o.MinLen, "min-token-length", token.DefaultMinLen, "shortest value taken from a `key: value` text line (values under the key in _meta or JSON are taken as they are)")
	fl.StringVar(pattern, "token-pattern", "", "regular expression a value must match whole; replaces the length and letters-and-digits rules for text lines")
	fl.StringVar(&o.Arg, "arg", "session_token", "tool argument the value is injected into (alone, it names --meta-key too)")
	fl.StringVar(&o.MetaKey, "meta-key", "session_token", "key the server returns the value under (_meta, structuredContent, JSON text, `key: value` lines); default: --arg")
	fl.StringSliceVar(&o.SkipTools, "skip-tool", []string{"start_session"}, "tool never injected (repeatable)")
	fl.StringSliceVar(&o.StartTools, "start-tool", []string{"start_session"}, "tool that starts a session: when its result carries no value, the one held before is no longer injected (repeatable)")
	fl.StringSliceVar(&o.KeepIf, "keep-if", nil, "do not inject when the call already carries this argument besides --arg (repeatable; e.g. checkpoint_handle for a server where a handle replaces the token)")
	fl.StringVar(handles, "handles", "", "JSON file declaring the server's handles (docs/handles.md); replaces --arg, --meta-key, --token-pattern, --min-token-length, --skip-tool, --start-tool and --keep-if")
}

// resolveTokenFlags turns the token flags into options: --arg alone names
// --meta-key too; --handles is read (only then: a hook without it reads no
// file) and may not be mixed with the flags it replaces.
func resolveTokenFlags(fl *pflag.FlagSet, o *lifecycle.Options, pattern, handles string) error {
	if fl.Changed("arg") && !fl.Changed("meta-key") {
		o.MetaKey = o.Arg
	}
	if handles != "" {
		for _, name := range []string{"arg", "meta-key", "token-pattern", "min-token-length", "skip-tool", "start-tool", "keep-if"} {
			if fl.Changed(name) {
				return fmt.Errorf("--handles replaces --%s: declare it in %s instead", name, handles)
			}
		}
		specs, err := readHandles(handles)
		if err != nil {
			return err
		}
		o.Handles = specs
		return nil
	}
	if pattern != "" {
		re, err := token.CompilePattern(pattern)
		if err != nil {
			return err
		}
		o.Pattern = re
	}
	return nil
}

// readHandles reads a --handles file.
func readHandles(path string) ([]token.Spec, error) {
	data, _, err := privfs.ReadRegular(path, "handles file", token.MaxHandlesFile)
	if err != nil {
		return nil, err
	}
	return token.ParseHandles(data, path)
}

type hookFunc func(ev *hooks.Event, st *state.Store, f *hookFlags) (lifecycle.Outcome, error)

// hookRunE reads one event from stdin and runs fn on it. Whatever happens the
// command succeeds: problems become one stderr line, never a blocked call.
func hookRunE(io *IO, f *hookFlags, needServer bool, fn hookFunc) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, _ []string) (err error) {
		interactive := onTerminal(io.In)
		if interactive {
			// A person ran it by hand: say what it waits for, and do not
			// give up on them after the hook's deadline.
			fmt.Fprintf(io.Err, "interceptor %s reads one hook event (a JSON object, as a client's hook sends it) on stdin: paste one and end with Ctrl-D; see --help\n", cmd.Name())
		}
		if io.Exit != nil && !interactive {
			// A hook process lives for milliseconds and its payload is capped
			// at 8 MiB: collecting garbage would only cost time (a third of a
			// 1 MiB call). The memory limit keeps the collector as a backstop.
			debug.SetGCPercent(-1)
			debug.SetMemoryLimit(256 << 20)
			t := time.AfterFunc(hookDeadline, func() {
				fmt.Fprintf(io.Err, "interceptor: %s: gave up after %s; the tool call proceeds unchanged\n", cmd.Name(), hookDeadline)
				io.Exit(0)
			})
			defer t.Stop()
		}
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("%s: internal error: %v", cmd.Name(), r)
			}
		}()
		out, err := runHook(io, f, needServer, fn)
		f.trace(cmd.Name(), out, err)
		if err != nil {
			return fmt.Errorf("%s: %w", cmd.Name(), err)
		}
		if out.Warning != "" {
			fmt.Fprintf(io.Err, "interceptor: %s: %s\n", cmd.Name(), oneLine(out.Warning))
		}
		if len(out.Reply) > 0 {
			// One line: clients parse stdout as one JSON document and some read
			// it line by line.
			reply := append(rawjson.OneLine(out.Reply), '\n')
			if _, err := io.Out.Write(reply); err != nil {
				return fmt.Errorf("%s: writing reply: %w", cmd.Name(), err)
			}
		}
		return nil
	}
}

func runHook(in *IO, f *hookFlags, needServer bool, fn hookFunc) (lifecycle.Outcome, error) {
	if f.cmd.Flags().Lookup("arg") != nil {
		if err := resolveTokenFlags(f.cmd.Flags(), &f.opts, f.pattern, f.handles); err != nil {
			return lifecycle.Outcome{}, err
		}
	}
	if needServer {
		if err := f.opts.ValidateHooks(); err != nil {
			return lifecycle.Outcome{}, err
		}
	}
	client, err := hooks.Lookup(f.client)
	if err != nil {
		return lifecycle.Outcome{}, err
	}
	payload, err := io.ReadAll(io.LimitReader(in.In, hooks.MaxPayload+1))
	if err != nil {
		return lifecycle.Outcome{}, fmt.Errorf("reading stdin: %w", err)
	}
	ev, err := hooks.Parse(payload, client)
	if err != nil {
		return lifecycle.Outcome{}, err
	}
	st, err := f.stateDir.store()
	if err != nil {
		return lifecycle.Outcome{}, err
	}
	return fn(ev, st, f)
}

// trace appends one line to the debug log, if one is set. The outcome's
// trace never holds a token; a failure to log is not worth failing a hook.
func (f *hookFlags) trace(cmd string, out lifecycle.Outcome, err error) {
	if f.debugLog == "" {
		return
	}
	file, ferr := os.OpenFile(f.debugLog, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if ferr != nil {
		return
	}
	defer file.Close()
	msg := out.Trace
	switch {
	case err != nil:
		msg = "error: " + err.Error()
	case out.Warning != "":
		msg = "warning: " + out.Warning + " " + msg
	}
	fmt.Fprintf(file, "%s %s pid=%d %s replied=%t\n", time.Now().UTC().Format(time.RFC3339Nano), cmd, os.Getpid(), oneLine(msg), len(out.Reply) > 0)
}

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
	f.register(cmd, true)
	cmd.RunE = hookRunE(io, f, true, func(ev *hooks.Event, st *state.Store, f *hookFlags) (lifecycle.Outcome, error) {
		return lifecycle.Inject(ev, st, f.opts)
	})
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
	f.register(cmd, true)
	cmd.Flags().BoolVar(&f.opts.Redact, "redact", false, "remove the token from the result the model reads, where the client allows")
	cmd.RunE = hookRunE(io, f, true, func(ev *hooks.Event, st *state.Store, f *hookFlags) (lifecycle.Outcome, error) {
		return lifecycle.Capture(ev, st, f.opts)
	})
	return cmd
}

func newClearCmd(io *IO) *cobra.Command {
	f := &hookFlags{}
	cmd := hookCmd("clear [--server NAME]", "Session-end hook: forget the token of the event's session",
		wrap(`Reads one hook event on stdin (the session-end event install wires it to: `+byValue(clientsWhere(all), func(c *hooks.Client) string { return c.SessionEnd })+`) and forgets the
tokens held for its session: for the --server(s) given, else for every server.
A server's current token goes too when that session wrote it.`))
	f.register(cmd, false)
	cmd.RunE = hookRunE(io, f, false, func(ev *hooks.Event, st *state.Store, f *hookFlags) (lifecycle.Outcome, error) {
		return lifecycle.Clear(ev, st, f.opts.Servers)
	})
	return cmd
}
