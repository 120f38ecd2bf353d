package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/pflag"
)

// oauthFlags are the OAuth options of proxy --url and auth: the relay is
// the OAuth client of a server that asks for authorization (a 401 with a
// Bearer challenge), as mcp-remote is (internal/oauth; docs/proxy.md).
type oauthFlags struct {
	clientID     string
	secretEnv    string // VAR holding the client secret (never the secret itself: argv is public)
	callbackPort int
	scope        string
	off          bool
}

func (o *oauthFlags) register(fl *pflag.FlagSet, withOff bool) {
	fl.StringVar(&o.clientID, "client-id", "", "OAuth: a client registered with the server's authorization server (default: the relay registers itself, where the server allows it)")
	fl.StringVar(&o.secretEnv, "client-secret-env", "", "OAuth: the environment variable holding --client-id's secret, if it has one")
	fl.IntVar(&o.callbackPort, "callback-port", 0, "OAuth: the port of the loopback redirect listener (default: any free port; a pre-registered client's redirect URI may name one: http://localhost:PORT/callback)")
	fl.StringVar(&o.scope, "scope", "", "OAuth: the scopes to ask for, space-separated (default: those the server names in its 401, else all it supports)")
	if withOff {
		fl.BoolVar(&o.off, "no-oauth", false, "never authorize with OAuth: a 401 is the client's error (it is off anyway when an Authorization header is given)")
	}
}

// resolve checks the flags and reads the secret from its variable. For
// the relay (header: its HTTP headers), OAuth is off when an
// Authorization header is given or --no-oauth: nil then.
func (o *oauthFlags) resolve(header [][2]string, stateDir *stateDirFlag, lookup func(string) (string, bool)) (*OAuthOptions, error) {
	given := o.clientID != "" || o.secretEnv != "" || o.callbackPort != 0 || o.scope != ""
	if o.off || hasAuthorization(header) {
		if given {
			return nil, errors.New("--client-id, --client-secret-env, --callback-port and --scope are for OAuth, which is off with --no-oauth or an Authorization header")
		}
		return nil, nil
	}
	if o.secretEnv != "" && o.clientID == "" {
		return nil, errors.New("--client-secret-env needs --client-id (a registered client's secret)")
	}
	if o.callbackPort < 0 || o.callbackPort > 65535 {
		return nil, fmt.Errorf("--callback-port %d is not a port", o.callbackPort)
	}
	opts := &OAuthOptions{ClientID: o.clientID, CallbackPort: o.callbackPort, Scope: strings.Join(strings.Fields(o.scope), " ")}
	if o.secretEnv != "" {
		v, ok := lookup(o.secretEnv)
		if !ok || strings.TrimSpace(v) == "" {
			return nil, fmt.Errorf("--client-secret-env: the environment variable %s is not set", o.secretEnv)
		}
		opts.ClientSecret = strings.TrimSpace(v)
	}
	dir, err := stateDir.resolve()
	if err != nil {
		return nil, err
	}
	opts.StateDir = dir
	return opts, nil
}

func hasAuthorization(header [][2]string) bool {
	for _, h := range header {
		if strings.EqualFold(h[0], "Authorization") {
			return true
		}
	}
	return false
}
