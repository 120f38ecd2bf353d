package streamhttp

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// crossOrigin is a redirect the relay refused to follow.
type crossOrigin struct{ from, to string }

func (e *crossOrigin) Error() string {
	return "the MCP server redirected the request from " + e.from + " to another origin, " + e.to +
		"; not followed (the request carries the session token and the --header values)"
}

// sameOrigin is a redirect policy that follows a redirect only within the
// origin (scheme, host and port) of the first request: a 307 or 308 would
// send the body, with its injected token, and every header, X-Api-Key and
// Mcp-Session-Id too, to wherever it points. next is the policy it wraps
// (nil: Go's default of at most 10 redirects).
func sameOrigin(next func(*http.Request, []*http.Request) error) func(*http.Request, []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		if from, to := origin(via[0].URL), origin(req.URL); from != to {
			return &crossOrigin{from: from, to: to}
		}
		if next != nil {
			return next(req, via)
		}
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}
}

// origin is u's scheme, host and port (the default port when none is
// given), in lower case.
func origin(u *url.URL) string {
	scheme := strings.ToLower(u.Scheme)
	port := u.Port()
	if port == "" {
		switch scheme {
		case "http":
			port = "80"
		case "https":
			port = "443"
		}
	}
	return scheme + "://" + net.JoinHostPort(strings.ToLower(u.Hostname()), port)
}

// hideAddress is err for the client (and its model) to read: an error
// naming the server's whole address (Go's *url.Error does) names it by its
// origin only, for the address may hold a key in its path or query
// (install --proxy keeps it out of the relay's arguments for that).
func hideAddress(err error) string {
	var ue *url.Error
	if !errors.As(err, &ue) {
		return err.Error()
	}
	shown := "the server's address"
	if u, perr := url.Parse(ue.URL); perr == nil && u.Host != "" {
		shown = origin(u)
	}
	return fmt.Sprintf("%s %s: %v", ue.Op, shown, ue.Err)
}
