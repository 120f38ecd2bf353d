// dom.js: building elements (as text, never markup), the server's clock,
// durations and times as a person reads them, the toast.


export const $ = (id) => document.getElementById(id);

// el builds an element: attrs are properties of the element (text:
// textContent, class: className, on*: listeners, data-*/aria-*/others:
// attributes); kids are elements or strings (text nodes).
export function el(tag, attrs, ...kids) {
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
export function add(parent, ...kids) {
  for (const kid of kids.flat()) {
    if (kid !== undefined && kid !== null && kid !== false) parent.append(kid);
  }
  return parent;
}

export const sleep = (ms) => new Promise((ok) => setTimeout(ok, ms));

let skew = 0; // the server's clock minus ours
export const now = () => Date.now() + skew;
// setClock takes the server's clock (unix ms) as now's.
export function setClock(serverNow) { skew = serverNow - Date.now(); }

export function dur(ms) {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return s + 's';
  const m = Math.floor(s / 60);
  if (m < 60) return m + 'm ' + String(s % 60).padStart(2, '0') + 's';
  const h = Math.floor(m / 60);
  if (h < 48) return h + 'h ' + String(m % 60).padStart(2, '0') + 'm';
  return Math.floor(h / 24) + 'd ' + (h % 24) + 'h';
}
export function clock(ms) {
  if (!ms) return '';
  const d = new Date(ms);
  const same = new Date().toDateString() === d.toDateString();
  return same ? d.toLocaleTimeString() : d.toLocaleString();
}

let toastTimer;
export function toast(msg) {
  const t = $('toast');
  t.textContent = msg;
  t.classList.add('show');
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => t.classList.remove('show'), 3000);
}
