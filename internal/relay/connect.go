package relay

import (
	"fmt"
	"io"
	"net/url"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
)

// ConnOptions are how a relay or an inbox reaches NATS.
type ConnOptions struct {
	URL string // nats://, tls:// (TLS), several comma-separated
	// Creds is a NATS credentials file (a user JWT and its nkey seed);
	// NKey a file holding an nkey seed alone. At most one.
	Creds, NKey string
	// TLSCA is a PEM file of the CA that signed the server's certificate
	// (a tls:// URL otherwise trusts the system's roots).
	TLSCA string
	Name  string // the connection's name, as the server's monitoring shows it
	// Machine, when set, makes the connection's reply subjects
	// _INBOX_<machine>.*, so NATS permissions can keep each machine's
	// replies its own (examples/relay/nats-server.conf).
	Machine string
	Log     io.Writer
	// Reconnected is called each time the connection comes back.
	Reconnected func()
}

// Connect connects and keeps reconnecting for ever (every 2 s, with
// jitter): a relay outlives NATS's restarts. A first connection that fails
// is retried the same way in the background.
func Connect(o ConnOptions) (*nats.Conn, error) {
	if o.Creds != "" && o.NKey != "" {
		return nil, fmt.Errorf("--creds and --nkey each give the credentials: give one")
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	opts := []nats.Option{
		nats.Name(o.Name),
		nats.MaxReconnects(-1),
		nats.ReconnectWait(2 * time.Second),
		nats.ReconnectJitter(500*time.Millisecond, time.Second),
		nats.RetryOnFailedConnect(true),
		nats.PingInterval(20 * time.Second),
		nats.DisconnectErrHandler(func(_ *nats.Conn, err error) {
			if err != nil {
				fmt.Fprintf(o.Log, "nats: disconnected: %v\n", err)
			} else {
				fmt.Fprintf(o.Log, "nats: disconnected\n")
			}
		}),
		nats.ReconnectHandler(func(c *nats.Conn) {
			fmt.Fprintf(o.Log, "nats: reconnected to %s\n", c.ConnectedUrlRedacted())
			if o.Reconnected != nil {
				o.Reconnected()
			}
		}),
		nats.ConnectHandler(func(c *nats.Conn) {
			// A first connection made after RetryOnFailedConnect's retries.
			if o.Reconnected != nil {
				o.Reconnected()
			}
		}),
	}
	if o.Machine != "" {
		if err := CheckMachine(o.Machine); err != nil {
			return nil, err
		}
		opts = append(opts, nats.CustomInboxPrefix("_INBOX_"+o.Machine))
	}
	switch {
	case o.Creds != "":
		opts = append(opts, nats.UserCredentials(o.Creds))
	case o.NKey != "":
		opt, err := nats.NkeyOptionFromSeed(o.NKey)
		if err != nil {
			return nil, fmt.Errorf("--nkey %s: %w", o.NKey, err)
		}
		opts = append(opts, opt)
	}
	if o.TLSCA != "" {
		opts = append(opts, nats.RootCAs(o.TLSCA))
	}
	nc, err := nats.Connect(o.URL, opts...)
	if err != nil {
		return nil, fmt.Errorf("nats %s: %w", Redacted(o.URL), err)
	}
	return nc, nil
}

// Redacted is the URL list with no password or token in it, for logs.
func Redacted(urls string) string {
	parts := strings.Split(urls, ",")
	for i, p := range parts {
		u, err := url.Parse(strings.TrimSpace(p))
		if err != nil {
			parts[i] = "(a URL that does not parse)"
			continue
		}
		if u.User != nil {
			u.User = url.User("***")
		}
		parts[i] = u.String()
	}
	return strings.Join(parts, ",")
}
