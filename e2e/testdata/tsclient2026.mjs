// The TypeScript SDK's v2 client (@modelcontextprotocol/client), pinned to
// MCP 2026-07-28, runs the token workflow through an interceptor proxy as a
// model would: it never passes a token. Usage: node tsclient2026.mjs
// PROXY_BIN PROXY_ARGS... ; prints one JSON object: the revision
// negotiated, the tools listed, each call's result.
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";

const [command, ...args] = process.argv.slice(2);
const transport = new StdioClientTransport({ command, args, stderr: "inherit" });
const client = new Client(
  { name: "ts-client-2026", version: "1.0.0" },
  { versionNegotiation: { mode: { pin: "2026-07-28" } } },
);
await client.connect(transport);
const out = { version: client.getNegotiatedProtocolVersion(), results: [] };
out.tools = (await client.listTools()).tools;
out.results.push(await client.callTool({ name: "start_session", arguments: {} }));
for (const step of ["plan", "review", "ship"]) {
  out.results.push(await client.callTool({ name: "next_step", arguments: { step } }));
}
await client.close();
console.log(JSON.stringify(out));
