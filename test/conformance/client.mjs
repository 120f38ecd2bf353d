// The conformance suite's client under test: an MCP SDK client speaking
// stdio to `interceptor-http proxy --url <the scenario's server>`, so the
// client the suite's server sees is the relay. The suite runs it with the
// server's URL as the last argument, the scenario's name in
// MCP_CONFORMANCE_SCENARIO and, for some, what the client was given (a
// pre-registered client's id and secret) in MCP_CONFORMANCE_CONTEXT.
//
// INTERCEPTOR_HTTP_BIN is the relay to test. Each run gets a state dir of
// its own (the relay keeps its OAuth tokens there); $BROWSER is left as
// the caller set it (scripts/conformance: browser.mjs).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const url = process.argv[process.argv.length - 1];
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT || '{}');
const relay = process.env.INTERCEPTOR_HTTP_BIN;
if (!relay) {
  console.error('client.mjs: INTERCEPTOR_HTTP_BIN is not set');
  process.exit(2);
}

const stateDir = mkdtempSync(join(tmpdir(), 'interceptor-conformance-'));
const env = { ...process.env, INTERCEPTOR_STATE_DIR: stateDir };
const args = ['proxy', '--url', url];
if (context.client_id) {
  args.push('--client-id', context.client_id);
}
if (context.client_secret) {
  // The secret goes through the environment, never the arguments.
  env.CONFORMANCE_CLIENT_SECRET = context.client_secret;
  args.push('--client-secret-env', 'CONFORMANCE_CLIENT_SECRET');
}

// Which tool each scenario's server offers to be called.
const calls = {
  tools_call: { name: 'add_numbers', arguments: { a: 5, b: 3 } },
  'sse-retry': { name: 'test_reconnection', arguments: {} },
};
const call = calls[scenario] ?? (scenario.startsWith('auth/') ? { name: 'test-tool', arguments: {} } : null);

const client = new Client({ name: 'interceptor-conformance', version: '1.0.0' }, { capabilities: {} });
const transport = new StdioClientTransport({ command: relay, args, env, stderr: 'inherit' });
let code = 0;
try {
  await client.connect(transport);
  const { tools } = await client.listTools();
  if (call) {
    if (!tools.some((t) => t.name === call.name)) {
      throw new Error(`the server offers no tool ${call.name}`);
    }
    const result = await client.callTool(call);
    if (result.isError) {
      throw new Error(`${call.name} failed: ${JSON.stringify(result.content)}`);
    }
  }
} catch (e) {
  console.error(`client.mjs (${scenario}): ${e.message}`);
  code = 1;
} finally {
  await client.close().catch(() => {});
  rmSync(stateDir, { recursive: true, force: true });
}
process.exit(code);
