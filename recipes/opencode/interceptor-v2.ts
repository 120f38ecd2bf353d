// interceptor plugin shim for OpenCode 2.x.
//
// API: v2. Written from OpenCode 2's sources (anomalyco/opencode
// packages/plugin/src/promise: Plugin.define({id, setup}), ctx.tool.hook
// "execute.before" | "execute.after"), NOT run against a real OpenCode 2:
// no 2.x package could be installed where it was written. OpenCode 1.x loads
// interceptor.ts (the V1 shim) instead; `interceptor install opencode`
// writes the one that fits `opencode --version`.
//
// Each tool call's event is sent to the interceptor binary in the V1 shim's
// shape, {input: {tool, sessionID, callID, args}, output: {...}}, and the
// reply applied to the event:
//   before: {"args": {...}}    the complete new tool arguments (event.input)
//           {"deny": "reason"} refuse the call (thrown: the model reads it)
//   after:  {"content": [...], "structuredContent": {...}}
//           the result the model reads, tokens replaced (--redact)
// OpenCode 2 drops an MCP result's _meta: only text and structured output
// reach a plugin. A failed call (status "error") is sent with no content, so
// a start tool that fails retires the token held before.
//
// Code Mode: OpenCode 2 exposes MCP tools through one "execute" tool by
// default (codemode true per server), and this plugin then sees "execute",
// never the server's tools. Set "codemode": false on the token server in
// opencode.json (mcp.servers.<name>) for the hooks to see its calls.
//
// Human tools delivery (chat.message in the V1 shim) has no V2 hook here:
// with DELIVER_ARGS set this shim says so once and delivers nothing.
//
// Configure as the V1 shim: INTERCEPTOR_BIN, INTERCEPTOR_SERVER,
// INTERCEPTOR_REDACT=1, INTERCEPTOR_STATE_DIR, ... or the constants below.
//
// Install: `interceptor install opencode` (it writes this file where
// opencode.json's "plugins" can name it).

import { spawn } from "node:child_process"

const BIN: string = process.env.INTERCEPTOR_BIN ?? "interceptor"
// Extra arguments for both commands, e.g. ["--server", "wf"].
const ARGS: string[] = []
// Extra arguments for capture only, e.g. ["--redact"].
const CAPTURE_ARGS: string[] = []
// Arguments for approve; non-empty turns approvals on.
const APPROVE_ARGS: string[] = []
// Arguments for deliver (not supported by this shim: see above).
const DELIVER_ARGS: string[] = []

function servers(args: string[], envName: string): string[] {
  const fromArgs: string[] = []
  for (let i = 0; i < args.length - 1; i++) if (args[i] === "--server") fromArgs.push(args[i + 1])
  const fromEnv = (process.env[envName] ?? "").split(",").map((s) => s.trim()).filter(Boolean)
  return [...fromArgs, ...fromEnv].map((s) => s.replace(/[^A-Za-z0-9_-]/g, "_"))
}

// mayConcern: a tool that cannot be a configured server's skips the spawn.
// OpenCode 2's exact MCP tool name is not pinned ("<server>_<tool>" in one
// version), so only that prefix is checked here; the binary checks again.
function mayConcern(tool: unknown): boolean {
  const names = servers(ARGS, "INTERCEPTOR_SERVER")
  if (names.length === 0) return true // the binary reports the missing --server
  return typeof tool === "string" && names.some((s) => tool.startsWith(s + "_"))
}

// call runs the binary with payload on stdin and returns its reply.
function call(cmd: string, payload: unknown): Promise<any> {
  const extra = cmd === "approve" ? APPROVE_ARGS : [...ARGS, ...(cmd === "capture" ? CAPTURE_ARGS : [])]
  return new Promise((resolve, reject) => {
    const proc = spawn(BIN, [cmd, "--client", "opencode", ...extra], { stdio: ["pipe", "pipe", "pipe"] })
    let out = ""
    let err = ""
    proc.stdout.on("data", (d: any) => (out += d))
    proc.stderr.on("data", (d: any) => (err += d))
    proc.on("error", reject)
    proc.on("close", () => {
      if (err.trim() !== "") console.error(err.trim())
      if (out.trim() === "") return resolve(null)
      try {
        const reply = JSON.parse(out)
        resolve(reply !== null && typeof reply === "object" && !Array.isArray(reply) ? reply : null)
      } catch (e) {
        reject(e)
      }
    })
    proc.stdin.end(JSON.stringify(payload))
  })
}

function input(ev: any): any {
  return { tool: ev.tool, sessionID: ev.sessionID, callID: ev.id, args: ev.input }
}

// blocks is a V2 Tool.Result as MCP content blocks: its content (a string,
// or text and file parts), else its output when that is a string.
function blocks(result: any): any[] {
  const c = result?.content
  if (typeof c === "string") return [{ type: "text", text: c }]
  if (Array.isArray(c)) return c.filter((p: any) => p?.type === "text").map((p: any) => ({ type: "text", text: p.text }))
  if (typeof result?.output === "string") return [{ type: "text", text: result.output }]
  return []
}

function afterOutput(ev: any): any {
  if (ev.status !== "completed") return { content: [], isError: true }
  const out: any = { content: blocks(ev.result) }
  const o = ev.result?.output
  if (o !== null && typeof o === "object" && !Array.isArray(o)) out.structuredContent = o
  return out
}

// applyResult writes a capture reply back into the V2 result.
function applyResult(result: any, reply: any): void {
  if (Array.isArray(reply.content)) {
    const texts = reply.content.filter((b: any) => b?.type === "text").map((b: any) => String(b.text))
    if (typeof result.content === "string") result.content = texts.join("\n")
    else if (Array.isArray(result.content)) {
      let i = 0
      for (const p of result.content) if (p?.type === "text" && i < texts.length) p.text = texts[i++]
    }
    if (typeof result.output === "string") result.output = texts.join("\n")
  }
  if (reply.structuredContent !== undefined && result.output !== null && typeof result.output === "object") {
    result.output = reply.structuredContent
  }
}

async function before(ev: any): Promise<void> {
  if (APPROVE_ARGS.length > 0) {
    let reply: any = null
    try {
      reply = await call("approve", { input: input(ev), output: { args: ev.input } })
    } catch (e) {
      throw new Error(`interceptor approve failed, so the call is denied: ${e instanceof Error ? e.message : String(e)}`)
    }
    if (reply && typeof reply.deny === "string") throw new Error(reply.deny)
    if (reply && reply.args !== undefined) ev.input = reply.args
  }
  if (!mayConcern(ev.tool)) return
  let reply: any = null
  try {
    reply = await call("inject", { input: input(ev), output: { args: ev.input } })
  } catch (e) {
    console.error(`interceptor: inject: ${e instanceof Error ? e.message : String(e)}`)
    return
  }
  if (reply && typeof reply.deny === "string") throw new Error(reply.deny)
  if (reply && reply.args !== undefined) ev.input = reply.args
}

async function after(ev: any): Promise<void> {
  if (!mayConcern(ev.tool)) return
  let reply: any = null
  try {
    reply = await call("capture", { input: input(ev), output: afterOutput(ev) })
  } catch (e) {
    console.error(`interceptor: capture: ${e instanceof Error ? e.message : String(e)}`)
    return
  }
  if (reply && ev.status === "completed" && ev.result) applyResult(ev.result, reply)
}

export default {
  id: "interceptor",
  setup: async (ctx: any) => {
    if (DELIVER_ARGS.length > 0) console.error("interceptor: this OpenCode 2 shim does not deliver human tools' answers (DELIVER_ARGS is ignored)")
    await ctx.tool.hook("execute.before", before)
    await ctx.tool.hook("execute.after", after)
  },
}
