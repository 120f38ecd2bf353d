package cli

import (
	"context"
	"errors"
	"time"

	"github.com/spf13/cobra"
)

// NATSOptions are how relay and inbox --nats reach NATS, their flags read.
type NATSOptions struct {
	URL         string // "" none: the inbox is this machine's alone
	Creds, NKey string // a credentials file, or an nkey seed file
	TLSCA       string
	Machine     string // this machine's name ("" the host name's)
}

// RelayRun is what interceptor-http relay runs.
type RelayRun struct {
	StateDir string
	NATS     NATSOptions
	Every    time.Duration
}

// natsFlags registers the NATS flags on cmd; need says whether --nats is
// required.
func natsFlags(cmd *cobra.Command, o *NATSOptions, what string) {
	f := cmd.Flags()
	f.StringVar(&o.URL, "nats", "", "NATS server URL(s), comma-separated: nats://HOST:4222, or tls://HOST:4222 for TLS"+what)
	f.StringVar(&o.Creds, "creds", "", "NATS credentials file (a user JWT and its nkey seed; keep it 0600)")
	f.StringVar(&o.NKey, "nkey", "", "file holding an nkey seed (SU...) to authenticate with, instead of --creds")
	f.StringVar(&o.TLSCA, "tls-ca", "", "PEM file of the CA that signed the NATS server's certificate (tls:// URLs; default: the system's roots)")
	f.StringVar(&o.Machine, "machine", "", "this machine's name in NATS subjects and on the inbox's cards: letters, digits, - and _ (default: the host name)")
}

// newRelayCmd is relay, which run runs (HTTP.NATSRelay: nil in
// interceptor, which links no network client).
func newRelayCmd(io *IO, run func(context.Context, *RelayRun, *IO) error) *cobra.Command {
	var dir stateDirFlag
	r := &RelayRun{}
	cmd := &cobra.Command{
		Use:   "relay --nats URL [--creds FILE | --nkey FILE] [--tls-ca FILE] [--machine NAME]",
		Short: "Mirror this machine's open requests to NATS JetStream, and apply the decisions an inbox on another machine sends back",
		Long: `A long-running process (a systemd user unit or a launchd agent:
examples/relay/) that lets one inbox answer many machines. It publishes this
machine's open approval requests and human tools' questions to the NATS
JetStream bucket interceptor_requests (key MACHINE.ID), as this machine's own
views show them: stand-ins for held tokens, control characters as escapes,
never a held value. It listens on interceptor.MACHINE.act for the decisions
and answers of an inbox started with --nats, and applies each through this
machine's queue, as interceptor approvals does: a request decided, answered
or expired meanwhile is refused and the inbox is told why; decided_by names
who decided and on which machine.

The local queue stays the source of truth: with NATS down, hooks, the CLI
and the local inbox work as before; the relay reconnects and publishes again
what is open then. It reads only the open requests, and sleeps while nothing
changes (inotify on Linux; a heartbeat every --heartbeat).

Credentials: --creds (a NATS user's .creds file) or --nkey (a seed file);
give TLS with a tls:// URL (--tls-ca for a private CA). Scope each machine's
user to its own subjects (docs/relay.md, SECURITY.md). The relay is built
into interceptor-http, not interceptor, whose hooks must start fast.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if run == nil {
				return errors.New("relay: this binary links no network client (every hook would pay for it); run interceptor-http relay from the same release, or build ./cmd/interceptor-http")
			}
			if r.NATS.URL == "" {
				return usageError{errors.New("relay: --nats URL is required")}
			}
			var err error
			if r.StateDir, err = dir.resolve(); err != nil {
				return err
			}
			return run(cmd.Context(), r, io)
		},
	}
	dir.register(cmd, "state dir holding the approval queue to relay")
	natsFlags(cmd, &r.NATS, "")
	cmd.Flags().DurationVar(&r.Every, "heartbeat", 10*time.Second, "how often the relay says it is alive (an inbox shows its requests unreachable after three missed)")
	return cmd
}
