// Package mcpserver is interceptor's own stdio MCP server (interceptor mcp):
// newline-delimited JSON-RPC 2.0 on stdin/stdout with initialize,
// notifications/initialized, ping, tools/list and tools/call (and
// notifications/cancelled), and revision 2026-07-28's server/discover,
// per-request _meta and subscriptions/listen. It is written by hand (gjson
// reads the requests, encoding/json writes the replies from Go types)
// because the MCP Go SDK must not be linked into the hook binary (its
// package initialization alone costs every hook process about 1.4 ms).
//
// Tool calls run concurrently (a supervisor's long-polling pending must not
// hold up a ping or a respond); replies are written one per line, whole.
//
// The files:
//
//   - server.go is the protocol: Server, Tool, Result.
//   - revision.go is what revision 2026-07-28 adds: each request's
//     revision checked on its own (-32022 when unsupported), resultType
//     and serverInfo in its results, server/discover, subscriptions/listen.
//   - approvals.go is the approval queue's tools (internal/approvals): the
//     child role's permit (Claude Code's --permission-prompt-tool, asking
//     through approvals.Store.Ask) and the supervisor role's pending,
//     respond (a decision, or a human tool's answer) and history.
//   - children.go adds the child-session tools to a supervisor (create,
//     chat_async, poll, cancel, list; internal/children).
//   - humantools.go serves declared human tools (internal/humantools).
package mcpserver
