// Package proxy is proxy mode: interceptor runs as the client's MCP server,
// relays every JSON-RPC message to the real server (a child process over
// stdio, or a Streamable HTTP endpoint) and carries the server's handles on
// the way (a handle is any value the server mints and later calls pass
// back: a session token, an index, a pid): it removes or describes a
// handle's argument in the tool schemas the client lists, puts the values
// held into tool calls (the one held for the call, or the one a stand-in
// names), takes the new values out of each tool result, and shows every
// long value of the session as its stand-in in whatever the server sends
// the client.
//
// Messages are relayed as raw bytes. tools/list results, tools/call requests
// and tools/call results are looked into and edited; other messages from the
// server only have held values replaced. Every byte not edited passes
// through exactly as it came. Messages too deep or too large to parse safely
// are answered with JSON-RPC errors instead of relayed. What is carried and
// how is internal/carry's and internal/token's, shared with hook mode: this
// package is the adapter that keeps a connection's values in memory (and in
// the state store with --persist).
//
// The files:
//
//   - rewrite.go is the Rewriter (Config says what it carries): what a
//     connection holds, and how each message, or each member of a batch,
//     is routed to what edits it, or refused.
//   - calls.go edits a tools/call request: values in (token.Fill), a start
//     tool retiring the value held before (carry.Retire).
//   - results.go edits the server's responses: a tools/call result's values
//     taken (carry.Take), the connection's carry.Holder, --persist.
//   - tools.go rewrites a tools/list result's schemas for the handles each
//     tool takes, and learns from it which tools take which, and where an
//     argument is required (a handle goes only there: token.Spec.Injects).
//   - redact.go shows every value held as its stand-in in what the server
//     sends (quickly ruling out messages that cannot hold one), and splices
//     edits into a message.
//   - stdio.go relays to a server started as a child process (Stdio), and
//     ends it when the client goes.
//   - lines.go reads newline-delimited messages with a size bound.
//   - human.go serves human tools beside the server's (--human-tools).
//   - mrtr.go is what MCP 2026-07-28 adds: a multi round-trip requestState
//     reaches the client as a reference the proxy minted and goes back to
//     the server as it wrote it, and the proxy's own results carry
//     resultType.
//   - excerpt.go quotes a server's text (an HTTP error body) redacted, then
//     cut.
//
// The Streamable HTTP side is the subpackage streamhttp (http.go relays,
// headers.go has the per-request headers of 2026-07-28), linked only into
// interceptor-http (net/http would slow every hook run); proxytest
// holds what the tests share.
package proxy
