// interceptor plugin shim for OpenCode.
//
// OpenCode has no command hooks, so this plugin pipes each tool call's
// tool.execute.before / tool.execute.after arguments to the interceptor binary
// as one JSON object {input, output}, and applies the binary's reply.
//
// Reply protocol (the binary prints nothing when there is nothing to do):
//   before: {"args": {...}}                 the complete new tool arguments
//           {"deny": "reason"}              refuse the call (thrown as an Error)
//   after:  {"content": [...], "structuredContent": {...}, "_meta": {...}}
//           the result fields to replace (only those that changed)
// Each field is applied by mutating `output` IN PLACE: OpenCode keeps its own
// reference to output.args, so a reassigned object never reaches the server.
//
// Configure with environment variables (the binary reads every INTERCEPTOR_*
// flag variable itself) or by editing the constants below:
//   INTERCEPTOR_BIN      path to the binary (default: "interceptor" on PATH)
//   INTERCEPTOR_SERVER   the token server's name in opencode.json (comma-separated for several)
//   INTERCEPTOR_REDACT=1 remove the token from results the model reads
//   INTERCEPTOR_STATE_DIR, INTERCEPTOR_ARG, INTERCEPTOR_SKIP_TOOL, ... as for the CLI
//   INTERCEPTOR_APPROVE=1 hold every tool call for a supervisor (interceptor approve,
//                        docs/approvals.md); INTERCEPTOR_MATCH, INTERCEPTOR_TIMEOUT, ... as for the CLI
//
// Approvals: before inject, `approve` may answer {"deny": "reason"} (this
// plugin then throws an Error with that reason, so OpenCode does not run the
// tool and the model reads why) or {"args": {...}} (new arguments). It fails
// closed: if approve cannot be run or its reply cannot be read, the call is
// refused.
//
// Install: copy to .opencode/plugin/interceptor.ts (project) or
// ~/.config/opencode/plugin/interceptor.ts (user).

const BIN: string = "/usr/local/bin/interceptor"
// Extra arguments for both commands, e.g. ["--server", "wf"].
const ARGS: string[] = ["--server", "wf"]
// Extra arguments for capture only, e.g. ["--redact"].
const CAPTURE_ARGS: string[] = ["--redact"]
// Arguments for approve; non-empty (or INTERCEPTOR_APPROVE=1) turns approvals on,
// e.g. ["--match", "^wf_", "--timeout", "5m"].
const APPROVE_ARGS: string[] = []

function approveOn(): boolean {
  return APPROVE_ARGS.length > 0 || process.env.INTERCEPTOR_APPROVE === "1"
}

// Tools whose names cannot belong to a configured server skip the process
// spawn entirely (OpenCode names MCP tools <server>_<tool>, with characters
// other than letters, digits, '_' and '-' in the server name turned into '_').
function servers(): string[] {
  const fromArgs: string[] = []
  for (let i = 0; i < ARGS.length - 1; i++) if (ARGS[i] === "--server") fromArgs.push(ARGS[i + 1])
  const fromEnv = (process.env.INTERCEPTOR_SERVER ?? "").split(",").map((s) => s.trim()).filter(Boolean)
  return [...fromArgs, ...fromEnv].map((s) => s.replace(/[^A-Za-z0-9_-]/g, "_"))
}

function mayConcern(tool: unknown): boolean {
  const names = servers()
  if (names.length === 0) return true // let the binary decide (and report a missing --server)
  return typeof tool === "string" && names.some((s) => tool.startsWith(s + "_"))
}

type Cmd = "inject" | "capture" | "approve"

async function call(cmd: Cmd, input: any, output: any): Promise<Record<string, unknown> | null> {
  const extra = cmd === "approve" ? APPROVE_ARGS : [...ARGS, ...(cmd === "capture" ? CAPTURE_ARGS : [])]
  const argv = [BIN, cmd, "--client", "opencode", ...extra]
  const proc = Bun.spawn(argv, {
    stdin: new Blob([JSON.stringify({ input, output })]),
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
    reply = await call(cmd, input, output)
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
    reply = await call("approve", input, output)
  } catch (e) {
    throw new Error(`interceptor approve failed, so the call is denied: ${e instanceof Error ? e.message : String(e)}`)
  }
  if (reply && typeof reply.deny === "string") throw new Error(reply.deny)
  if (reply && reply.args !== undefined) output.args = patch(output.args, reply.args)
}

export const Interceptor = async () => ({
  "tool.execute.before": async (input: any, output: any) => {
    if (approveOn()) await approve(input, output)
    return run("inject", input, output)
  },
  "tool.execute.after": async (input: any, output: any) => run("capture", input, output),
})
