// interceptor inbox: fetch and a streamed response read as server-sent
// events, no framework, no build. This is the entry module (index.html
// loads it; the rest are its imports, same origin: the CSP's script-src
// 'self'): the views the address names, and the live stream of what waits.
//
// Every string from the server is already masked (stand-ins for held
// tokens) and made visible (control and bidi characters as escapes); these
// scripts only ever put strings into textContent, attribute values and form
// values, never into markup.
import {$, sleep} from './dom.js';
import {takeKey, AuthError, stream, authNote} from './api.js';
import {tick} from './card.js';
import {watchSettle} from './settle.js';
import {showNewest} from './keys.js';
import {showPending} from './requests.js';
import {showChildren, closeChat, openChat} from './children.js';
import {loadHistory, loadRules} from './history.js';

// ---- navigation and the live stream -----------------------------------

function route() {
  const h = location.hash;
  const chat = h.startsWith('#chat=') ? decodeURIComponent(h.slice(6)) : '';
  const view = chat ? 'chat' : h === '#history' ? 'history' : h === '#rules' ? 'rules' : 'children';
  for (const v of ['children', 'chat', 'history', 'rules']) $('view-' + v).hidden = v !== view;
  $('tab-children').classList.toggle('on', view === 'children' || view === 'chat');
  $('tab-history').classList.toggle('on', view === 'history');
  $('tab-rules').classList.toggle('on', view === 'rules');
  if (view === 'rules') loadRules();
  if (chat) openChat(chat); else closeChat();
  if (view === 'history') loadHistory(false);
}

// connect keeps the live stream of what waits open: again at once when
// it ends (its session did), after a pause that grows when it fails.
let wake = () => {}; // cuts connect's pause short (a new key)
async function connect() {
  const live = $('live');
  const state = (text, on) => { live.textContent = text; live.className = 'live ' + (on ? 'on' : 'off'); };
  for (let pause = 500; ;) {
    let opened = false;
    try {
      await stream('/api/stream', (event, data) => {
        const v = JSON.parse(data);
        if (event === 'pending') showPending(v);
        else if (event === 'children') showChildren(v);
        else if (event === 'failure') state(v.error, false);
      }, null, () => { opened = true; authNote(''); state('live', true); });
    } catch (e) {
      if (e instanceof AuthError) authNote(e.message);
    }
    state('reconnecting…', false);
    pause = opened ? 100 : Math.min(Math.max(pause * 2, 500), 10000);
    await Promise.race([sleep(pause), new Promise((ok) => { wake = ok; })]);
  }
}

$('new-bar').addEventListener('click', showNewest);
$('history-search').addEventListener('submit', (ev) => { ev.preventDefault(); loadHistory(false); });
$('history-more').addEventListener('click', () => loadHistory(true));
window.addEventListener('hashchange', () => {
  if (takeKey()) {
    authNote('');
    wake();
  }
  route();
});
setInterval(tick, 1000);
route();
connect();
loadRules();
requestAnimationFrame(watchSettle);
