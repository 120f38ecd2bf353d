package cli

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/interceptor-dev/interceptor/internal/state"
	"github.com/interceptor-dev/interceptor/internal/termio"
	"github.com/interceptor-dev/interceptor/internal/token"
	"github.com/spf13/cobra"
)

// tokenFlags are the flags of the manual `token` commands.
type tokenFlags struct {
	stateDirFlag
	server  string
	session string
	handle  string // token set: the handle the value is stored under
}

func (f *tokenFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	f.stateDirFlag.register(cmd, "where tokens are kept")
	fl.StringVar(&f.server, "server", "", "the token server's name")
	fl.StringVar(&f.session, "session", "", "the client session id (default: the server's current token)")
}

func newTokenCmd(io *IO) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "token",
		Short: "Inspect and repair held tokens by hand",
	}
	cmd.AddCommand(newTokenShowCmd(io), newTokenSetCmd(io), newTokenClearCmd(io))
	return withSubcommands(cmd)
}

func newTokenShowCmd(io *IO) *cobra.Command {
	f := &tokenFlags{}
	var reveal, all bool
	cmd := &cobra.Command{
		Use:   "show [--server NAME] [--session ID] [--all] [--reveal]",
		Short: "Show a held token, masked unless --reveal",
		Long: `Shows the server's current token, a session's token with --session, or every
held token with --all. Without --server, every server's. Tokens are masked
unless --reveal.`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			st, err := f.store()
			if err != nil {
				return err
			}
			var recs []state.Record
			var errs []error
			switch {
			case f.session != "":
				if f.server == "" {
					return errors.New("token show --session needs --server")
				}
				rec, err := st.Get(f.server, f.session)
				if err != nil {
					return fmt.Errorf("server %q session %q: %w", f.server, f.session, err)
				}
				recs = []state.Record{rec}
			default:
				recs, errs = st.List(f.server)
				if !all {
					recs = currentOnly(recs)
				}
			}
			for i, rec := range recs {
				if i > 0 {
					fmt.Fprintln(io.Out)
				}
				printRecord(io, rec, reveal)
			}
			if len(recs) == 0 && len(errs) == 0 {
				if f.server != "" {
					return fmt.Errorf("no token held for server %q", f.server)
				}
				// A listing of the whole store that finds nothing is an
				// answer, not a failure (the quickstart runs show --all).
				fmt.Fprintln(io.Err, "no token held")
				return nil
			}
			return errors.Join(errs...)
		},
	}
	f.register(cmd)
	cmd.Flags().BoolVar(&reveal, "reveal", false, "print the whole token")
	cmd.Flags().BoolVar(&all, "all", false, "show every session's token, not only the current one")
	return cmd
}

func currentOnly(recs []state.Record) []state.Record {
	var out []state.Record
	for _, r := range recs {
		if r.Current {
			out = append(out, r)
		}
	}
	return out
}

func printRecord(io *IO, rec state.Record, reveal bool) {
	show := func(v string) string {
		if reveal {
			return v
		}
		return token.Mask(v)
	}
	session := rec.Session
	if rec.Current {
		session = "(current) " + session
	}
	age := ""
	if !rec.Updated.IsZero() {
		age = fmt.Sprintf("%s (%s ago)", rec.Updated.UTC().Format(time.RFC3339), time.Since(rec.Updated).Round(time.Second))
	}
	fmt.Fprintf(io.Out, "server:  %s\nsession: %s\nclient:  %s\nupdated: %s\n", rec.Server, session, rec.Client, age)
	for _, name := range rec.Names() {
		l := rec.Holding[name]
		label := name
		if label == "" {
			label = "token" // written before handles had names
		}
		switch {
		case l.Default != "":
			fmt.Fprintf(io.Out, "%s: %s\n", label, show(l.Default))
		case l.Withdrawn != "":
			fmt.Fprintf(io.Out, "%s: none injected (%s)\n", label, l.Withdrawn)
		default:
			fmt.Fprintf(io.Out, "%s: none injected (several live, none chosen)\n", label)
		}
		more := len(l.Values)
		if l.Default != "" {
			more--
		}
		if more > 0 {
			fmt.Fprintf(io.Out, "%s also holds: %d more\n", label, more)
		}
	}
}

func newTokenSetCmd(io *IO) *cobra.Command {
	f := &tokenFlags{}
	cmd := &cobra.Command{
		Use:   "set --server NAME [--session ID] [TOKEN]",
		Short: "Store a token by hand (read from stdin when not given)",
		Long: `Stores TOKEN for the server's session (with --session) and as its current
token. Without TOKEN, reads the first line of stdin: prefer that, it keeps
the token out of shell history and the process list:

  interceptor token set --server NAME < token.txt

A token that starts with "-" must come on stdin (or after --); an unknown
flag is reported without its text, in case it was a token.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			if f.server == "" {
				return errors.New("token set needs --server")
			}
			var tok string
			if len(args) == 1 {
				tok = args[0]
			} else {
				// On a terminal, read it without echo (it is a secret).
				line, err := termio.ReadSecretLine(io.In, io.Err, "token (not shown): ")
				if err != nil && line == "" {
					return errors.New("token set: no token given and none on stdin")
				}
				tok = line
			}
			if err := token.Validate(tok); err != nil {
				return fmt.Errorf("token set: %w", err)
			}
			st, err := f.store()
			if err != nil {
				return err
			}
			put := func(h token.Holding) (token.Holding, bool) {
				l := h[f.handle]
				h[f.handle] = token.Live{Values: l.Values.Push(tok), Default: tok, MetaSeen: l.MetaSeen}
				return h, true
			}
			if err := st.Update(f.server, f.session, "manual", true, put); err != nil {
				return err
			}
			fmt.Fprintf(io.Err, "stored %s for server %q\n", token.Mask(tok), f.server)
			return nil
		},
	}
	f.register(cmd)
	cmd.Flags().StringVar(&f.handle, "handle", state.DefaultHandle, "the handle the value is stored under (the hooks' --meta-key, or a name in their --handles file)")
	// A token that starts with "-" reads as an unknown flag, and the flag
	// parser's error would print it: say what happened without the text.
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		if strings.HasPrefix(err.Error(), "unknown") {
			return usageError{errors.New(`token set: an argument starting with "-" is no flag of token set (not repeated here: it may be a token); pass the token on stdin or after --`)}
		}
		return usageError{fmt.Errorf("%w (see --help)", err)}
	})
	return cmd
}

func newTokenClearCmd(io *IO) *cobra.Command {
	f := &tokenFlags{}
	var all bool
	cmd := &cobra.Command{
		Use:   "clear --server NAME [--session ID | --all]",
		Short: "Forget a held token",
		Long: `Forgets the server's current token, a session's token with --session (the
current one too when that session wrote it), or every token of the server
with --all. With --session and no --server, forgets that session's tokens for
every server.`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			st, err := f.store()
			if err != nil {
				return err
			}
			switch {
			case f.server == "" && f.session != "":
				err = st.DeleteSession(f.session)
			case f.server == "":
				return errors.New("token clear needs --server (or --session)")
			case all:
				err = st.DeleteServer(f.server)
			default:
				err = st.Delete(f.server, f.session)
			}
			if err != nil {
				return err
			}
			fmt.Fprintln(io.Err, "cleared")
			return nil
		},
	}
	f.register(cmd)
	cmd.Flags().BoolVar(&all, "all", false, "forget every token of the server")
	return cmd
}
