// interceptor inbox: fetch and a streamed response read as server-sent
// events, no framework, no build.
//
// Every string from the server is already masked (stand-ins for held
// tokens) and made visible (control and bidi characters as escapes); this
// script only ever puts strings into textContent, attribute values and form
// values, never into markup.
'use strict';
(() => {
  const $ = (id) => document.getElementById(id);

  // el builds an element: attrs are properties of the element (text:
  // textContent, class: className, on*: listeners, data-*/aria-*/others:
  // attributes); kids are elements or strings (text nodes).
  function el(tag, attrs, ...kids) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === undefined || v === null || v === false) continue;
      if (k === 'text') e.textContent = v;
      else if (k === 'class') e.className = v;
      else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
      else if (k === 'value') e.value = v;
      else if (k === 'disabled' || k === 'hidden' || k === 'required') e[k] = !!v;
      else e.setAttribute(k, v);
    }
    return add(e, ...kids);
  }

  // add appends kids (elements, or strings as text nodes) to parent,
  // skipping the absent ones (null, undefined, false).
  function add(parent, ...kids) {
    for (const kid of kids.flat()) {
      if (kid !== undefined && kid !== null && kid !== false) parent.append(kid);
    }
    return parent;
  }

  const sleep = (ms) => new Promise((ok) => setTimeout(ok, ms));

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
  function takeKey() {
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
  class AuthError extends Error {}

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
  const post = async (path, v) => body(await call(path, {method: 'POST', headers: {'Content-Type': 'application/json'}, body: JSON.stringify(v)}));
  const get = async (path) => body(await call(path));

  // stream reads the server-sent events of path, on(event, data) for each,
  // until the server ends it or signal aborts; opened is called once the
  // server has answered. When a stream ends, the session is dropped: the
  // inbox may have stopped and another user taken its port, so whoever
  // answers next proves the key before this page sends it anything.
  async function stream(path, on, signal, opened) {
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

  function authNote(msg) {
    $('auth-note').textContent = msg || '';
    $('auth-note').hidden = !msg;
  }

  let skew = 0; // the server's clock minus ours
  const now = () => Date.now() + skew;

  function dur(ms) {
    const s = Math.max(0, Math.round(ms / 1000));
    if (s < 60) return s + 's';
    const m = Math.floor(s / 60);
    if (m < 60) return m + 'm ' + String(s % 60).padStart(2, '0') + 's';
    const h = Math.floor(m / 60);
    if (h < 48) return h + 'h ' + String(m % 60).padStart(2, '0') + 'm';
    return Math.floor(h / 24) + 'd ' + (h % 24) + 'h';
  }
  function clock(ms) {
    if (!ms) return '';
    const d = new Date(ms);
    const same = new Date().toDateString() === d.toDateString();
    return same ? d.toLocaleTimeString() : d.toLocaleString();
  }

  let toastTimer;
  function toast(msg) {
    const t = $('toast');
    t.textContent = msg;
    t.classList.add('show');
    clearTimeout(toastTimer);
    toastTimer = setTimeout(() => t.classList.remove('show'), 3000);
  }

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
  function presented(c) {
    switch (c.kind) {
      case 'command': return c.command;
      case 'edit': return c.diff;
      case 'write': return c.content;
    }
    return (c.args || []).map((a) => a.value.includes('\n') ? a.key + ':\n  ' + a.value.replace(/\n/g, '\n  ') : a.key + ': ' + a.value).join('\n');
  }

  // diffShow fills a diff's box a line at a time, each line a span its
  // sign colours (as text: never markup).
  function diffShow(pre, t) {
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

  function tick() {
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

  const SETTLE_MS = 500;
  const SLOT_MIN_MS = 2000;

  // watchSettle runs every frame while the page is shown: a card's place
  // (its rectangle, or "off screen") changing restarts its settle time.
  function watchSettle() {
    const t = performance.now();
    let unseen = null, nUnseen = 0;
    for (const c of document.querySelectorAll('article.card')) {
      const r = c.getBoundingClientRect();
      const shown = r.width > 0 && r.bottom > 0 && r.top < window.innerHeight && r.right > 0 && r.left < window.innerWidth;
      if (shown && !document.hidden) c.unseen = false;
      if (c.unseen && c.isConnected) {
        nUnseen++;
        unseen = c;
      }
      const place = shown ? [r.left, r.top, r.width, r.height].join() : 'off';
      if (place !== c.place || !shown) {
        c.place = place;
        c.since = t;
      }
      c.classList.toggle('armed', shown && t - c.since >= SETTLE_MS);
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
  function showNewest() {
    if (!newest || !newest.isConnected) return;
    newest.scrollIntoView({block: 'center'});
    focusCard(newest);
  }
  document.addEventListener('visibilitychange', () => {
    for (const c of document.querySelectorAll('article.card')) c.place = '';
  });
  const unsettle = (c) => { c.place = ''; };

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
  const guarded = (c, fn) => (ev) => {
    const why = heldBack(ev, c);
    if (why) {
      ev.preventDefault();
      toast(why);
      return;
    }
    fn(ev);
  };

  // ---- inputs that do not fit say so ----------------------------------------
  //
  // A box shows so many lines at most. When its text goes on below them,
  // a line under the box says how many more lines there are and how the
  // text ends, with a button to show it all: the tail of a command (an
  // input is indented JSON, so a command is one long wrapped line) is never
  // silently hidden.

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
    new ResizeObserver(later).observe(pre);
    pre.addEventListener('scroll', later);
    return [pre, more];
  }

  // ---- requests: the cards of what waits --------------------------------

  // card renders one pending request with its controls; list is the
  // CardList it goes into.
  // cardKey names a request on the page: its id, and its machine's name
  // when the inbox shows every machine's (ids are each queue's own).
  const cardKey = (it) => (it.machine ? it.machine + '/' : '') + it.id;

  function card(it, list) {
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
      const form = el('form', {class: 'answer', onsubmit: (ev) => {
        ev.preventDefault();
        if (!answer.value.trim()) { err.textContent = 'the answer is empty'; return; }
        run(async () => { const r = await post('/api/answer', {id: it.id, answer: answer.value, machine: it.machine}); done(r.status); });
      }}, el('label', {text: 'Your answer'}), answer, el('div', {class: 'actions'}, submit));
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

  // ---- rules -----------------------------------------------------------------

  async function loadRules() {
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

  // A list of cards kept in step with the pending requests: a card stays
  // (with what was typed into it) while its request waits; one that leaves
  // leaves a slot (above).
  class CardList {
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

  let items = [];
  const waiting = new CardList($('waiting-list'), () => true);
  let chatCards = null; // the open chat's inline requests

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

  function showPending(p) {
    skew = p.now - Date.now();
    liveHistory();
    items = p.items;
    waiting.update(items);
    if (chatCards) chatCards.update(items);
    showCounts();
    tick();
  }

  // ---- children --------------------------------------------------------

  function showChildren(v) {
    const box = $('children-list');
    box.replaceChildren();
    $('count-children').textContent = String(v.children.length);
    $('children-empty').hidden = v.children.length > 0;
    for (const ch of v.children) {
      const chats = el('ul', {class: 'chats'});
      for (const c of ch.chats) {
        chats.append(el('li', {'data-chat': c.id},
          el('a', {href: '#chat=' + encodeURIComponent(c.id), text: 'chat ' + c.n}),
          el('span', {class: 'badge ' + c.status, text: c.status.replace('_', ' ')}),
          c.pending ? el('span', {class: 'waiting-n', text: c.pending + ' waiting'}) : null,
          el('span', {class: 'note', text: c.events + ' events'}),
          el('span', {class: 'prompt', title: c.prompt, text: c.prompt})));
      }
      if (ch.older) chats.append(el('li', {class: 'note', text: ch.older + ' older chats not listed'}));
      box.append(el('div', {class: 'child', 'data-child': ch.name},
        el('h3', {}, ch.name, el('span', {class: 'badge', text: ch.client}), ch.unsupervised ? el('span', {class: 'badge denied', text: 'unsupervised'}) : null),
        el('div', {class: 'dir', text: ch.working_dir + (ch.model ? ' · ' + ch.model : '')}),
        ch.chats.length ? chats : el('p', {class: 'note', text: 'no chats yet'})));
    }
  }

  // ---- one chat, live --------------------------------------------------

  let chatAbort = null; // ends the open chat's stream
  function closeChat() {
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
        add(li, el('span', {class: 'etype', text: 'tool call'}), ' ', el('code', {text: e.name}), el('pre', {text: e.input}));
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

  function chatHead(c) {
    return el('div', {class: 'child'},
      el('h3', {}, c.child, el('span', {class: 'note', text: 'chat ' + c.n}), el('span', {class: 'badge', text: c.client}),
        el('span', {class: 'badge ' + c.status, id: 'chat-status', text: c.status.replace('_', ' ')})),
      el('div', {class: 'dir', text: c.prompt}));
  }

  const chatList = new CardList($('chat-pending'), () => false);

  // openChat streams a chat's events into its view from the first, and
  // again from where it stopped when the stream ends before the chat.
  function openChat(id) {
    closeChat();
    $('chat-head').replaceChildren(el('p', {class: 'note', text: 'loading ' + id + '…'}));
    $('chat-events').replaceChildren();
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
  async function loadHistory(more) {
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

  // ---- keyboard --------------------------------------------------------------
  //
  // j/k (or the arrows) move between the requests that wait, a allows the
  // one in focus, d puts the cursor in its reason box (Enter there denies),
  // e opens its input to edit, ? shows the keys. A key acts only on a card
  // that has been in focus, and on screen unmoved, for SETTLE_MS, and a
  // held key's repeats do nothing: after a decision the focus moves to the
  // next request, which a repeat must not decide.

  let focused = null;
  function focusCard(c) {
    if (focused) focused.classList.remove('focused');
    focused = c || null;
    if (!focused) return;
    focused.classList.add('focused');
    focused.focusedAt = performance.now();
    focused.focus({preventScroll: true});
    focused.scrollIntoView({block: 'nearest'});
  }
  function nextCard(from, dir) {
    for (let e = dir > 0 ? from.nextElementSibling : from.previousElementSibling; e; e = dir > 0 ? e.nextElementSibling : e.previousElementSibling) {
      if (e.matches('article.card') && !e.hidden) return e;
    }
    return null;
  }
  function move(dir) {
    const list = $('waiting-list');
    if (!focused || !focused.isConnected) return focusCard(list.querySelector('article.card'));
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
})();
