// triage.js: what waits, sorted out by a person: a filter, compact rows,
// groups (by agent, child or project) that count, collapse and are
// decided whole, and the one confirmation every group decision goes
// through.
import {$, el, toast} from './dom.js';
import {post} from './api.js';
import {SETTLE_MS} from './settle.js';

// waiting is the list of what waits (requests.js hands it over: the list
// is made there, and triage lays its cards out).
let waiting = null;
export function triageList(list) {
  waiting = list;
}

// The filter keeps the cards that hold every word (in what the card
// shows). "Allow shown…" / "Deny shown…", and a group's own buttons, list
// the requests they would decide in a box that says so; its button acts
// once the box has been on screen for SETTLE_MS, never on a double click,
// and decides exactly the requests listed (those decided elsewhere
// meanwhile are reported, not replaced by others).

// shownText is the text a card holds for the filter: every text but that
// of hidden elements, of form fields and of a closed details' body, read
// from the DOM. Not innerText: that needs the card laid out (a far card
// is not, app.css, and its innerText is empty), and it leaves out what
// compact rows hide at that moment; the text is kept, so a word of an
// input first filtered in compact rows was never found again.
function shownText(c) {
  const skip = (n) => n.hidden || n.matches('textarea, input, select, script, style, template') ||
    (n.parentElement && n.parentElement.tagName === 'DETAILS' && !n.parentElement.open && n.tagName !== 'SUMMARY');
  const walk = document.createTreeWalker(c, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT, {
    acceptNode: (n) => (n.nodeType === Node.ELEMENT_NODE && skip(n) ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT),
  });
  const parts = [];
  for (let n = walk.nextNode(); n; n = walk.nextNode()) {
    if (n.nodeType === Node.TEXT_NODE) parts.push(n.data);
  }
  return parts.join('\n');
}

export function applyFilter() {
  const words = $('filter').value.toLowerCase().split(/\s+/).filter(Boolean);
  for (const c of waiting.cards.values()) {
    const hay = c.hay || (c.hay = shownText(c).toLowerCase());
    c.hidden = !words.every((w) => hay.includes(w));
  }
  showGroups();
}
$('filter').addEventListener('input', applyFilter);
$('compact').addEventListener('change', () => $('waiting-list').classList.toggle('compact', $('compact').checked));

// ---- groups ------------------------------------------------------------------
//
// With a grouping chosen, each card goes into its group's box, in the
// order the groups first had a request; a group's head says what it is,
// how many of its requests are shown, and has its own allow and deny
// (through the confirmation). A collapsed group stays collapsed while the
// page is open, as new requests come into it.

const collapsed = new Set();
const short = (s) => s.length > 14 ? s.slice(0, 12) + '…' : s;

// groupOf is the group a request goes into: [key, name as shown].
function groupOf(it, by) {
  const on = it.machine ? ' on machine ' + it.machine : '';
  const m = (it.machine || '') + '\n';
  switch (by) {
    case 'agent':
      return [m + (it.client || '') + '\n' + (it.session || ''),
        'agent ' + (it.client || '?') + (it.session ? ' · session ' + short(it.session) : '') + on];
    case 'child':
      return it.child ? [m + it.child, 'child ' + it.child + on] : [m, 'not a child' + on];
    default: {
      const p = it.project || it.cwd || '';
      return [m + p, (p ? 'project ' + p : 'no project') + on];
    }
  }
}

function groupBox(key, name) {
  for (const g of $('waiting-list').children) {
    if (g.matches('section.group') && g.groupKey === key) return g;
  }
  const body = el('div', {class: 'group-body cards', hidden: collapsed.has(key)});
  const toggle = el('button', {type: 'button', class: 'group-toggle', 'aria-label': 'collapse or expand ' + name});
  const g = el('section', {class: 'group', 'aria-label': name},
    el('div', {class: 'group-head'}, toggle,
      el('span', {class: 'group-name', text: name}),
      el('span', {class: 'count group-count'}),
      el('button', {type: 'button', class: 'allow group-allow-one', text: 'Allow group…',
        onclick: () => confirmGroup(true, groupCards(g), name)}),
      el('button', {type: 'button', class: 'deny group-deny-one', text: 'Deny group…',
        onclick: () => confirmGroup(false, groupCards(g), name)})),
    body);
  g.groupKey = key;
  g.body = body;
  toggle.addEventListener('click', () => collapse(g, !body.hidden));
  collapse(g, body.hidden);
  $('waiting-list').append(g);
  return g;
}

function collapse(g, shut) {
  g.body.hidden = shut;
  if (shut) collapsed.add(g.groupKey); else collapsed.delete(g.groupKey);
  const t = g.querySelector('.group-toggle');
  t.textContent = shut ? '▸' : '▾';
  t.setAttribute('aria-expanded', String(!shut));
}

// reveal opens the collapsed group a card is in (n, for a new request).
export function reveal(c) {
  const g = c.closest('section.group');
  if (g && g.body.hidden) collapse(g, false);
}

// groupCards are a group's approvals the filter shows.
const groupCards = (g) => [...g.body.querySelectorAll('article.card')].filter((c) => !c.hidden && c.dataset.kind === 'approval');

// place puts a new card of the waiting list where it goes: last in its
// group, or last in the list.
export function place(c) {
  const by = $('group-by').value;
  if (!by) {
    $('waiting-list').append(c);
    return;
  }
  const [key, name] = groupOf(c.item, by);
  groupBox(key, name).body.append(c);
}

// regroup lays every card out again for the grouping chosen; the slots
// of cards gone are dropped (everything moves anyway).
function regroup() {
  const list = $('waiting-list');
  for (const s of list.querySelectorAll('.slot')) s.remove();
  const cards = [...waiting.cards.values()];
  list.replaceChildren();
  for (const c of cards) place(c);
  showGroups();
}
$('group-by').addEventListener('change', regroup);

// showGroups counts each group's shown requests ("2 of 5" when the filter
// hides some), hides a group the filter empties and drops one that is
// empty.
export function showGroups() {
  for (const g of $('waiting-list').querySelectorAll('section.group')) {
    const all = g.body.querySelectorAll('article.card');
    const shown = [...all].filter((c) => !c.hidden).length;
    if (!all.length && !g.body.querySelector('.slot')) {
      g.remove();
      continue;
    }
    g.querySelector('.group-count').textContent = shown === all.length ? String(shown) : shown + ' of ' + all.length;
    g.hidden = all.length > 0 && !shown;
  }
}

// ---- the confirmation ----------------------------------------------------

// shownConfirm counts the confirmations shown: a decision that ends after
// another confirmation was opened must not hide that one.
let shownConfirm = 0;

function confirmGroup(allow, shown, what) {
  if (!shown.length) { toast('No request is shown.'); return; }
  const mine = ++shownConfirm;
  const ids = shown.map((c) => c.dataset.key);
  const box = $('confirm');
  $('confirm-what').textContent = (allow ? 'Allow' : 'Deny') + ' these ' + ids.length + ' request' + (ids.length === 1 ? '' : 's') +
    (what ? ' (' + what + ')' : '') + ', and nothing else:';
  $('confirm-list').replaceChildren(...shown.map((c) => el('li', {},
    el('code', {text: c.querySelector('.tool').textContent}), ' ',
    el('span', {class: 'mono', text: ((c.querySelector('pre.input') || {textContent: ''}).textContent.split('\n')[0] || '').slice(0, 120)}), ' ',
    el('span', {class: 'note', text: [...c.querySelectorAll('.meta .machine b, .meta .project b, .meta .cwd b')].map((b) => b.textContent).join(' · ')}))));
  const go = $('confirm-go');
  go.className = allow ? 'allow' : 'deny';
  go.textContent = (allow ? 'Allow ' : 'Deny ') + ids.length;
  go.disabled = false;
  box.hidden = false;
  box.shownAt = performance.now();
  box.scrollIntoView({block: 'nearest'});
  go.onclick = async (ev) => {
    if (ev.detail > 1) { toast('A double click counts once.'); return; }
    if (performance.now() - box.shownAt < SETTLE_MS) { toast('Read the list, then click again.'); return; }
    go.disabled = true;
    const failed = [];
    for (const [i, key] of ids.entries()) {
      const c = shown[i];
      try {
        await post('/api/decide', {id: c.dataset.id, allow, message: '', machine: c.dataset.machine});
        waiting.leave(key, (allow ? 'allowed' : 'denied') + ' here (group)');
      } catch (e) {
        failed.push(key + ': ' + e.message);
      }
    }
    if (mine === shownConfirm) box.hidden = true;
    toast((allow ? 'allowed ' : 'denied ') + (ids.length - failed.length) + (failed.length ? '; not decided: ' + failed.join('; ') : ''));
  };
}
const shownCards = () => [...waiting.cards.values()].filter((c) => !c.hidden && c.dataset.kind === 'approval');
$('group-allow').addEventListener('click', () => confirmGroup(true, shownCards()));
$('group-deny').addEventListener('click', () => confirmGroup(false, shownCards()));
$('confirm-cancel').addEventListener('click', () => { $('confirm').hidden = true; });
