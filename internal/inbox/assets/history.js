// history.js: decided requests (searched, live) and the standing rules.
import {$, el, clock, toast} from './dom.js';
import {post, get} from './api.js';

// ---- history ---------------------------------------------------------

let historyNext = '';
function historyRow(it) {
  const what = it.kind === 'question' ? (it.answer ? 'answer: ' + it.answer : '') : (it.message ? 'message: ' + it.message : '');
  return el('div', {class: 'row', 'data-id': it.id},
    el('div', {class: 'head'},
      el('span', {class: 'badge ' + it.status, text: it.status}),
      el('code', {class: 'tool', text: it.tool}),
      el('span', {class: 'note', text: clock(it.created)}),
      it.child ? el('span', {}, 'child ', el('b', {text: it.child})) : null,
      el('span', {class: 'note', text: it.client})),
    what ? el('div', {class: 'what', text: what}) : null,
    el('div', {class: 'by', text: (it.decided_by ? 'by ' + it.decided_by : '') + (it.decided_at ? ' · ' + clock(it.decided_at) : '') + (it.delivered_to ? ' · delivered to ' + it.delivered_to : '')}),
    el('details', {}, el('summary', {text: it.kind === 'question' ? 'arguments' : 'input'}), el('pre', {text: it.input}),
      it.updated_input ? el('div', {}, el('span', {class: 'note', text: 'ran with new input:'}), el('pre', {text: it.updated_input})) : null));
}

// historyLoads numbers the loads: only the newest one shows its answer.
// Opening the tab loads the whole list; a search sent right after must not
// be overwritten by that older list when its answer comes in last.
let historyLoads = 0;
export async function loadHistory(more) {
  const q = $('history-q').value;
  const params = new URLSearchParams({q, limit: '50'});
  if (more && historyNext) params.set('before', historyNext);
  const n = ++historyLoads;
  try {
    const v = await get('/api/history?' + params);
    if (n !== historyLoads) return;
    const box = $('history-list');
    if (!more) box.replaceChildren();
    for (const it of v.items) box.append(historyRow(it));
    historyNext = v.next || '';
    $('history-more').hidden = !historyNext;
    const shown = box.children.length;
    $('history-note').textContent = shown ? (q ? shown + ' found' + (historyNext ? ' so far (' + v.scanned + ' records searched in the last step; Older searches on)' : '') : '') :
      (q ? 'nothing found' + (historyNext ? ' in the newest ' + v.scanned + ' records; Older searches on' : '') : 'no decided requests yet');
  } catch (e) {
    if (n === historyLoads) $('history-note').textContent = e.message;
  }
}


// ---- rules -----------------------------------------------------------------

export async function loadRules() {
  const box = $('rules-list');
  if (!box) return;
  try {
    const v = await get('/api/rules');
    box.replaceChildren(...v.rules.map((r) => el('div', {class: 'row rule', 'data-id': r.id},
      el('span', {class: 'badge ' + (r.allow ? 'allowed' : 'denied'), text: r.allow ? 'allow' : 'deny'}),
      el('span', {class: 'text', text: r.text}),
      el('button', {type: 'button', class: 'revoke', text: 'Revoke', onclick: async () => {
        try { await post('/api/rules/revoke', {id: r.id}); toast('revoked ' + r.id); } catch (e) { toast(e.message); }
        loadRules();
      }}))));
    $('rules-note').textContent = v.rules.length ? '' : 'No rules. “Always allow” on a request makes one.';
  } catch (e) {
    $('rules-note').textContent = e.message;
  }
}
