// requests.js: the list of what waits (cards kept in step with the
// stream), the counts, triage: filter, compact rows, groups.
import {$, el, setClock, toast} from './dom.js';
import {post, get} from './api.js';
import {tick, cardKey, card} from './card.js';
import {SETTLE_MS, SLOT_MIN_MS, unsettle} from './settle.js';
import {loadHistory} from './history.js';
import {focused, focusCard, nextCard} from './keys.js';
import {chatCards} from './children.js';

// leaves a slot (above).
export class CardList {
  constructor(box, filter) {
    this.box = box;
    this.filter = filter;
    this.cards = new Map();
    box.addEventListener('pointerleave', () => this.close());
  }
  reset(filter) {
    this.filter = filter;
    this.cards.clear();
    this.box.replaceChildren();
    return this;
  }
  update(items) {
    const want = items.filter(this.filter);
    const ids = new Set(want.map(cardKey));
    for (const id of this.cards.keys()) {
      if (!ids.has(id)) this.leave(id, '');
    }
    for (const it of want) {
      if (!this.cards.has(cardKey(it))) {
        // A new card goes below, so nothing under the pointer moves;
        // one that arrives off screen is announced by the "new" bar
        // (watchSettle) until it has been on screen.
        const c = card(it, this);
        c.unseen = this.loaded;
        this.cards.set(cardKey(it), c);
        this.box.append(c);
        if (this === waiting && $('filter').value) applyFilter();
      }
    }
    this.loaded = true;
    return want.length;
  }
  // leave puts a slot of the card's height where it was: what, or (when
  // it was decided elsewhere) what the request became.
  leave(key, what) {
    const c = this.cards.get(key);
    if (!c) return;
    this.cards.delete(key);
    const slot = el('div', {class: 'slot', 'data-id': c.dataset.id, text: (what || 'no longer waiting') + ': ' + c.querySelector('.tool').textContent});
    slot.style.height = c.offsetHeight + 'px';
    slot.at = performance.now();
    const wasFocused = focused === c;
    c.replaceWith(slot);
    for (const other of this.cards.values()) unsettle(other);
    if (wasFocused) focusCard(nextCard(slot, 1) || nextCard(slot, -1));
    if (!what) {
      const m = c.dataset.machine;
      get('/api/request?id=' + encodeURIComponent(c.dataset.id) + (m ? '&machine=' + encodeURIComponent(m) : '')).then((r) => {
        const by = (r.decided_by || '').length > 60 ? r.decided_by.slice(0, 60) + '…' : r.decided_by || '';
        slot.textContent = r.status + (by ? ' by ' + by : '') + ': ' + r.tool;
      }, () => {});
    }
    setTimeout(() => this.close(), SLOT_MIN_MS);
    showCounts();
  }
  // close takes away the slots shown long enough, unless the pointer is
  // over the list (where they keep the cards in place).
  close() {
    if (this.box.matches(':hover')) return;
    for (const slot of this.box.querySelectorAll('.slot')) {
      if (performance.now() - slot.at >= SLOT_MIN_MS) slot.remove();
    }
    showCounts();
  }
}

export let items = [];
const waiting = new CardList($('waiting-list'), () => true);

function showCounts() {
  const n = waiting.cards.size;
  $('count-waiting').textContent = String(n);
  $('count-waiting').classList.toggle('hot', n > 0);
  $('waiting-empty').hidden = $('waiting-list').children.length > 0;
  document.title = (n ? '(' + n + ') ' : '') + 'interceptor inbox';
}

// liveHistory reloads the history shown (its newest page, no search)
// when what waits changes: a decision moves a request there. At most
// once a second, and only while the history is in view.
let historyTimer = null;
function liveHistory() {
  if ($('view-history').hidden || $('history-q').value || historyTimer) return;
  historyTimer = setTimeout(() => { historyTimer = null; if (!$('view-history').hidden) loadHistory(false); }, 1000);
}

export function showPending(p) {
  setClock(p.now);
  liveHistory();
  items = p.items;
  waiting.update(items);
  if (chatCards) chatCards.update(items);
  showCounts();
  tick();
}


// ---- triage: filter, compact rows, a group decided after one look ----------
//
// The filter keeps the cards that hold every word (in what the card
// shows). "Allow shown…" / "Deny shown…" list the requests shown, in a
// box that says what will be decided; its button acts once the box has
// been on screen for SETTLE_MS, never on a double click, and decides
// exactly the requests listed (those decided elsewhere meanwhile are
// reported, not replaced by others).

function applyFilter() {
  const words = $('filter').value.toLowerCase().split(/\s+/).filter(Boolean);
  for (const c of waiting.cards.values()) {
    const hay = c.hay || (c.hay = c.innerText.toLowerCase());
    c.hidden = !words.every((w) => hay.includes(w));
  }
}
$('filter').addEventListener('input', applyFilter);
$('compact').addEventListener('change', () => $('waiting-list').classList.toggle('compact', $('compact').checked));

function confirmGroup(allow) {
  const shown = [...waiting.cards.values()].filter((c) => !c.hidden && c.dataset.kind === 'approval');
  if (!shown.length) { toast('No request is shown.'); return; }
  const ids = shown.map((c) => c.dataset.key);
  const box = $('confirm');
  $('confirm-what').textContent = (allow ? 'Allow' : 'Deny') + ' these ' + ids.length + ' request' + (ids.length === 1 ? '' : 's') + ', and nothing else:';
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
    box.hidden = true;
    toast((allow ? 'allowed ' : 'denied ') + (ids.length - failed.length) + (failed.length ? '; not decided: ' + failed.join('; ') : ''));
  };
}
$('group-allow').addEventListener('click', () => confirmGroup(true));
$('group-deny').addEventListener('click', () => confirmGroup(false));
$('confirm-cancel').addEventListener('click', () => { $('confirm').hidden = true; });
