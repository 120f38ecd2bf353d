// A Claude Agent SDK app whose calls to a token server carry its session
// token, through interceptor, with no settings file: programmatic hooks that
// run `interceptor inject|capture` on each tool call, exactly as Claude
// Code's settings-file hooks would, and `interceptor clear` when the query
// is done (see recipes/claude-agent-sdk.md).
//
//   INTERCEPTOR_BIN=/usr/local/bin/interceptor MCP_CONFIG=mcp.json node app.mjs "prompt"
//
// MCP_CONFIG is a Claude Code MCP config ({"mcpServers": {...}}) naming the
// token server INTERCEPTOR_SERVER (default "wf").
import { query } from "@anthropic-ai/claude-agent-sdk"
import { spawn } from "node:child_process"
import { readFileSync } from "node:fs"

const BIN = process.env.INTERCEPTOR_BIN ?? "interceptor"
const SERVER = process.env.INTERCEPTOR_SERVER ?? "wf"

// interceptorHook pipes the hook's input to `interceptor SUB` and returns its
// reply (nothing when it printed nothing). It fails open, as interceptor
// itself does: if it cannot run, the call proceeds unchanged.
function interceptorHook(sub, extra = []) {
  return (input) =>
    new Promise((resolve) => {
      const p = spawn(BIN, [sub, "--client", "claude-code", "--server", SERVER, ...extra], { stdio: ["pipe", "pipe", "inherit"] })
      let out = ""
      p.stdout.on("data", (d) => (out += d))
      p.on("error", (err) => {
        process.stderr.write(`interceptor: ${err.message}; the call proceeds unchanged\n`)
        resolve({})
      })
      p.on("close", () => {
        try {
          resolve(out.trim() ? JSON.parse(out) : {})
        } catch {
          resolve({})
        }
      })
      p.stdin.end(JSON.stringify(input))
    })
}

// Claude Code names a server's tools mcp__<server>__<tool>, with anything
// but letters, digits, '_' and '-' in the server name turned into '_'.
const prefix = `mcp__${SERVER.replace(/[^A-Za-z0-9_-]/g, "_")}__`
const matcher = `^${prefix}`
const mcpServers = JSON.parse(readFileSync(process.env.MCP_CONFIG ?? "mcp.json", "utf8")).mcpServers

// The SDK (0.3.330) does not call a programmatic SessionEnd hook when a
// query ends (seen: it never ran), so the app forgets the session's token
// itself once its query is done, as `interceptor clear` does on Claude
// Code's SessionEnd.
let sessionId
try {
  for await (const msg of query({
    prompt: process.argv[2] ?? "Run the release-review workflow to the end.",
    options: {
      settingSources: [], // no settings files: the hooks below are the only ones
      mcpServers,
      allowedTools: Object.keys(mcpServers).map((s) => `mcp__${s}__*`),
      hooks: {
        PreToolUse: [{ matcher, hooks: [interceptorHook("inject")] }],
        PostToolUse: [{ matcher, hooks: [interceptorHook("capture", ["--redact"])] }],
      },
    },
  })) {
    sessionId = msg.session_id ?? sessionId
    if (msg.type === "result") console.log(msg.subtype === "success" ? msg.result : `error: ${msg.subtype}`)
  }
} finally {
  if (sessionId) await interceptorHook("clear")({ hook_event_name: "SessionEnd", session_id: sessionId, cwd: process.cwd(), reason: "other" })
}
