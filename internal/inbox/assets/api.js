// api.js: the inbox's key, the session proved with it, and the API calls
// and streams made with that session. The session stays in this module.
import {$} from './dom.js';

// ---- the key and the session (auth.go says why) -------------------------
//
// The printed URL carries the inbox's key in its fragment, which the
// browser sends to no server. It is kept in this tab's sessionStorage (this
// origin's only: another port is another origin) and taken out of the
// address bar. The key itself is never sent: the server proves it knows the
// key first, then this page proves it, for a session token kept in memory
// and sent in a header on every API call.

const KEY_ITEM = 'interceptor-inbox-key';
let session = null; // {token, renew}: the session in use
let pendingHandshake = null;

// takeKey keeps the key the address carries (the printed URL, opened or
// pasted into this tab: a new key after --new-key is pasted into a page
// already open) and takes it out of the address bar.
export function takeKey() {
  const m = /^#key=([0-9a-f]{64})$/.exec(location.hash);
  if (!m) return false;
  sessionStorage.setItem(KEY_ITEM, m[1]);
  history.replaceState(null, '', location.pathname + location.search);
  session = null;
  return true;
}
takeKey();

// AuthError is a handshake that must not be retried as it is: no key,
// or a server that does not know it.
export class AuthError extends Error {}

const hex = (buf) => Array.from(new Uint8Array(buf), (b) => b.toString(16).padStart(2, '0')).join('');
const unhex = (s) => new Uint8Array(s.match(/../g).map((h) => parseInt(h, 16)));

// body reads a response as JSON, or throws its error.
async function body(r) {
  const text = await r.text();
  let j;
  try { j = JSON.parse(text); } catch (e) { j = {error: text.trim()}; }
  if (!r.ok) throw new Error(j.error || (r.status + ' ' + r.statusText));
  return j;
}
const send = (path, v, headers) => fetch(path, {method: 'POST', credentials: 'omit',
  headers: Object.assign({'Content-Type': 'application/json'}, headers), body: JSON.stringify(v)});

async function handshake() {
  const k = sessionStorage.getItem(KEY_ITEM);
  if (!k) throw new AuthError('This tab has no key: open the URL interceptor inbox printed (it ends with #key=…).');
  const key = await crypto.subtle.importKey('raw', unhex(k), {name: 'HMAC', hash: 'SHA-256'}, false, ['sign', 'verify']);
  const cn = hex(crypto.getRandomValues(new Uint8Array(32)));
  const h = await body(await send('/api/hello', {client_nonce: cn}));
  const msg = (role) => new TextEncoder().encode('interceptor inbox v1 ' + role + '\n' + location.origin + '\n' + cn + '\n' + h.server_nonce);
  if (!/^[0-9a-f]{64}$/.test(h.proof || '') || !/^[0-9a-f]{64}$/.test(h.server_nonce || '') ||
      !await crypto.subtle.verify('HMAC', key, unhex(h.proof), msg('server'))) {
    throw new AuthError('The server at ' + location.host + ' does not know this tab\'s key: it is not your inbox, or the inbox was given a new key (open the URL it printed). Nothing was sent to it.');
  }
  const proof = hex(await crypto.subtle.sign('HMAC', key, msg('client')));
  const s = await body(await send('/api/session', {server_nonce: h.server_nonce, proof}));
  session = {token: s.session, renew: Date.now() + s.expires_in / 2};
  return session.token;
}
function token() {
  if (session && Date.now() < session.renew) return Promise.resolve(session.token);
  if (!pendingHandshake) pendingHandshake = handshake().finally(() => { pendingHandshake = null; });
  return pendingHandshake;
}

// call is fetch with the session header; a refused session (the inbox
// restarted) is made again, once.
async function call(path, init) {
  for (let i = 0; ; i++) {
    const t = await token();
    const headers = Object.assign({}, init && init.headers, {'X-Inbox-Session': t});
    const r = await fetch(path, Object.assign({credentials: 'omit'}, init, {headers}));
    if (r.status !== 401 || i > 0) return r;
    session = null;
  }
}
export const post = async (path, v) => body(await call(path, {method: 'POST', headers: {'Content-Type': 'application/json'}, body: JSON.stringify(v)}));
export const get = async (path) => body(await call(path));

// stream reads the server-sent events of path, on(event, data) for each,
// until the server ends it or signal aborts; opened is called once the
// server has answered. When a stream ends, the session is dropped: the
// inbox may have stopped and another user taken its port, so whoever
// answers next proves the key before this page sends it anything.
export async function stream(path, on, signal, opened) {
  try {
    const r = await call(path, {signal, headers: {Accept: 'text/event-stream'}});
    if (!r.ok) await body(r);
    if (opened) opened();
    const reader = r.body.pipeThrough(new TextDecoderStream()).getReader();
    let buf = '';
    for (;;) {
      const {value, done} = await reader.read();
      if (done) return;
      buf += value;
      for (let i; (i = buf.indexOf('\n\n')) >= 0;) {
        const block = buf.slice(0, i);
        buf = buf.slice(i + 2);
        let event = 'message';
        const data = [];
        for (const line of block.split('\n')) {
          if (line.startsWith('event: ')) event = line.slice(7);
          else if (line.startsWith('data: ')) data.push(line.slice(6));
        }
        if (data.length) on(event, data.join('\n'));
      }
    }
  } finally {
    session = null;
  }
}

export function authNote(msg) {
  $('auth-note').textContent = msg || '';
  $('auth-note').hidden = !msg;
}
