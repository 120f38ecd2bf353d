// children.js: the child agents, one chat live.
import {$, el, add, sleep, clock, toast} from './dom.js';
import {AuthError, stream, authNote, post} from './api.js';
import {CardList, items, pendingWatchers} from './requests.js';
import {presented, diffShow} from './card.js';
import {SETTLE_MS} from './settle.js';

// ---- children --------------------------------------------------------

export function showChildren(v) {
  const sel = $('child-client');
  if (!sel.options.length) {
    for (const c of v.clients || []) sel.append(el('option', {value: c, text: c}));
  }
  const box = $('children-list');
  box.replaceChildren();
  $('count-children').textContent = String(v.children.length);
  $('children-empty').hidden = v.children.length > 0;
  for (const ch of v.children) {
    const chats = el('ul', {class: 'chats'});
    for (const c of ch.chats) {
      // Another machine's chat is listed, not opened: its events stay on
      // its machine (only the summaries cross), so this page has none.
      const name = ch.machine
        ? el('span', {class: 'elsewhere', title: 'its events stay on machine ' + ch.machine + ': open it on that machine\'s page', text: 'chat ' + c.n})
        : el('a', {href: '#chat=' + encodeURIComponent(c.id), text: 'chat ' + c.n});
      chats.append(el('li', {'data-chat': c.id}, name,
        el('span', {class: 'badge ' + c.status, text: c.status.replace('_', ' ')}),
        c.pending ? el('span', {class: 'waiting-n', text: c.pending + ' waiting'}) : null,
        el('span', {class: 'note', text: c.events + ' events'}),
        el('span', {class: 'prompt', title: c.prompt, text: c.prompt})));
    }
    if (ch.older) chats.append(el('li', {class: 'note', text: ch.older + ' older chats not listed'}));
    box.append(el('div', {class: 'child', 'data-child': ch.name, 'data-machine': ch.machine || ''},
      el('h3', {}, ch.name, el('span', {class: 'badge', text: ch.client}), ch.unsupervised ? el('span', {class: 'badge denied', text: 'unsupervised'}) : null,
        ch.machine ? el('span', {class: 'machine'}, 'machine ', el('b', {text: ch.machine}), ch.unreachable ? ' (unreachable: its relay is silent)' : '') : null),
      el('div', {class: 'dir', text: ch.working_dir + (ch.model ? ' · ' + ch.model : '')}),
      ch.chats.length ? chats : el('p', {class: 'note', text: 'no chats yet'})));
  }
}

// ---- one chat, live --------------------------------------------------

let chatAbort = null; // ends the open chat's stream
let chatCards = null; // the open chat's inline requests
pendingWatchers.push((all) => { if (chatCards) chatCards.update(all); });
export function closeChat() {
  if (chatAbort) { chatAbort.abort(); chatAbort = null; }
  chatCards = null;
}

function eventItem(e) {
  const li = el('li', {class: 'ev ev-' + e.type + (e.is_error ? ' err' : ''), 'data-seq': String(e.seq)},
    el('span', {class: 'when', text: '#' + e.seq + ' ' + clock(e.time)}));
  const cut = e.cut ? el('p', {class: 'note', text: '[cut: ' + e.text.length + ' of ' + e.cut + ' characters shown]'}) : null;
  switch (e.type) {
    case 'start':
      add(li, el('span', {class: 'etype', text: 'start'}), ' ', el('span', {class: 'note', text: (e.session ? 'session ' + e.session : '') + (e.model ? ' · ' + e.model : '')}),
        el('pre', {text: e.text}), cut);
      break;
    case 'content':
      add(li, el('span', {class: 'etype', text: 'assistant'}), el('pre', {text: e.text}), cut);
      break;
    case 'tool_use':
      add(li, el('span', {class: 'etype', text: 'tool call'}), ' ', el('code', {text: e.name}), toolBody(e));
      break;
    case 'tool_result':
      add(li, el('span', {class: 'etype', text: e.is_error ? 'tool error' : 'tool result'}), el('pre', {text: e.text}), cut);
      break;
    case 'complete':
      add(li, el('span', {class: 'etype', text: 'end'}), ' ', el('span', {class: 'badge ' + e.status, text: e.status}),
        e.error ? el('pre', {class: 'error', text: e.error}) : null, e.text ? el('pre', {text: e.text}) : null, cut);
      break;
    default:
      add(li, el('span', {class: 'etype', text: e.type}), el('pre', {text: e.text}));
  }
  return li;
}

// toolBody is a tool call as a card shows it (an edit as a diff, a write
// as its path and content, a command as its text), else its input.
function toolBody(e) {
  const c = e.card;
  if (!c) return el('pre', {text: e.input});
  const pre = el('pre', {class: 'input ' + c.kind});
  if (c.kind === 'edit') diffShow(pre, presented(c)); else pre.textContent = presented(c);
  return [c.description ? el('p', {class: 'desc', text: c.description}) : null,
    c.kind === 'write' ? el('p', {class: 'path'}, 'write ', el('code', {text: c.path})) : null, pre];
}

function chatHead(c) {
  return el('div', {class: 'child'},
    el('h3', {}, c.child, el('span', {class: 'note', text: 'chat ' + c.n}), el('span', {class: 'badge', text: c.client}),
      el('span', {class: 'badge ' + c.status, id: 'chat-status', text: c.status.replace('_', ' ')})),
    el('div', {class: 'dir', text: c.prompt}));
}

// chatList is made on first use: CardList is requests.js's, which imports
// this module (a class is not there before its module has run).
let chatList = null;

// openChat streams a chat's events into its view from the first, and
// again from where it stopped when the stream ends before the chat.
export function openChat(id) {
  closeChat();
  openID = id;
  $('chat-cancel').hidden = true;
  $('chat-continue').hidden = true;
  $('chat-error').textContent = '';
  $('chat-head').replaceChildren(el('p', {class: 'note', text: 'loading ' + id + '…'}));
  $('chat-events').replaceChildren();
  chatList = chatList || new CardList($('chat-pending'), () => false);
  chatCards = chatList.reset((it) => it.chat === id);
  chatCards.update(items);
  const list = $('chat-events');
  const ac = new AbortController();
  chatAbort = ac;
  let from = 0;
  let over = false;
  const on = (event, data) => {
    const v = JSON.parse(data);
    if (event === 'end') {
      over = true;
    } else if (event === 'failure') {
      over = true;
      $('chat-head').replaceChildren(el('p', {class: 'error', text: v.error}));
    } else if (event === 'events') {
      from = v.next;
      $('chat-head').replaceChildren(chatHead(v.chat));
      showChatActions(v.chat);
      const stick = list.getBoundingClientRect().bottom <= window.innerHeight + 40;
      for (const e of v.events) {
        if (!list.querySelector('[data-seq="' + e.seq + '"]')) list.append(eventItem(e));
      }
      if (stick && v.events.length) window.scrollTo(0, document.body.scrollHeight);
    }
  };
  (async () => {
    while (!over && !ac.signal.aborted) {
      try {
        await stream('/api/chat/stream?id=' + encodeURIComponent(id) + '&from=' + from, on, ac.signal);
      } catch (e) {
        if (ac.signal.aborted) return;
        if (e instanceof AuthError) authNote(e.message);
      }
      if (!over) await sleep(1000);
    }
  })();
}

// ---- start, continue, cancel -------------------------------------------
//
// The server checks everything (a name, a client children supports, an
// absolute directory that exists, a prompt); the page says what it
// answered. Cancel asks twice: the second click, at least SETTLE_MS and at
// most 10 s after the first, never a double click's, ends the chat.

let openID = ''; // the chat in view
function showChatActions(c) {
  const running = c.status === 'running' || c.status === 'awaiting_permission';
  $('chat-cancel').hidden = !running;
  $('chat-continue').hidden = running;
}

$('child-start').addEventListener('submit', async (ev) => {
  ev.preventDefault();
  const go = $('child-go');
  $('child-error').textContent = '';
  go.disabled = true;
  try {
    const r = await post('/api/children/start', {name: $('child-name').value.trim(), client: $('child-client').value,
      dir: $('child-dir').value.trim(), prompt: $('child-prompt').value});
    $('child-prompt').value = '';
    $('child-new').open = false;
    location.hash = '#chat=' + encodeURIComponent(r.chat);
  } catch (e) {
    $('child-error').textContent = e.message;
  } finally {
    go.disabled = false;
  }
});

$('chat-continue').addEventListener('submit', async (ev) => {
  ev.preventDefault();
  const send = $('chat-send');
  $('chat-error').textContent = '';
  send.disabled = true;
  try {
    const r = await post('/api/chat/continue', {chat: openID, prompt: $('chat-prompt').value});
    $('chat-prompt').value = '';
    location.hash = '#chat=' + encodeURIComponent(r.chat);
  } catch (e) {
    $('chat-error').textContent = e.message;
  } finally {
    send.disabled = false;
  }
});

let cancelAsked = 0;
$('chat-cancel').addEventListener('click', async (ev) => {
  const b = $('chat-cancel');
  if (ev.detail > 1) return;
  const t = performance.now();
  if (!cancelAsked || t - cancelAsked > 10000) {
    cancelAsked = t;
    b.textContent = 'Click again to end this chat';
    return;
  }
  if (t - cancelAsked < SETTLE_MS) return;
  cancelAsked = 0;
  b.disabled = true;
  b.textContent = 'cancelling…';
  try {
    const r = await post('/api/chat/cancel', {chat: openID});
    toast('chat ' + r.chat + ': ' + r.status);
  } catch (e) {
    $('chat-error').textContent = e.message;
  } finally {
    b.disabled = false;
    b.textContent = 'Cancel this chat';
  }
});
