package cli

import (
	"context"
	"os"
	"time"

	"github.com/interceptor-dev/interceptor/internal/proxy"
)

// HTTP are the parts of commands that link net/http: the relay to a
// Streamable HTTP server (proxy --url), the inbox page and auth's OAuth
// client. cmd/interceptor-http passes them in (internal/cli/httpcmd);
// interceptor has none, since net/http would slow every hook's start-up,
// and its proxy --url, inbox and auth say where they are. Each gets its
// flags resolved: a flag's error is the same in both binaries.
type HTTP struct {
	// Relay relays r (whose URL is set) through rw until the client or
	// the server ends, or sigs says to stop; it returns the exit code.
	Relay func(rw *proxy.Rewriter, r *ProxyRun, sigs <-chan os.Signal) (int, error)
	// Inbox serves the page until ctx ends or a signal stops it.
	Inbox func(ctx context.Context, r *InboxRun, io *IO) error
	// Auth runs auth's subcommand r.Sub (login until ctx ends or a
	// signal stops it).
	Auth func(ctx context.Context, r *AuthRun, io *IO) error
	// NATSRelay runs relay until ctx ends or a signal stops it. It links
	// the NATS client, which interceptor must not (docs/relay.md).
	NATSRelay func(ctx context.Context, r *RelayRun, io *IO) error
}

// ProxyRun is what one proxy runs: the rewriter's config, and either the
// server's command (stdio) or the URL it relays to (Streamable HTTP).
type ProxyRun struct {
	IO      *IO
	Config  proxy.Config
	Command []string
	URL     string
	Header  [][2]string
	OAuth   *OAuthOptions // nil: no OAuth (a command, --no-oauth, an Authorization header)
	Grace   time.Duration
}

// InboxRun is what interceptor inbox serves, its flags read.
type InboxRun struct {
	StateDir, Listen string
	AllowRemote      bool
	Notify           string // the URL, from --notify, --notify-env or --notify-file
	NotifyJSON       bool
	NotifyWait       time.Duration // a burst's wait; negative: none
	Desktop          bool
	NewKey           bool
	NATS             NATSOptions // URL set: every machine's requests, through NATS
}

// AuthRun is one auth subcommand, its flags read.
type AuthRun struct {
	Sub      string // login, status or logout
	URL      string // "" only for status: every server kept
	StateDir string
	OAuth    *OAuthOptions // nil for status without --url
}

// OAuthOptions are the resolved OAuth options a relay or auth runs with.
type OAuthOptions struct {
	ClientID, ClientSecret string
	CallbackPort           int
	Scope                  string
	StateDir               string
}
