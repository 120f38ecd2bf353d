// Package proxy is proxy mode: interceptor runs as the client's MCP server,
// relays every JSON-RPC message to the real server (a child process over
// stdio, or a Streamable HTTP endpoint) and owns the session tokens on the
// way: it removes the token argument from the tool schemas the client lists,
// puts tokens into tool calls (the latest, or the one a stand-in names), takes
// the new token out of each tool result, and shows every token of the session
// as its stand-in in whatever the server sends the client.
//
// Messages are relayed as raw bytes. tools/list results, tools/call requests
// and tools/call results are looked into and edited; other messages from the
// server only have held tokens replaced. Every byte not edited passes through
// exactly as it came. Messages too deep or too large to parse safely are
// answered with JSON-RPC errors instead of relayed. The token logic itself is
// internal/token's, shared with hook mode.
//
// The files:
//
//   - rewrite.go is the Rewriter: what is edited in each message, either
//     way (Config says how).
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
