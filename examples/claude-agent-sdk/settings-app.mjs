// A Claude Agent SDK app with nothing of interceptor in its code. It leaves
// settingSources at its default, so the SDK loads the user's and the
// project's settings.json like Claude Code does, and with them the hooks of
//
//   interceptor install claude-code --server wf --redact
//   MCP_CONFIG=mcp.json node settings-app.mjs "prompt"
//
// Or, with no hooks at all, MCP_CONFIG launches the token server through the
// proxy: "command": "interceptor", "args": ["proxy", "--server-name", "wf",
// "--", "<server>", ...]. See recipes/claude-agent-sdk.md.
//
// MCP_CONFIG is a Claude Code MCP config ({"mcpServers": {...}}).
import { query } from "@anthropic-ai/claude-agent-sdk"
import { readFileSync } from "node:fs"

const mcpServers = JSON.parse(readFileSync(process.env.MCP_CONFIG ?? "mcp.json", "utf8")).mcpServers

for await (const msg of query({
  prompt: process.argv[2] ?? "Run the release-review workflow to the end.",
  options: {
    // No settingSources: user, project and local settings load, hooks included.
    mcpServers,
    allowedTools: Object.keys(mcpServers).map((s) => `mcp__${s}__*`),
  },
})) {
  if (msg.type === "result") console.log(msg.subtype === "success" ? msg.result : `error: ${msg.subtype}`)
}
