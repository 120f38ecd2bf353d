// Package oauth is the HTTP relay's OAuth 2.1 client, per the MCP
// authorization spec (2025-11-25): what a client that reaches a remote MCP
// server itself would do, done inside the relay that stands in front of
// it (as mcp-remote does), so the stdio client behind it needs none.
//
// A server that answers 401 names its protected resource metadata
// (RFC 9728) in WWW-Authenticate, or has it at a well-known path; that
// names the authorization server, whose metadata (RFC 8414, or OpenID
// discovery) gives the endpoints. The relay registers itself there
// (RFC 7591) unless it was given a pre-registered client, sends the user's
// browser to the authorization endpoint with PKCE (S256) and a resource
// indicator (RFC 8707), takes the code on a loopback redirect listener and
// exchanges it for tokens, which it keeps per server URL in the state dir
// (0600, beside nothing else) and refreshes. A 403 insufficient_scope asks
// for the scopes the server names, with those already granted (step-up).
//
// golang.org/x/oauth2 does the PKCE, the code exchange and the refresh;
// discovery, registration and the store are here, on the standard library.
// No token or secret is ever put in a process's arguments or a log line.
package oauth
