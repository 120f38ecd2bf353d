// settle.js: a decision acts only on what was on screen, unmoved, for a
// moment; the new-request bar.
import {$, toast} from './dom.js';

// ---- a click decides only what was on screen, where it is ---------------
//
// A decision button acts only when its card has been on screen, unmoved,
// for SETTLE_MS before the click, and never on the second click of a
// double click: a card that just appeared, moved, or slid under the
// pointer is not what the person looked at. A card that leaves (decided
// here or elsewhere) leaves a slot of its height that says what became of
// it, so nothing under the pointer moves; the slots close once the
// pointer has left the list. When a card leaves, every other card of its
// list settles again.

export const SETTLE_MS = 500;
export const SLOT_MIN_MS = 2000;

// Only the cards on screen or near it are measured each frame. Measuring
// every card every frame cost a page of 1,000 waiting requests 7 ms a
// frame (Chromium, quiet 2-core machine) for as long as it stayed open.
// An IntersectionObserver says which cards are within a screen's height
// of the screen; a card it has not reported yet is measured too,
// so a new card on screen is seen in its first frame. A card that comes
// near from far is measured from the next frame: its settle time starts
// a frame later, never sooner. The page's cards are listed again only
// after the page's DOM changed.
const cards = new Set(); // every card listed, until it leaves the page
const nearCards = new Set(); // the cards to measure
let listed = false;
new MutationObserver(() => { listed = false; }).observe(document.body, {childList: true, subtree: true});
const near = new IntersectionObserver((entries) => {
  for (const e of entries) {
    const c = e.target;
    if (e.isIntersecting) {
      nearCards.add(c);
    } else {
      nearCards.delete(c);
      c.place = 'off';
      c.classList.remove('armed');
    }
  }
}, {rootMargin: '100% 0px'});

function listCards() {
  for (const c of document.querySelectorAll('article.card')) {
    if (cards.has(c)) continue;
    cards.add(c);
    nearCards.add(c); // measured until the observer says it is far
    near.observe(c);
  }
  listed = true;
}

// watchSettle runs every frame while the page is shown: a card's place
// (its rectangle, or "off screen") changing restarts its settle time.
export function watchSettle() {
  const t = performance.now();
  if (!listed) listCards();
  for (const c of nearCards) {
    if (!c.isConnected) continue;
    const r = c.getBoundingClientRect();
    const shown = r.width > 0 && r.bottom > 0 && r.top < window.innerHeight && r.right > 0 && r.left < window.innerWidth;
    if (shown && !document.hidden) c.unseen = false;
    const place = shown ? [r.left, r.top, r.width, r.height].join() : 'off';
    if (place !== c.place || !shown) {
      c.place = place;
      c.since = t;
    }
    c.classList.toggle('armed', shown && t - c.since >= SETTLE_MS);
  }
  // What arrived off screen and has not been on screen yet; cards that
  // left the page are forgotten here.
  let unseen = null, nUnseen = 0;
  for (const c of cards) {
    if (!c.isConnected) {
      cards.delete(c);
      nearCards.delete(c);
      near.unobserve(c);
      continue;
    }
    if (c.unseen) {
      nUnseen++;
      unseen = c;
    }
  }
  showNewBar(nUnseen, unseen);
  requestAnimationFrame(watchSettle);
}

// showNewBar floats over the page (it moves nothing) while requests that
// arrived off screen have not been on screen: how many, the newest's
// tool; a click (or n) brings the newest into view and focus.
let newest = null;
function showNewBar(n, c) {
  const bar = $('new-bar');
  newest = c;
  const text = n ? n + ' new request' + (n === 1 ? '' : 's') + ' below — newest: ' + c.querySelector('.tool').textContent + ' (n shows it)' : '';
  if (bar.textContent !== text) bar.textContent = text;
  bar.hidden = !n;
}
// newestUnseen is the newest card the bar announces (keys.js's
// showNewest brings it into view), or null.
export const newestUnseen = () => (newest && newest.isConnected ? newest : null);
document.addEventListener('visibilitychange', () => {
  for (const c of document.querySelectorAll('article.card')) c.place = '';
});
export const unsettle = (c) => { c.place = ''; };

// heldBack says why a click on a decision button of card c does nothing,
// or '' when it may act.
function heldBack(ev, c) {
  if (ev.detail > 1) return 'A double click counts once.';
  if (c.since === undefined || !c.place || c.place === 'off' || performance.now() - c.since < SETTLE_MS) {
    return 'Not decided: this request just appeared or moved. Look at it, then click again.';
  }
  return '';
}

// guarded wraps a decision button's action in heldBack.
export const guarded = (c, fn) => (ev) => {
  const why = heldBack(ev, c);
  if (why) {
    ev.preventDefault();
    toast(why);
    return;
  }
  fn(ev);
};
