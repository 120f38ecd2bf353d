#!/usr/bin/env node
// The Node.js baseline of `interceptor inject` for Claude Code: the same work
// on the same input, done the way a small Node hook would do it.
//
//   node inject.js --server wf --state-dir DIR < PreToolUse.json
//
// Reads one PreToolUse event on stdin, finds the server (mcp_server.name, then
// the mcp__<server>__<tool> name), skips start_session and calls that already
// carry a token, reads the session's token file from the same state dir
// layout interceptor uses (tokens/<server>/s-<sha256(session)[:40]>.json),
// sets the argument and prints Claude Code's reply. It does less than
// interceptor (no ownership or mode checks on the state dir), never more, so
// the comparison favours Node. Built-in modules only.
'use strict';

const fs = require('fs');
const path = require('path');
const crypto = require('crypto');

const PLACEHOLDER = '[session_token held by interceptor]';
const ARG = 'session_token';
const KEEP_IF = ['session_token', 'checkpoint_handle'];
const SKIP_TOOLS = ['start_session'];

function sanitize(s) {
  let out = '';
  for (const c of s) out += /[A-Za-z0-9_-]/.test(c) ? c : '_';
  return out;
}

function main() {
  const servers = [];
  let stateDir = process.env.INTERCEPTOR_STATE_DIR || '';
  const argv = process.argv.slice(2);
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--server') servers.push(argv[++i]);
    else if (argv[i] === '--state-dir') stateDir = argv[++i];
  }
  const ev = JSON.parse(fs.readFileSync(0, 'utf8'));
  if (ev === null || typeof ev !== 'object' || ev.hook_event_name !== 'PreToolUse') return;

  const toolName = typeof ev.tool_name === 'string' ? ev.tool_name : '';
  let server = '';
  let tool = '';
  for (const s of servers) {
    if (ev.mcp_server && typeof ev.mcp_server.name === 'string' && ev.mcp_server.name !== s) continue;
    const prefix = 'mcp__' + sanitize(s) + '__';
    if (toolName.startsWith(prefix) && toolName.length > prefix.length) {
      server = s;
      tool = toolName.slice(prefix.length);
      break;
    }
  }
  if (!server || SKIP_TOOLS.includes(tool)) return;

  const args = ev.tool_input && typeof ev.tool_input === 'object' ? ev.tool_input : {};
  for (const k of KEEP_IF.concat([ARG])) {
    const v = args[k];
    if (v === undefined || v === null) continue;
    if (typeof v === 'string' && (v.trim() === '' || v === PLACEHOLDER)) continue;
    return;
  }

  const session = typeof ev.session_id === 'string' ? ev.session_id : '';
  const name = session === ''
    ? 'current.json'
    : 's-' + crypto.createHash('sha256').update(session).digest('hex').slice(0, 40) + '.json';
  let rec;
  try {
    rec = JSON.parse(fs.readFileSync(path.join(stateDir, 'tokens', server, name), 'utf8'));
  } catch (e) {
    if (e.code === 'ENOENT') return;
    throw e;
  }
  // The record holds each handle's values and the one injected.
  const held = rec && rec.handles && rec.handles[ARG];
  if (!held || typeof held.default !== 'string' || held.default === '') return;

  args[ARG] = held.default;
  process.stdout.write(JSON.stringify({
    hookSpecificOutput: { hookEventName: ev.hook_event_name, updatedInput: args },
  }) + '\n');
}

try {
  main();
} catch (e) {
  process.stderr.write('inject.js: ' + String(e && e.message || e).split('\n')[0] + '\n');
}
