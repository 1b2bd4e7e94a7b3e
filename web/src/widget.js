// <flopcast-estimate>: an estimate card any HTML page can show with one script tag:
//   <script type="module" src="flopcast-widget.js"></script>
//   <flopcast-estimate model="llama-3-8b" gpu="H100" precision="bf16"></flopcast-estimate>
// Rendered in a Shadow DOM, styled by the page's color scheme; every number from the core.
import { engine } from './engine.js';
import { formatBytes, formatCount, formatFlops, formatJoules, formatRate, formatSeconds } from './format.js';

// Attribute -> request field, from the core's request table (each field's `attribute`, the
// same names the page's URL uses). Values are passed to the core as typed: it validates them.
let ATTRIBUTES = null;
const CONVERT = {
  integer: Number,
  number: Number,
  boolean: (v) => v !== 'false',
  gpu: (v) => (v === 'none' ? null : v),
};
function attributesOf(fc) {
  return (ATTRIBUTES ??= Object.fromEntries(
    fc
      .defaults()
      .request_fields.filter((f) => f.part === '' && f.attribute && f.commands.includes('estimate'))
      .map((f) => [f.attribute, [f.key, CONVERT[f.type] ?? String]]),
  ));
}

const STYLE = `
:host { display: block; font: 14px/1.4 system-ui, sans-serif; color: var(--fc-fg, CanvasText);
  --fc-bg: Canvas; --fc-border: color-mix(in srgb, CanvasText 20%, transparent); --fc-muted: color-mix(in srgb, CanvasText 65%, transparent);
  color-scheme: light dark; max-width: 34rem; }
.card { border: 1px solid var(--fc-border); border-radius: 8px; padding: 12px 14px; background: var(--fc-bg); }
h3 { margin: 0 0 2px; font-size: 15px; }
.sub { color: var(--fc-muted); font-size: 12px; margin-bottom: 8px; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: 3px 14px; margin: 0; }
dt { color: var(--fc-muted); } dd { margin: 0; font-variant-numeric: tabular-nums; }
.fits { display: inline-block; padding: 0 6px; border-radius: 4px; font-weight: 600; font-size: 12px; }
.yes { background: #1a7f37; color: #fff; } .no { background: #cf222e; color: #fff; }
.error { color: #cf222e; } .foot { margin-top: 8px; font-size: 11px; color: var(--fc-muted); }
`;

let SHEET;
function sheet() {
  if (SHEET === undefined) {
    try {
      SHEET = new CSSStyleSheet();
      SHEET.replaceSync(STYLE);
    } catch {
      SHEET = null;
    }
  }
  return SHEET;
}

class FlopcastEstimate extends HTMLElement {
  constructor() {
    super();
    this.attachShadow({ mode: 'open' });
    // A constructed style sheet, not a <style> element: it needs no 'unsafe-inline' in the host
    // page's Content-Security-Policy (style-src). Browsers without it get the <style> element.
    if (sheet()) this.shadowRoot.adoptedStyleSheets = [sheet()];
    else this.shadowRoot.append(Object.assign(document.createElement('style'), { textContent: STYLE }));
    const card = Object.assign(document.createElement('div'), { className: 'card' });
    card.setAttribute('part', 'card');
    card.setAttribute('role', 'group');
    card.setAttribute('aria-label', 'flopcast estimate');
    card.append(Object.assign(document.createElement('div'), { className: 'sub', textContent: 'loading…' }));
    this.shadowRoot.append(card);
    this._pending = false;
    // Any attribute may name a request field (the table decides which), so watch them all.
    new MutationObserver(() => this._schedule()).observe(this, { attributes: true });
  }

  connectedCallback() {
    this._schedule();
  }

  /** The request this element's attributes describe. */
  get request() {
    const req = {};
    for (const [attr, [field, convert]] of Object.entries(ATTRIBUTES ?? {}))
      if (this.hasAttribute(attr)) req[field] = convert(this.getAttribute(attr));
    return req;
  }

  _schedule() {
    if (this._pending) return;
    this._pending = true;
    queueMicrotask(() => {
      this._pending = false;
      engine().then(
        (fc) => this._render(fc),
        (e) => this._fail(e),
      );
    });
  }

  _fail(e) {
    const card = this.shadowRoot.querySelector('.card');
    card.innerHTML = '';
    const p = document.createElement('p');
    p.className = 'error';
    p.setAttribute('role', 'alert');
    p.textContent = e.message;
    card.append(p);
    this.dispatchEvent(new CustomEvent('flopcast-error', { detail: { message: e.message } }));
  }

  _render(fc) {
    attributesOf(fc);
    let r;
    try {
      r = fc.estimate(this.request);
    } catch (e) {
      this._fail(e);
      return;
    }
    this.result = r;
    const perf = r.details.performance;
    const mem = r.details.memory;
    const rows = [
      [
        'Parameters',
        `${formatCount(r.parameters)}${r.active_parameters !== r.parameters ? ` (${formatCount(r.active_parameters)} active)` : ''}`,
        '/parameters',
        r.parameters,
      ],
      ['Forward FLOPs', formatFlops(r.forward_flops), '/forward_flops', r.forward_flops],
      ['Memory', formatBytes(r.memory), '/memory', r.memory],
      ['KV cache', formatBytes(r.kv_cache), '/kv_cache', r.kv_cache],
    ];
    if (perf) {
      rows.push([
        'Time to first token',
        `${formatSeconds(perf.prefill_latency_s)} (${perf.prefill_bound}-bound)`,
        '/details/performance/prefill_latency_s',
        perf.prefill_latency_s,
      ]);
      if (perf.decode_tokens_per_second !== null)
        rows.push([
          'Decode',
          formatRate(perf.decode_tokens_per_second),
          '/details/performance/decode_tokens_per_second',
          perf.decode_tokens_per_second,
        ]);
      rows.push([
        'Energy per request',
        formatJoules(perf.energy_total_joules),
        '/details/performance/energy_total_joules',
        perf.energy_total_joules,
      ]);
    }
    const card = this.shadowRoot.querySelector('.card');
    card.innerHTML = '';
    const h = document.createElement('h3');
    h.textContent = r.model;
    const sub = document.createElement('div');
    sub.className = 'sub';
    sub.textContent = `${r.precision} · ${r.gpu ?? 'no GPU'} · batch ${r.batch_size} · ${r.sequence_length} tokens`;
    if (mem.fits_on_gpu !== null) {
      const badge = document.createElement('span');
      badge.className = `fits ${mem.fits_on_gpu ? 'yes' : 'no'}`;
      badge.dataset.field = '/details/memory/fits_on_gpu';
      badge.dataset.value = String(mem.fits_on_gpu);
      badge.textContent = mem.fits_on_gpu ? 'fits' : 'does not fit';
      sub.append(' · ', badge);
    }
    const dl = document.createElement('dl');
    for (const [label, text, field, value] of rows) {
      const dt = document.createElement('dt');
      dt.textContent = label;
      const dd = document.createElement('dd');
      dd.textContent = text;
      dd.dataset.field = field;
      dd.dataset.value = String(value);
      dl.append(dt, dd);
    }
    const foot = document.createElement('div');
    foot.className = 'foot';
    foot.textContent = `Latency and energy ESTIMATED (roofline) · flopcast ${fc.version()}`;
    card.append(h, sub, dl, foot);
    this.dispatchEvent(new CustomEvent('flopcast-estimate', { detail: r }));
  }
}

if (!customElements.get('flopcast-estimate')) customElements.define('flopcast-estimate', FlopcastEstimate);
export { FlopcastEstimate };
