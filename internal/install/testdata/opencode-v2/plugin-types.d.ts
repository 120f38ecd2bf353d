// The few lines of OpenCode 2's plugin types the V2 shim relies on, as
// quoted from anomalyco/opencode (research notes of 2026-11-29; no 2.x
// package could be installed to read them from):
//   packages/plugin/src/promise/{plugin,tool,registration}.ts @196e461 / @baf3a65
//   packages/schema/src/tool.ts @0f131b3 (Tool.Result, Tool.Error)
//   packages/core/src/tool/hooks.ts @2bd7bfe (runBefore/runAfter return the
//   same event object; hooks run in registration order, each awaited; a throw
//   in "execute.before" refuses the call)
// stub.mjs mirrors these shapes at run time; node cannot type-check.

interface Registration { dispose(): Promise<void> }
type Hooks<Spec> = <Name extends keyof Spec>(name: Name, callback: (input: Spec[Name]) => Promise<void> | void) => Promise<Registration>

declare namespace Tool {
  type CallID = string
  interface Result { output?: unknown; content?: string | ({ type: "text"; text: string } | { type: "file"; uri: string; mime: string; name?: string })[]; metadata?: unknown }
  interface Error { message: string; error?: unknown; metadata?: unknown }
}

interface ToolHooks {
  "execute.before": { tool: string; readonly sessionID: string; readonly agent: string; readonly messageID: string;
                      readonly id: Tool.CallID; input: unknown }
  "execute.after":  { readonly tool: string; readonly sessionID: string; readonly agent: string; readonly messageID: string; readonly id: Tool.CallID;
                      readonly input: unknown } &
                    ({ readonly status: "completed"; result: Tool.Result } | { readonly status: "error"; error: Tool.Error })
}

interface PluginContext { tool: { hook: Hooks<ToolHooks> } }
interface PluginDefinition { id: string; setup(ctx: PluginContext): Promise<void> | void }
