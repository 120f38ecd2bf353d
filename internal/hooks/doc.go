// Package hooks turns each client's hook payload into one normalized Event,
// renders replies back in that client's own format, and describes the
// clients for the hooks, install and doctor alike.
//
// The files:
//
//   - clients.go is the one home of client facts (Client): the hook config
//     per scope, events, timeout unit and default, what the client can
//     rewrite, what its config parser accepts, where it lists MCP servers,
//     its MCP tool timeout, its shell tool, its turn-start event; each with
//     where it was learned (the version run, or the client's
//     documentation).
//   - names.go is how the clients spell an MCP server's tools in the names
//     their hooks receive: the spellings each Client's Naming picks from,
//     and ToolPrefix and the matching built on them;
//     testdata/names/observed.json keeps what the real clients sent.
//   - event.go holds Event, the Adapter every client implements, and Parse,
//     which bounds a payload and detects its client.
//   - One file per client adapter: claude.go, codex.go, gemini.go,
//     opencode.go (Kilo CLI's shim runs it too), cursor.go, copilot.go,
//     cline.go, droid.go.
//   - mcp.go reads and redacts an MCP tool result in the shapes the clients
//     pass it on; json.go builds replies from raw JSON.
//   - decision.go is a supervisor's Decision on a pre-tool call; deny.go the
//     deny of a payload that could not be read (the approve hook).
//   - permit.go is Claude Code's --permission-prompt-tool (PermitClient):
//     its session variable and the reply the MCP permit tool gives.
//   - prompt.go is the turn-start events whose reply adds context (interceptor
//     deliver).
//
// Not every client fact lives here yet: internal/children starts the
// clients headless with its own runners.
package hooks
