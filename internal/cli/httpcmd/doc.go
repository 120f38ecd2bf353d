// Package httpcmd is the part of interceptor-http's commands that links
// net/http: the relay to a Streamable HTTP server (proxy --url, through
// internal/proxy/streamhttp and the OAuth client of internal/oauth), the
// inbox page (internal/inbox) and auth. cmd/interceptor-http passes
// Commands to internal/cli, which reads the flags; interceptor, whose hooks
// must start fast, does without.
package httpcmd

import "github.com/interceptor-dev/interceptor/internal/cli"

// Commands are the net/http parts of proxy --url, inbox and auth.
func Commands() cli.HTTP {
	return cli.HTTP{Relay: relay, Inbox: serveInbox, Auth: auth, NATSRelay: natsRelay}
}
