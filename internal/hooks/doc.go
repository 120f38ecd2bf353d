// Package hooks describes each client once (for the hooks, install,
// doctor, children and the help texts alike), turns each client's hook
// payload into one normalized Event, and renders replies back in that
// client's own format.
//
// The files:
//
//   - One file per client, its one description: claude.go, codex.go,
//     gemini.go, opencode.go, cursor.go, copilot.go, cline.go, droid.go,
//     kilo.go. Each holds the client's Client (plain data: the hook config
//     per scope, events, timeout unit and default, what the client can
//     rewrite, what its config parser accepts, where it lists MCP servers,
//     its MCP tool timeout, its shell tool, its turn-start event, how
//     interceptor children runs it), each fact with where it was learned
//     (the version run, or the client's documentation), and the Adapter
//     that reads its payloads and renders its replies (Kilo CLI's shim
//     sends OpenCode's).
//   - clients.go is the shape of that description and the list of clients
//     (Clients, the order Parse detects them in).
//   - names.go is how the clients spell an MCP server's tools in the names
//     their hooks receive: the spellings each Client's Naming picks from,
//     and ToolPrefix and the matching built on them;
//     testdata/names/observed.json keeps what the real clients sent.
//   - event.go holds Event, the Adapter every client's format implements,
//     and Parse, which bounds a payload and detects its client.
//   - mcp.go redacts an MCP tool result in the shapes the clients pass it
//     on (carry.ReadResult, shared with the proxy, reads it); json.go builds
//     replies from raw JSON.
//   - decision.go is the Decision on a pre-tool call, from the supervisor
//     or rule that makes it to the reply that renders it; deny.go the
//     deny of a payload that could not be read (the approve hook).
//   - permit.go is Claude Code's --permission-prompt-tool (PermitClient):
//     its session variable and the reply the MCP permit tool gives.
//   - prompt.go is the turn-start events whose reply adds context (interceptor
//     deliver); each adapter renders its own.
package hooks
