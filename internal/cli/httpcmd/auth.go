package httpcmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/interceptor-dev/interceptor/internal/cli"
	"github.com/interceptor-dev/interceptor/internal/install"
	"github.com/interceptor-dev/interceptor/internal/oauth"
	"github.com/interceptor-dev/interceptor/internal/oauth/store"
)

// newOAuthClient is the relay's OAuth client of the server at url.
func newOAuthClient(url string, o *cli.OAuthOptions, logf func(string, ...any)) (*oauth.Client, error) {
	return oauth.New(oauth.Config{
		Server: url, StateDir: o.StateDir,
		ClientID: o.ClientID, ClientSecret: o.ClientSecret, CallbackPort: o.CallbackPort, Scope: o.Scope,
		Logf: logf,
	})
}

// auth runs auth login, status or logout.
func auth(ctx context.Context, r *cli.AuthRun, io *cli.IO) error {
	logf := func(format string, a ...any) { fmt.Fprintf(io.Err, "interceptor: "+format+"\n", a...) }
	if r.Sub == "status" && r.URL == "" {
		return authStatusAll(r.StateDir, io)
	}
	c, err := newOAuthClient(r.URL, r.OAuth, logf)
	if err != nil {
		return err
	}
	switch r.Sub {
	case "login":
		ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
		defer stop()
		if err := c.Login(ctx); err != nil {
			return err
		}
		fmt.Fprintf(io.Out, "authorized: the relay (proxy --url %s) now sends the token kept in %s\n", c.Server(), c.Store().Path(c.Server()))
		return nil
	case "logout":
		removed, err := c.Logout()
		if err != nil {
			return err
		}
		if !removed {
			fmt.Fprintf(io.Out, "nothing was kept for %s\n", c.Server())
			return nil
		}
		fmt.Fprintf(io.Out, "forgot the tokens and client kept for %s (the authorization server was not told: a token it issued stays valid until it expires)\n", c.Server())
		return nil
	}
	return authStatus(c, io)
}

// authStatus says whether the relay is authorized with c's server.
func authStatus(c *oauth.Client, io *cli.IO) error {
	rec, err := c.Status()
	if err != nil {
		return err
	}
	if rec == nil {
		fmt.Fprintf(io.Out, "%s: not authorized (interceptor-http auth login --url %s)\n", c.Server(), c.Server())
		return errNotAuthorized
	}
	state, ok := rec.State(time.Now())
	fmt.Fprintf(io.Out, "%s: %s\n", rec.Server, state)
	client := "registered by the relay"
	if !rec.Registered {
		client = "pre-registered"
	}
	fmt.Fprintf(io.Out, "  authorization server  %s\n  client                %s (%s)\n", rec.Issuer, rec.ClientID, client)
	if rec.Scope != "" {
		fmt.Fprintf(io.Out, "  scope                 %s\n", rec.Scope)
	}
	fmt.Fprintf(io.Out, "  kept in               %s\n", c.Store().Path(rec.Server))
	if !ok {
		return errNotAuthorized
	}
	return nil
}

// errNotAuthorized makes auth status exit 1 when the relay would have to
// authorize anew.
var errNotAuthorized = errors.New("auth status: the relay is not authorized with this server (the line above)")

// authStatusAll lists every server the relay keeps an authorization for
// in the state dir, each address masked (a list is pasted where a single
// server the user named is not; an address may carry a key).
func authStatusAll(dir string, io *cli.IO) error {
	recs, err := (&store.Store{StateDir: dir}).List()
	for _, r := range recs {
		state, _ := r.State(time.Now())
		shown := install.MaskURL(r.Server)
		fmt.Fprintf(io.Out, "%s: %s\n", shown, strings.ReplaceAll(strings.TrimSpace(state), r.Server, shown))
	}
	if len(recs) == 0 && err == nil {
		fmt.Fprintf(io.Out, "no OAuth authorization kept in %s\n", dir)
	}
	return err
}
