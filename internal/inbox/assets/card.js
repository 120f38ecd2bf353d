// card.js: one pending request as a card (what it asks, who asks, its
// controls: allow, deny, edit, always), and a question's fields.
import {$, el, now, dur, toast} from './dom.js';
import {post, get} from './api.js';
import {guarded} from './settle.js';
import {loadRules} from './history.js';

// ---- requests: who asks, and since when ----------------------------

function who(it) {
  const parts = [];
  if (it.machine) parts.push(el('span', {class: 'machine'}, 'machine ', el('b', {text: it.machine}), it.unreachable ? ' (unreachable: its relay is silent)' : ''));
  if (it.child) parts.push(el('span', {}, 'child ', el('b', {text: it.child})));
  if (it.chat && !it.elsewhere) parts.push(el('a', {href: '#chat=' + encodeURIComponent(it.chat), text: 'chat ' + it.chat.replace(/^.*-/, '')}));
  parts.push(el('span', {}, 'client ', el('b', {text: it.client || '?'})));
  if (it.session) parts.push(el('span', {title: it.session, text: 'session ' + (it.session.length > 14 ? it.session.slice(0, 12) + '…' : it.session)}));
  if (it.project && it.project !== it.cwd) parts.push(el('span', {class: 'project'}, 'project ', el('b', {text: it.project})));
  if (it.cwd) parts.push(el('span', {class: 'cwd'}, 'in ', el('b', {class: 'mono', text: it.cwd})));
  return parts;
}

// ---- a request as a person reads it (internal/present) --------------------

// presented is the text of a card's main box: the command, the diff, the
// file's content, or each argument as key: value.
export function presented(c) {
  switch (c.kind) {
    case 'command': return c.command;
    case 'edit': return c.diff;
    case 'write': return c.content;
  }
  return (c.args || []).map((a) => a.value.includes('\n') ? a.key + ':\n  ' + a.value.replace(/\n/g, '\n  ') : a.key + ': ' + a.value).join('\n');
}

// diffShow fills a diff's box a line at a time, each line a span its
// sign colours (as text: never markup).
export function diffShow(pre, t) {
  pre.replaceChildren(...t.split('\n').map((l) => el('span', {
    class: l.startsWith('+') && !l.startsWith('+++') ? 'add' : l.startsWith('-') && !l.startsWith('---') ? 'del' : l.startsWith('@@') ? 'hunk' : '',
    text: l + '\n'})));
}

// cardHead is what goes above a presented card's box: the risk marks,
// the agent's description of a command, the file a write or edit is of.
function cardHead(c) {
  const out = [];
  if ((c.risks || []).length) out.push(el('p', {class: 'risks'}, ...c.risks.map((r) => el('span', {class: 'risk', text: r}))));
  if (c.description) out.push(el('p', {class: 'desc', text: c.description}));
  if (c.kind === 'write') out.push(el('p', {class: 'path'}, 'write ', el('code', {text: c.path})));
  return out;
}

function timing(it) {
  const age = el('span', {class: 'age', 'data-since': it.created});
  const left = it.deadline ? el('span', {class: 'left', 'data-until': it.deadline}) : null;
  return [age, left];
}

export function tick() {
  const t = now();
  for (const e of document.querySelectorAll('.age[data-since]')) {
    e.textContent = 'waiting ' + dur(t - Number(e.dataset.since));
  }
  for (const e of document.querySelectorAll('.left[data-until]')) {
    const ms = Number(e.dataset.until) - t;
    e.textContent = ms > 0 ? dur(ms) + ' left' : 'its time is up';
    e.classList.toggle('soon', ms < 60000);
  }
}

// ---- inputs that do not fit say so ----------------------------------------
//
// A box shows so many lines at most. When its text goes on below them,
// a line under the box says how many more lines there are and how the
// text ends, with a button to show it all: the tail of a command (an
// input is indented JSON, so a command is one long wrapped line) is never
// silently hidden.

// A card that comes near the screen measures its boxes, which check
// skipped while it was far. Its ResizeObserver fires then too when the
// box's size changed; this covers a box whose text changed while far and
// whose size did not (a full box stays at its max-height).
document.addEventListener('contentvisibilityautostatechange', (ev) => {
  if (ev.skipped) return;
  for (const pre of ev.target.querySelectorAll('pre')) pre.recheck?.();
}, true);

// boxed puts text into pre and returns [pre, its note]; pre.show(text)
// puts other text in.
function boxed(pre, text, fill) {
  const count = el('span');
  const tail = el('code', {class: 'tail'});
  const more = el('p', {class: 'more', hidden: true}, count, tail,
    el('button', {type: 'button', class: 'show-lines', text: 'Show all', onclick: () => {
      pre.classList.add('whole');
      check();
    }}));
  let queued = false;
  function check() {
    queued = false;
    // A far card is not laid out (app.css): measuring its box would lay
    // that card out alone, a card at a time. It is measured when it comes
    // near (above), before it can be decided (settle.js). A browser
    // without checkVisibility measures every box, as before.
    if (pre.checkVisibility && !pre.checkVisibility({contentVisibilityAuto: true})) return;
    const below = pre.scrollHeight - pre.scrollTop - pre.clientHeight;
    if (pre.classList.contains('whole') || !pre.clientHeight || below < 2) {
      more.hidden = true;
      return;
    }
    const n = Math.max(1, Math.ceil(below / (parseFloat(getComputedStyle(pre).lineHeight) || 18)));
    count.textContent = 'continues: ' + n + ' more line' + (n === 1 ? '' : 's') + ' below, ending ';
    more.hidden = false;
  }
  const later = () => {
    if (!queued) {
      queued = true;
      requestAnimationFrame(check);
    }
  };
  pre.show = (t) => {
    if (fill) fill(pre, t);
    else pre.textContent = t;
    const end = t.replace(/\s+$/, '');
    tail.textContent = (end.length > 200 ? '…' + end.slice(-200) : end).replace(/\n/g, ' ⏎ ');
    later();
  };
  pre.show(text);
  pre.recheck = later;
  new ResizeObserver(later).observe(pre);
  pre.addEventListener('scroll', later);
  return [pre, more];
}

// ---- requests: the cards of what waits --------------------------------

// card renders one pending request with its controls; list is the
// CardList it goes into.
// cardKey names a request on the page: its id, and its machine's name
// when the inbox shows every machine's (ids are each queue's own).
export const cardKey = (it) => (it.machine ? it.machine + '/' : '') + it.id;

export function card(it, list) {
  const err = el('p', {class: 'error'});
  const done = (what) => {
    toast(it.tool + ': ' + what);
    list.leave(cardKey(it), what + ' here');
  };
  const run = async (fn) => {
    err.textContent = '';
    for (const b of c.querySelectorAll('button')) b.disabled = true;
    try {
      await fn();
    } catch (e) {
      err.textContent = e.message;
      for (const b of c.querySelectorAll('button')) b.disabled = false;
      gate();
    }
  };
  const head = el('div', {class: 'head'},
    el('span', {class: 'badge' + (it.kind === 'question' ? ' question' : ''),
      text: it.kind === 'question' ? 'question · ' + (it.mode === 'park' ? 'parked' : 'held') : 'approval'}),
    el('code', {class: 'tool', text: it.tool}));
  const meta = el('div', {class: 'meta'}, who(it), timing(it), el('span', {class: 'id mono', text: it.id}));
  const c = el('article', {tabindex: '-1', class: 'card ' + it.kind, 'data-id': it.id, 'data-key': cardKey(it), 'data-machine': it.machine || '', 'data-kind': it.kind, 'data-shown': String(Date.now())}, head, meta);

  let gate = () => {};
  if (it.kind === 'question') {
    c.append(fieldsOf(it));
    const answer = el('textarea', {class: 'answer-text', required: true, 'aria-label': 'your answer',
      placeholder: it.mode === 'park' ? 'The model reads it at the start of its next turn' : 'The model reads it as the tool result'});
    const submit = el('button', {class: 'primary send-answer', type: 'submit', text: 'Send answer'});
    answer.addEventListener('keydown', (ev) => {
      if (ev.key === 'Enter' && (ev.ctrlKey || ev.metaKey) && !ev.repeat) {
        ev.preventDefault();
        guarded(c, () => form.requestSubmit())({detail: 0, preventDefault() {}});
      }
    });
    submit.addEventListener('click', guarded(c, () => {}));
    const send = (text) => run(async () => { const r = await post('/api/answer', {id: it.id, answer: text, machine: it.machine}); done(r.status); });
    const form = el('form', {class: 'answer', onsubmit: (ev) => {
      ev.preventDefault();
      const why = answerProblem(it.answer_schema, answer.value);
      if (why) { err.textContent = why; return; }
      send(answer.value);
    }}, el('label', {text: 'Your answer'}), answer, el('div', {class: 'actions'}, submit));
    const choices = (it.answer_schema || {}).choices;
    if (choices) {
      // One click a choice (the schema takes nothing else).
      c.append(el('div', {class: 'actions choices'}, el('span', {class: 'note', text: 'Answer:'}),
        ...choices.map((ch) => el('button', {type: 'button', class: 'primary choice send-answer', text: ch, onclick: guarded(c, () => send(ch))}))), err);
      return c;
    }
    c.append(form, err);
    return c;
  }

  const pc = it.card;
  const [input, more] = boxed(el('pre', {class: 'input' + (pc ? ' ' + pc.kind : '')}), pc ? presented(pc) : it.input,
    pc && pc.kind === 'edit' ? diffShow : null);
  if (pc) {
    c.append(...cardHead(pc), input, more,
      el('details', {class: 'raw'}, el('summary', {text: 'arguments as JSON'}), el('pre', {class: 'raw-input', text: it.input})));
  } else {
    c.append(input, more);
  }
  let whole = !it.input_cut;
  const cutNote = it.input_cut ? el('p', {class: 'note'},
    'Input cut: ' + it.input.length + ' of ' + it.input_cut + ' characters shown; allowing waits until you have seen all of it. ',
    el('button', {type: 'button', class: 'show-all', text: 'Show all', onclick: () => run(async () => {
      const r = await get('/api/request?id=' + encodeURIComponent(it.id) + (it.machine ? '&machine=' + encodeURIComponent(it.machine) : ''));
      input.show(r.input);
      editor.value = r.input;
      whole = true;
      cutNote.remove();
      for (const b of c.querySelectorAll('button')) b.disabled = false;
      gate();
    })})) : null;
  if (cutNote) c.append(cutNote);

  const reason = el('input', {type: 'text', class: 'reason', placeholder: 'Message to the model (why, for a deny)', 'aria-label': 'message'});
  const decide = (allow, extra, what) => guarded(c, () => run(async () => {
    const r = await post('/api/decide', Object.assign({id: it.id, allow, message: reason.value, machine: it.machine}, extra && extra()));
    done(r.status + (what || ''));
  }));
  const allow = el('button', {type: 'button', class: 'allow', text: 'Allow', onclick: decide(true)});
  const deny = el('button', {type: 'button', class: 'deny', text: 'Deny', onclick: decide(false)});
  const editor = el('textarea', {class: 'edit-input', value: it.input, 'aria-label': 'new input', spellcheck: 'false', rows: '8'});
  const allowEdited = el('button', {type: 'button', class: 'allow allow-edited', text: 'Allow with this input', onclick: decide(true, () => {
    try { JSON.parse(editor.value); } catch (e) { throw new Error('the new input is not JSON: ' + e.message); }
    return {updated_input: editor.value};
  }, ' with new input')});
  const editBox = el('div', {class: 'editor', hidden: true}, editor,
    el('p', {class: 'note', text: 'The complete arguments the call runs with. A stand-in such as [session_token 1a2b3c4d held by interceptor] gets its token back.' + (it.edit_note ? ' ' + it.edit_note : '')}),
    el('div', {class: 'actions'}, allowEdited));
  const edit = it.editable ? el('button', {type: 'button', class: 'edit', text: 'Edit input…', onclick: () => { editBox.hidden = !editBox.hidden; }}) : null;
  reason.addEventListener('keydown', (ev) => {
    if (ev.key === 'Enter' && !ev.shiftKey && !ev.ctrlKey && !ev.metaKey && !ev.repeat) {
      ev.preventDefault();
      decide(false)({detail: 0, preventDefault() {}});
    }
  });
  c.append(el('div', {class: 'actions'}, allow, reason, deny, edit), ruleBox(it, c, run, done, () => whole), editBox, err);
  gate = () => { allow.disabled = !whole; allowEdited.disabled = !whole; };
  gate();
  c.keys = {
    allow: () => { if (!allow.disabled) decide(true)({detail: 0, preventDefault() {}}); else toast('Show all of the input first.'); },
    reason: () => reason.focus(),
    edit: () => { if (edit) { editBox.hidden = false; editor.focus(); } },
  };
  return c;
}

// ruleBox is the card's "always" row: a standing rule made from this
// request (scope: session, project, everywhere; shape: the tool, or the
// tool with this command or path prefix), which decides it too.
function ruleBox(it, c, run, done, whole) {
  // Rules stay on each machine (docs/relay.md): another machine's card
  // says where to make one instead.
  if (it.elsewhere) {
    return el('div', {class: 'actions always'}, el('span', {class: 'note',
      text: 'Always: not from this page. Rules stay on machine ' + it.machine + ' (interceptor approvals rules add there).'}));
  }
  const scope = el('select', {class: 'rule-scope', 'aria-label': 'rule scope'},
    el('option', {value: 'session', text: 'in this session'}),
    it.project ? el('option', {value: 'project', text: 'in this project'}) : null,
    el('option', {value: 'everywhere', text: 'everywhere'}));
  if (it.project) scope.value = 'project';
  const exact = it.rule_kind === 'command';
  const shape = el('select', {class: 'rule-shape', 'aria-label': 'rule shape'},
    el('option', {value: 'tool', text: 'every ' + it.tool + ' call'}),
    exact ? el('option', {value: 'command', text: 'exactly this command'}) : null,
    it.rule_kind && it.rule_prefix ? el('option', {value: 'prefix',
      text: it.rule_kind === 'command' ? 'commands starting “' + it.rule_prefix + '”' : 'files under ' + it.rule_prefix}) : null);
  if (exact) shape.value = 'command';
  else if (it.rule_kind && it.rule_prefix) shape.value = 'prefix';
  const make = (allowIt) => guarded(c, () => {
    if (allowIt && !whole()) { toast('Show all of the input first.'); return; }
    run(async () => {
      const r = await post('/api/rules/add', {id: it.id, allow: allowIt, scope: scope.value, shape: shape.value, machine: it.machine});
      toast('rule ' + r.rule.id + ' made');
      done(r.status + ', and a rule made');
      loadRules();
    });
  });
  return el('div', {class: 'actions always'}, el('span', {class: 'note', text: 'Always:'}), shape, scope,
    el('button', {type: 'button', class: 'allow always-allow', text: 'Always allow', onclick: make(true)}),
    el('button', {type: 'button', class: 'deny always-deny', text: 'Always deny', onclick: make(false)}));
}

// fieldsOf lays a question's arguments out by its tool's input schema.
function fieldsOf(it) {
  const dl = el('dl', {class: 'fields'});
  for (const f of it.fields || []) {
    dl.append(el('dt', {}, f.title || f.name, f.type ? el('small', {text: f.type}) : null, f.required ? el('span', {class: 'req', title: 'required', text: '*'}) : null),
      el('dd', {}, f.description ? el('p', {class: 'desc', text: f.description}) : null,
        f.missing ? el('span', {class: 'note', text: '(not given)'}) : boxed(el('pre', {class: 'value'}), f.value)));
  }
  if (!(it.fields || []).length) dl.append(el('dt', {text: 'arguments'}), el('dd', {}, ...boxed(el('pre'), it.input)));
  return dl;
}

// answerProblem says, in one line, why text is not an answer the
// question's answer_schema takes ('' when it is). The server checks again.
function answerProblem(s, text) {
  if (!text.trim()) return 'the answer is empty';
  if (!s) return '';
  if (s.type === 'number' || s.type === 'integer') {
    const n = Number(text.trim());
    if (!Number.isFinite(n)) return 'the answer must be a number';
    if (s.type === 'integer' && !Number.isInteger(n)) return 'the answer must be a whole number';
    if (s.minimum !== undefined && n < s.minimum) return 'the answer must be at least ' + s.minimum;
    if (s.maximum !== undefined && n > s.maximum) return 'the answer must be at most ' + s.maximum;
  }
  if (s.type === 'string') {
    const n = [...text].length;
    if (s.min_length !== undefined && n < s.min_length) return 'the answer must be at least ' + s.min_length + ' characters';
    if (s.max_length !== undefined && n > s.max_length) return 'the answer must be at most ' + s.max_length + ' characters';
  }
  return '';
}
