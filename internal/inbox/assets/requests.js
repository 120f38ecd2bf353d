// requests.js: the list of what waits (cards kept in step with the
// stream), the counts, triage: filter, compact rows, groups.
import {$, el, setClock, toast} from './dom.js';
import {get} from './api.js';
import {tick, cardKey, card} from './card.js';
import {SLOT_MIN_MS, unsettle} from './settle.js';
import {applyFilter, place, showGroups, triageList} from './triage.js';
import {loadHistory} from './history.js';
import {focused, focusCard, nextCard} from './keys.js';

// A list of cards kept in step with the pending requests: a card stays
// (with what was typed into it) while its request waits; one that leaves
// leaves a slot of its height (so nothing under the pointer moves).
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
        c.item = it;
        if (this === waiting) {
          place(c);
          if ($('filter').value) applyFilter();
        } else {
          this.box.append(c);
        }
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
export const waiting = new CardList($('waiting-list'), () => true);
triageList(waiting);

// pendingWatchers are told each new list of what waits (children.js: the
// open chat's inline requests).
export const pendingWatchers = [];

function showCounts() {
  const n = waiting.cards.size;
  $('count-waiting').textContent = String(n);
  $('count-waiting').classList.toggle('hot', n > 0);
  showGroups();
  $('waiting-empty').hidden = $('waiting-list').querySelector('article.card, .slot') !== null;
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
  for (const watch of pendingWatchers) watch(items);
  showCounts();
  tick();
}
