// keys.js: the keyboard (j/k, a, d, e, ?) and the card in focus.
import {$, toast} from './dom.js';
import {SETTLE_MS, newestUnseen} from './settle.js';
import {reveal} from './triage.js';

// ---- keyboard --------------------------------------------------------------
//
// j/k (or the arrows) move between the requests that wait, a allows the
// one in focus, d puts the cursor in its reason box (Enter there denies),
// e opens its input to edit, ? shows the keys. A key acts only on a card
// that has been in focus, and on screen unmoved, for SETTLE_MS, and a
// held key's repeats do nothing: after a decision the focus moves to the
// next request, which a repeat must not decide.

export let focused = null;
export function focusCard(c) {
  if (focused) focused.classList.remove('focused');
  focused = c || null;
  if (!focused) return;
  focused.classList.add('focused');
  focused.focusedAt = performance.now();
  focused.focus({preventScroll: true});
  focused.scrollIntoView({block: 'nearest'});
}
// shown: a card the person can see (not filtered out, not in a collapsed
// group).
const shown = (c) => c.getClientRects().length > 0;

// nextCard is the shown card after (dir > 0) or before from (a card or a
// slot), in the page's order, across groups.
export function nextCard(from, dir) {
  const box = from.closest('.cards:not(.group-body)') || from.parentElement;
  const all = [...box.querySelectorAll('article.card')].filter(shown);
  const after = (e) => from.compareDocumentPosition(e) & Node.DOCUMENT_POSITION_FOLLOWING;
  return dir > 0 ? all.find(after) || null : all.findLast((e) => e !== from && !after(e)) || null;
}
function move(dir) {
  const list = $('waiting-list');
  if (!focused || !focused.isConnected) return focusCard([...list.querySelectorAll('article.card')].find(shown));
  focusCard(nextCard(focused, dir) || focused);
}
document.addEventListener('keydown', (ev) => {
  if (ev.target.closest && ev.target.closest('input, textarea, select')) {
    if (ev.key === 'Escape') ev.target.blur();
    return;
  }
  if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
  const help = $('help');
  if (ev.key === '?') { help.hidden = !help.hidden; return; }
  if (ev.key === 'Escape') { help.hidden = true; return; }
  if (ev.key === 'j' || ev.key === 'ArrowDown') { ev.preventDefault(); move(1); return; }
  if (ev.key === 'k' || ev.key === 'ArrowUp') { ev.preventDefault(); move(-1); return; }
  if (ev.key === 'n') { showNewest(); return; }
  if (!focused || !focused.isConnected || !focused.keys) return;
  if (!['a', 'd', 'e'].includes(ev.key)) return;
  ev.preventDefault();
  if (ev.repeat) return;
  if ($('waiting-list').classList.contains('compact') || focused.hidden) { toast('Compact rows hide the input: uncheck compact to decide one.'); return; }
  if (!shown(focused)) { toast('This request is in a collapsed group: open the group to decide it.'); return; }
  if (performance.now() - focused.focusedAt < SETTLE_MS) { toast('Not decided: this request just came into focus. Look at it, then press again.'); return; }
  if (ev.key === 'a') focused.keys.allow();
  else if (ev.key === 'd') reasonOnKeyUp = focused; // the d itself must not land in the box
  else focused.keys.edit();
});
let reasonOnKeyUp = null;
document.addEventListener('keyup', (ev) => {
  if (ev.key === 'd' && reasonOnKeyUp) {
    if (reasonOnKeyUp.isConnected) reasonOnKeyUp.keys.reason();
    reasonOnKeyUp = null;
  }
});
// A click inside a card makes it the one in focus for the keys, without
// moving anything (a scroll would move the card under the pointer).
$('waiting-list').addEventListener('focusin', (ev) => {
  const c = ev.target.closest('article.card');
  if (!c || c === focused) return;
  if (focused) focused.classList.remove('focused');
  focused = c;
  c.classList.add('focused');
  c.focusedAt = performance.now();
});

// showNewest brings the newest request that arrived off screen into view
// (its group opened) and focus: the new-request bar's click, or n.
export function showNewest() {
  const c = newestUnseen();
  if (!c) return;
  reveal(c);
  c.scrollIntoView({block: 'center'});
  focusCard(c);
}
