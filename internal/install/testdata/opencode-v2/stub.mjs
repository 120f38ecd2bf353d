// Runs the V2 shim (types stripped, as shim.mjs) the way OpenCode 2's
// runtime does (plugin-types.d.ts): the default export's setup(ctx), hooks
// registered through ctx.tool.hook, each event object passed to every hook
// of its name in order and the same object used afterwards. Prints, as one
// JSON line per step, what the tool would be called with and what the model
// would read.
import plugin from "./shim.mjs"

const hooks = { "execute.before": [], "execute.after": [] }
const ctx = {
  tool: {
    hook: async (name, cb) => {
      if (!(name in hooks)) throw new Error("unknown tool hook " + name)
      hooks[name].push(cb)
      return { dispose: async () => {} }
    },
  },
}
if (typeof plugin !== "object" || typeof plugin.id !== "string" || typeof plugin.setup !== "function") {
  throw new Error("Plugin must export a default definition with an id and an effect or setup function.")
}
await plugin.setup(ctx)

async function run(name, ev) {
  for (const cb of hooks[name]) await cb(ev)
  return ev
}

const base = { sessionID: "ses_v2", agent: "build", messageID: "msg_1" }
const steps = JSON.parse(process.argv[2])
for (const s of steps) {
  try {
    if (s.before) {
      const ev = await run("execute.before", { ...base, tool: s.tool, id: s.id, input: s.input })
      console.log(JSON.stringify({ called: ev.input }))
    } else {
      const ev = s.error
        ? { ...base, tool: s.tool, id: s.id, input: s.input, status: "error", error: { message: s.error } }
        : { ...base, tool: s.tool, id: s.id, input: s.input, status: "completed", result: s.result }
      await run("execute.after", ev)
      console.log(JSON.stringify({ read: ev.result ?? null }))
    }
  } catch (e) {
    console.log(JSON.stringify({ refused: e.message }))
  }
}
