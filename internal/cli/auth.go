package cli

import (
	"context"
	"errors"
	"os"

	"github.com/spf13/cobra"
)

// authFlags are the flags of auth login, status and logout.
type authFlags struct {
	url      string
	oauth    oauthFlags
	stateDir stateDirFlag
}

// newAuthCmd is auth, whose subcommands run runs (HTTP.Auth: nil in
// interceptor, as the OAuth client needs net/http, which would slow every
// hook's start-up).
// run reads the flags into what subcommand sub runs with.
func (f *authFlags) run(sub string) (*AuthRun, error) {
	if sub == "status" && f.url == "" {
		dir, err := f.stateDir.resolve()
		return &AuthRun{Sub: sub, StateDir: dir}, err
	}
	o, err := f.oauth.resolve(nil, &f.stateDir, os.LookupEnv)
	if err != nil {
		return nil, err
	}
	return &AuthRun{Sub: sub, URL: f.url, StateDir: o.StateDir, OAuth: o}, nil
}

func newAuthCmd(io *IO, run func(context.Context, *AuthRun, *IO) error) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "auth",
		Short: "OAuth for proxy --url: authorize the relay with a server ahead of time, see or forget its tokens",
		Long: `A server that answers 401 with a Bearer challenge gets an OAuth client in the
relay (proxy --url), as it would in a client that reached it itself: the
relay opens your browser at its authorization server and keeps the tokens in
the state dir (oauth/, one private file per server URL), refreshing them.

auth login does that ahead of time, in your terminal, so the relay never
needs a browser while a client waits on it; auth status says what is kept;
auth logout forgets it. See docs/proxy.md.`,
	}
	for _, sub := range []struct{ name, short string }{
		{"login", "Authorize the relay with the server at --url now (opens your browser)"},
		{"status", "Say whether the relay is authorized with --url (without --url: every server it is)"},
		{"logout", "Forget the tokens and client kept for --url"},
	} {
		f := &authFlags{}
		c := &cobra.Command{
			Use:   sub.name + " --url URL",
			Short: sub.short,
			Args:  cobra.NoArgs,
			RunE: func(cmd *cobra.Command, _ []string) error {
				if run == nil {
					return errors.New("auth: this binary has no HTTP client (it would slow every hook's start-up); run interceptor-http auth from the same release, or build ./cmd/interceptor-http")
				}
				if f.url == "" && sub.name != "status" {
					return errors.New("auth " + sub.name + ": give the server's --url")
				}
				r, err := f.run(sub.name)
				if err != nil {
					return err
				}
				return run(cmd.Context(), r, io)
			},
		}
		c.Flags().StringVar(&f.url, "url", "", "the server's Streamable HTTP endpoint, as given to proxy --url")
		if sub.name == "login" {
			f.oauth.register(c.Flags(), false)
		}
		f.stateDir.register(c, "where the relay keeps OAuth tokens")
		cmd.AddCommand(c)
	}
	return withSubcommands(cmd)
}
