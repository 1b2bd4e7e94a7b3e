// embed.html's live parts: the attribute table and the playground from the core's request table,
// the section colour-scheme buttons, and the log of every widget's events. No inline script (CSP).
import { widgetAttributes } from './widget.js';

const $ = (id) => document.getElementById(id);
const cell = (tag, text, code = false) => {
  const el = document.createElement(tag);
  if (code) el.append(Object.assign(document.createElement('code'), { textContent: text }));
  else el.textContent = text;
  return el;
};
const shown = (v) => (v === null || v === undefined ? '—' : String(v));

// The event log: every <flopcast-estimate> on the page, its estimates and errors.
const log = $('event-log');
function logEvent(e) {
  const d = e.detail ?? {};
  const what =
    e.type === 'flopcast-estimate'
      ? `memory ${d.memory} B, parameters ${d.parameters}${d.gpu ? `, ${d.gpu}` : ''}`
      : `${d.stage} · ${d.code} · ${d.message}`;
  const li = document.createElement('li');
  li.dataset.event = e.type;
  li.dataset.source = e.target.id;
  li.textContent = `${new Date().toLocaleTimeString()} #${e.target.id} ${e.type}: ${what}`;
  log.prepend(li);
  while (log.children.length > 40) log.lastElementChild.remove();
}
for (const el of document.querySelectorAll('flopcast-estimate'))
  for (const type of ['flopcast-estimate', 'error']) el.addEventListener(type, logEvent);

// The theme section's colour-scheme buttons.
for (const b of $('scheme-buttons').querySelectorAll('button[data-scheme]'))
  b.addEventListener('click', () => {
    $('theme-section').style.colorScheme = b.dataset.scheme; // CSSOM, not an inline style attribute: CSP-safe
    for (const o of $('scheme-buttons').querySelectorAll('button')) o.setAttribute('aria-pressed', String(o === b));
  });

// The playground: an input per attribute, written to the element as typed.
const widget = $('playground-widget');
function markup() {
  const attrs = [...widget.attributes]
    .filter((a) => a.name !== 'id')
    .map((a) => (a.value === '' ? ` ${a.name}` : ` ${a.name}="${a.value}"`))
    .join('');
  $('playground-markup').textContent = `<flopcast-estimate${attrs}></flopcast-estimate>`;
}
function control(a) {
  const id = `pg-${a.attribute}`;
  const label = Object.assign(document.createElement('label'), { htmlFor: id, textContent: a.attribute });
  let input;
  if (a.type === 'boolean') {
    input = Object.assign(document.createElement('select'), { id });
    for (const [value, text] of [
      ['', `absent (${a.default ? 'on' : 'off'})`],
      ['present', 'present (on)'],
      ['false', '"false" (off)'],
    ])
      input.append(new Option(text, value));
  } else if (a.choices?.length) {
    input = Object.assign(document.createElement('select'), { id });
    for (const c of a.choices) input.append(new Option(c, c));
  } else {
    input = Object.assign(document.createElement('input'), { id, type: 'text', placeholder: shown(a.default) });
    input.value = widget.getAttribute(a.attribute) ?? '';
  }
  input.title = a.help;
  input.addEventListener('change', () => {
    const v = input.value;
    if (a.type === 'boolean') {
      if (v === '') widget.removeAttribute(a.attribute);
      else widget.setAttribute(a.attribute, v === 'present' ? '' : v);
    } else if (v === '') widget.removeAttribute(a.attribute);
    else widget.setAttribute(a.attribute, v);
    markup();
  });
  return [label, input];
}

widgetAttributes().then(
  (attributes) => {
    const rows = $('attribute-rows');
    rows.replaceChildren();
    const form = $('playground-form');
    for (const a of attributes) {
      const tr = document.createElement('tr');
      tr.dataset.attribute = a.attribute;
      tr.append(cell('td', a.attribute, true), cell('td', a.type), cell('td', shown(a.default)), cell('td', a.help));
      rows.append(tr);
      form.append(...control(a));
    }
    markup();
  },
  (e) => {
    $('attribute-rows').replaceChildren();
    const tr = document.createElement('tr');
    tr.append(Object.assign(cell('td', e.message), { colSpan: 4 }));
    $('attribute-rows').append(tr);
  },
);
