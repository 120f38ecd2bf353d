// interceptor plugin shim for Kilo CLI, which is OpenCode underneath: the same plugin
// API and payloads, so it runs interceptor with --client opencode.
//
// OpenCode has no command hooks, so this plugin pipes each tool call's
// tool.execute.before / tool.execute.after arguments to the interceptor binary
// as one JSON object {input, output}, and applies the binary's reply. With
// deliver on (below) it also runs `interceptor deliver` at each user message.
//
// Reply protocol (the binary prints nothing when there is nothing to do):
//   before: {"args": {...}}                 the complete new tool arguments
//           {"deny": "reason"}              refuse the call (thrown as an Error)
//   after:  {"content": [...], "structuredContent": {...}, "_meta": {...}}
//           the result fields to replace (only those that changed)
// Each field is applied by mutating `output` IN PLACE: OpenCode keeps its own
// reference to output.args, so a reassigned object never reaches the server.
//
// Configure with environment variables (the binary reads the INTERCEPTOR_*
// variables of the flags `interceptor --help` lists itself) or by editing the
// constants below:
//   INTERCEPTOR_BIN      path to the binary (default: "interceptor" on PATH)
//   INTERCEPTOR_SERVER   the token server's name in kilo.json (comma-separated for several)
//   INTERCEPTOR_REDACT=1 remove the token from results the model reads
//   INTERCEPTOR_STATE_DIR, INTERCEPTOR_ARG, INTERCEPTOR_SKIP_TOOL, ... as for the CLI
//   INTERCEPTOR_DELIVER  the human tools server's name in kilo.json (comma-separated for
//                        several): deliver a person's answers to parked calls (docs/human-tools.md)
//
// Approvals are on when APPROVE_ARGS (below) is not empty: `interceptor install`
// with --approve fills it. No environment variable turns them on or narrows
// them (approve refuses INTERCEPTOR_MATCH and the like). While APPROVE_ARGS is
// empty, a set INTERCEPTOR_APPROVE (an earlier version of this shim read it)
// refuses every call rather than let it run unasked.
//
// Approvals: before inject, `approve` may answer {"deny": "reason"} (this
// plugin then throws an Error with that reason, so OpenCode does not run the
// tool and the model reads why) or {"args": {...}} (new arguments). It fails
// closed: if approve cannot be run or its reply cannot be read, the call is
// refused.
//
// Human tools (docs/human-tools.md): a parked call's answer reaches the model
// at the start of the next turn. chat.message runs `deliver` with
// {"hook": "chat.message", "input": {...}} when a user message comes in; its
// reply {"parts": [{"type": "text", "text": ..., "synthetic": true}]} is added
// to that message (OpenCode saves it with the message, so it is history after
// this turn, and deliver hands each answer out once). After a tool of a human
// tools server, `deliver` gets {input, output} and ties the parked call to the
// session (the MCP server does not know OpenCode's session).
//
// Install: copy to .kilo/plugin/interceptor.ts (project) or
// ~/.config/kilo/plugin/interceptor.ts (user).

const BIN: string = "/usr/local/bin/interceptor"
// Extra arguments for both commands, e.g. ["--server", "wf"].
const ARGS: string[] = ["--server", "wf"]
// Extra arguments for capture only, e.g. ["--redact"].
const CAPTURE_ARGS: string[] = ["--redact"]
// Arguments for approve; non-empty turns approvals on, e.g.
// ["--match", "^wf_", "--timeout", "5m"] (every tool: ["--timeout", "5m"]).
const APPROVE_ARGS: string[] = []
// Arguments for deliver: the human tools servers, then deliver's options, e.g.
// ["--server", "human", "--state-dir", "/path"]. A --server here (or
// INTERCEPTOR_DELIVER) turns delivery on.
const DELIVER_ARGS: string[] = []

function approveOn(): boolean {
  if (APPROVE_ARGS.length === 0 && (process.env.INTERCEPTOR_APPROVE ?? "") !== "") {
    throw new Error("interceptor: INTERCEPTOR_APPROVE is set but no longer read, so the call is refused: " +
      "turn approvals on in the shim's APPROVE_ARGS (interceptor install with --approve fills it), or unset it")
  }
  return APPROVE_ARGS.length > 0
}

// Tools whose names cannot belong to a configured server skip the process
// spawn entirely (OpenCode names MCP tools <server>_<tool>, with characters
// other than letters, digits, '_' and '-' in the server name turned into '_').
function servers(args: string[], envName: string): string[] {
  const fromArgs: string[] = []
  for (let i = 0; i < args.length - 1; i++) if (args[i] === "--server") fromArgs.push(args[i + 1])
  const fromEnv = (process.env[envName] ?? "").split(",").map((s) => s.trim()).filter(Boolean)
  return [...fromArgs, ...fromEnv].map((s) => s.replace(/[^A-Za-z0-9_-]/g, "_"))
}

function mayConcern(tool: unknown): boolean {
  const names = servers(ARGS, "INTERCEPTOR_SERVER")
  // With no token server, a shim that only delivers skips inject and
  // capture; otherwise the binary decides (and reports the missing --server).
  if (names.length === 0) return deliverServers().length === 0
  return typeof tool === "string" && names.some((s) => tool.startsWith(s + "_"))
}

function deliverServers(): string[] {
  return servers(DELIVER_ARGS, "INTERCEPTOR_DELIVER")
}

type Cmd = "inject" | "capture" | "approve" | "deliver"

// call runs the binary with payload ({input, output} of a tool hook) on
// stdin and returns its reply.
async function call(cmd: Cmd, payload: unknown): Promise<Record<string, unknown> | null> {
  const extra = cmd === "approve" ? APPROVE_ARGS : cmd === "deliver" ? DELIVER_ARGS : [...ARGS, ...(cmd === "capture" ? CAPTURE_ARGS : [])]
  const argv = [BIN, cmd, "--client", "opencode", ...extra]
  const proc = Bun.spawn(argv, {
    stdin: new Blob([JSON.stringify(payload)]),
    stdout: "pipe",
    stderr: "pipe",
  })
  const [out, err] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()])
  await proc.exited
  if (err.trim() !== "") console.error(err.trim())
  if (out.trim() === "") return null
  const reply = JSON.parse(out)
  return reply !== null && typeof reply === "object" && !Array.isArray(reply) ? reply : null
}

// patch makes target deep-equal to source while keeping target's identity
// (and that of nested objects and arrays), and returns what belongs in the
// parent's slot.
function patch(target: any, source: any): any {
  const isObj = (v: any) => v !== null && typeof v === "object" && !Array.isArray(v)
  if (Array.isArray(target) && Array.isArray(source)) {
    target.length = source.length
    for (let i = 0; i < source.length; i++) target[i] = patch(target[i], source[i])
    return target
  }
  if (isObj(target) && isObj(source)) {
    for (const k of Object.keys(target)) if (!(k in source)) delete target[k]
    for (const k of Object.keys(source)) target[k] = patch(target[k], source[k])
    return target
  }
  return source
}

async function run(cmd: "inject" | "capture", input: any, output: any): Promise<void> {
  if (!mayConcern(input?.tool)) return
  let reply: Record<string, unknown> | null = null
  try {
    reply = await call(cmd, { input, output })
  } catch (e) {
    // Never break the tool call: without a reply it runs unchanged.
    console.error(`interceptor: ${cmd}: ${e instanceof Error ? e.message : String(e)}`)
    return
  }
  // inject refuses a call that names a token by a stand-in no held token
  // has: it must not reach the server, and the model reads why.
  if (reply && typeof reply.deny === "string") throw new Error(reply.deny)
  if (reply) for (const k of Object.keys(reply)) output[k] = patch(output[k], reply[k])
}

// approve holds the call until a supervisor decides; a deny (or any failure
// to get an answer) throws, which stops the tool call.
async function approve(input: any, output: any): Promise<void> {
  let reply: Record<string, unknown> | null
  try {
    reply = await call("approve", { input, output })
  } catch (e) {
    throw new Error(`interceptor approve failed, so the call is denied: ${e instanceof Error ? e.message : String(e)}`)
  }
  if (reply && typeof reply.deny === "string") throw new Error(reply.deny)
  if (reply && reply.args !== undefined) output.args = patch(output.args, reply.args)
}

// partID is a new part id in OpenCode's form: "prt_", 12 hex digits of
// (milliseconds * 4096 + a counter), 14 random base-62 characters. The
// counter's highest value sorts it after the parts OpenCode made for the
// message before.
function partID(): string {
  const t = (BigInt(Date.now()) * 4096n + 4095n) & 0xffffffffffffn
  const chars = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
  let rnd = ""
  for (let i = 0; i < 14; i++) rnd += chars[Math.floor(Math.random() * chars.length)]
  return "prt_" + t.toString(16).padStart(12, "0") + rnd
}

// deliverAnswers adds the answers a person gave to the session's parked
// calls to the new user message, as text parts the model reads this turn.
async function deliverAnswers(input: any, output: any): Promise<void> {
  if (deliverServers().length === 0) return
  const message = output?.message
  if (typeof message?.id !== "string" || !Array.isArray(output?.parts)) {
    // Without a message to add them to, the answers stay queued.
    console.error("interceptor: deliver: chat.message without output.message.id and output.parts; answers not delivered")
    return
  }
  let reply: Record<string, unknown> | null
  try {
    // The hook's output holds the whole new message, attachments included:
    // deliver needs only the session.
    reply = await call("deliver", { hook: "chat.message", input })
  } catch (e) {
    console.error(`interceptor: deliver: ${e instanceof Error ? e.message : String(e)}`)
    return
  }
  if (!reply || !Array.isArray(reply.parts)) return
  for (const p of reply.parts) {
    if (p?.type !== "text" || typeof p.text !== "string") continue
    output.parts.push({ ...p, id: partID(), sessionID: message.sessionID ?? input?.sessionID, messageID: message.id })
  }
}

// bindParked runs deliver after a human tools server's tool: a parked
// call's result names its request, which deliver ties to the session.
async function bindParked(input: any, output: any): Promise<void> {
  const names = deliverServers()
  const tool = input?.tool
  if (typeof tool !== "string" || !names.some((s) => tool.startsWith(s + "_"))) return
  try {
    await call("deliver", { input, output })
  } catch (e) {
    console.error(`interceptor: deliver: ${e instanceof Error ? e.message : String(e)}`)
  }
}

export const Interceptor = async () => ({
  "tool.execute.before": async (input: any, output: any) => {
    if (approveOn()) await approve(input, output)
    return run("inject", input, output)
  },
  "tool.execute.after": async (input: any, output: any) => {
    await bindParked(input, output)
    return run("capture", input, output)
  },
  "chat.message": async (input: any, output: any) => deliverAnswers(input, output),
})
