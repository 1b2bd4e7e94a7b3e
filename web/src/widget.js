// <flopcast-estimate>: an estimate card any HTML page can show with one script tag:
//   <script type="module" src="flopcast-widget.js"></script>
//   <flopcast-estimate model="llama-3-8b" gpu="H100" precision="bf16"></flopcast-estimate>
// Rendered in a Shadow DOM; every number from the core. Theming: theme="auto|light|dark" (auto
// follows the color-scheme the host page declares on the element's parent), CSS custom properties
// --fc-* and ::part() names (listed in embed.html).
import createFlopcast from '@flopcast/wasm';
import wasmUrl from '@flopcast/wasm/flopcast_core.wasm?url';
import {
  formatBytes,
  formatCount,
  formatFlops,
  formatInteger,
  formatJoules,
  formatRate,
  formatSeconds,
  formatUsd,
  plural,
} from './format.js';

// ---- The engine -------------------------------------------------------------------------------
// The widget fetches the .wasm itself (then hands the bytes to the module) so that a failure says
// in plain words what failed: an HTTP status, a blocked cross-origin request, a timeout, or bytes
// that are no WebAssembly module. Without that the card would wait forever.
const LOAD_TIMEOUT_MS = 30000;

/** The engine could not be loaded; `code` is one of "engine.fetch", "engine.http", "engine.timeout", "engine.start". */
class EngineLoadError extends Error {
  constructor(code, message, url) {
    super(message);
    this.name = 'EngineLoadError';
    this.code = code;
    this.url = url;
  }
}

let loading;
let loaded = false;
const startupMessages = [];
function engine() {
  // A failed load is not cached: the next render (an attribute change, a new element) tries again.
  loading ??= loadEngine().catch((e) => {
    loading = undefined;
    throw e;
  });
  return loading;
}
async function loadEngine() {
  const url = new URL(wasmUrl, import.meta.url).href;
  const crossOrigin = new URL(url).origin !== globalThis.location?.origin;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), LOAD_TIMEOUT_MS);
  let bytes;
  try {
    let response;
    try {
      response = await fetch(url, { signal: controller.signal, credentials: 'same-origin' });
    } catch (e) {
      if (controller.signal.aborted)
        throw new EngineLoadError(
          'engine.timeout',
          `Could not load the flopcast engine: ${url} did not answer within ${LOAD_TIMEOUT_MS / 1000} s.`,
          url,
        );
      throw new EngineLoadError(
        'engine.fetch',
        crossOrigin
          ? `Could not load the flopcast engine: the request for ${url} failed. The widget's script is on another ` +
              `origin than this page, so that server must send the .wasm with an Access-Control-Allow-Origin ` +
              `header (CORS); the server may also be unreachable.`
          : `Could not load the flopcast engine: the request for ${url} failed (the server is unreachable or offline).`,
        url,
      );
    }
    if (!response.ok)
      throw new EngineLoadError(
        'engine.http',
        `Could not load the flopcast engine: ${url} answered HTTP ${response.status}` +
          `${response.statusText ? ` ${response.statusText}` : ''}. Copy the .wasm file beside the widget's script.`,
        url,
      );
    bytes = await response.arrayBuffer();
  } catch (e) {
    if (e instanceof EngineLoadError) throw e;
    throw new EngineLoadError('engine.fetch', `Could not load the flopcast engine from ${url}: ${e.message}`, url);
  } finally {
    clearTimeout(timer);
  }
  try {
    const fc = await createFlopcast({
      wasmBinary: bytes,
      print: (text) => console.log(text),
      // The module's own start-up complaints go into the card's message, not the console.
      printErr: (text) => (loaded ? console.error(text) : startupMessages.push(text)),
    });
    loaded = true;
    return fc;
  } catch (e) {
    const why = String(e?.message ?? e).replace(/^Aborted\((.*)\)$/s, '$1');
    const detail = startupMessages.find((m) => /CompileError|LinkError|wasm/i.test(m)) ?? why;
    throw new EngineLoadError(
      'engine.start',
      `The flopcast engine could not start: ${url} is not a WebAssembly module this widget can run` +
        ` (${detail}). If the page has a Content-Security-Policy, its script-src needs 'wasm-unsafe-eval'.`,
      url,
    );
  }
}

// ---- Attributes -------------------------------------------------------------------------------
// Attribute -> request field, from the core's request table (each field's `attribute`, the
// same names the page's URL uses). Values are passed to the core as typed: it validates them.
let ATTRIBUTES = null;

// Boolean attributes by HTML convention: present (training, training="", training="training") is
// true, and so are "true", "yes", "on", "1"; "false", "no", "off", "0" are false. An absent
// attribute leaves the field to the core's default (false, except checkpointing and
// flash-attention, which are on unless set to "false").
const TRUE = new Set(['', 'true', 'yes', 'on', '1']);
const FALSE = new Set(['false', 'no', 'off', '0']);
function booleanOf(value, attribute, pointer) {
  const v = value.trim().toLowerCase();
  if (TRUE.has(v) || v === attribute) return true;
  if (FALSE.has(v)) return false;
  throw new AttributeError(
    `[flopcast.invalid_argument] (${pointer}) expected a boolean: present (or "true") ` +
      `turns it on, "false" (or "no", "0") off, but got "${value}"`,
  );
}
const CORE_PREFIX = /^\[flopcast\.([\w.]+)\](?: \(([^)]*)\))? /;
class AttributeError extends Error {
  constructor(message) {
    super(message);
    this.code = 'invalid_argument';
  }
}
const CONVERT = {
  integer: Number,
  number: Number,
  boolean: booleanOf,
  gpu: (v) => (v === 'none' ? null : v),
};
/** The request fields an element reads: the estimate's top-level fields and its layout (tp, pp, ...). */
export const widgetField = (f) =>
  (f.part === '' || f.part === 'parallelism') && f.attribute && f.commands.includes('estimate');
function attributesOf(fc) {
  return (ATTRIBUTES ??= Object.fromEntries(
    fc
      .defaults()
      .request_fields.filter(widgetField)
      .map((f) => [f.attribute, [f.key, CONVERT[f.type] ?? String, f.pointer, f.part]]),
  ));
}

// ---- Style ------------------------------------------------------------------------------------
// Colours: each --fc-* property the host sets wins; unset ones come from the theme (light-dark(),
// which follows the used color-scheme: inherited from the host page in theme="auto", forced by
// theme="light" / "dark"). A host that sets only --fc-bg gets text derived from that background:
// a grey of the contrast the defaults have where it can, black or white where it cannot, so
// it stays at WCAG AA (4.5:1) or better for any opaque grey or mildly coloured background.
// (`--_y` is the background's relative luminance, read in srgb-linear inside color(from ...).)
const Y = 'calc(0.2126 * r + 0.7152 * g + 0.0722 * b)';
const LIGHT_BG = `clamp(0, (${Y} - 0.1791288) * 1e9, 1)`; // 1 where black text contrasts more than white
const grey = (light, dark) =>
  `calc(${LIGHT_BG} * max(0, (${Y} + 0.05) / ${light} - 0.05) + (1 - ${LIGHT_BG}) * min(1, (${Y} + 0.05) * ${dark} - 0.05))`;
const derived = (light, dark) => {
  const t = grey(light, dark);
  return `color(from var(--fc-bg) srgb-linear ${t} ${t} ${t} / 1)`;
};

const STYLE = `
:host { display: block; font: 14px/1.4 system-ui, sans-serif; max-width: 34rem; }
:host([hidden]) { display: none; }
:host([theme="light" i]) .card { color-scheme: light; }
:host([theme="dark" i]) .card { color-scheme: dark; }
.card {
  --_bg: var(--fc-bg, light-dark(#ffffff, #161b22));
  --_fg-from-bg: ${derived(12, 13)};
  --_muted-from-bg: ${derived(5.5, 6)};
  --_fg: var(--fc-fg, var(--_fg-from-bg, light-dark(#1f2328, #e6edf3)));
  --_muted: var(--fc-muted, var(--_muted-from-bg, light-dark(#59636e, #9198a1)));
  --_border: var(--fc-border, color-mix(in srgb, var(--_fg) 22%, var(--_bg)));
  --_accent: var(--fc-accent, light-dark(#0969da, #4493f8));
  --_ok: var(--fc-ok, #1a7f37);
  --_bad: var(--fc-bad, #cf222e);
  --_on-badge: var(--fc-on-badge, #ffffff);
  --_error: var(--fc-error, var(--_fg-from-bg, light-dark(#cf222e, #ff7b72))); /* on a host's --fc-bg: its text colour */
  --_radius: var(--fc-radius, 8px);
  background: var(--_bg); color: var(--_fg);
  border: 1px solid var(--_border); border-top: 3px solid var(--_accent);
  border-radius: var(--_radius); padding: 12px 14px;
}
h3 { margin: 0 0 2px; font-size: 15px; }
.sub { color: var(--_muted); font-size: 12px; margin-bottom: 8px; }
.note { color: var(--_fg); font-size: 12px; margin: 0 0 8px; padding: 4px 8px; border-radius: 4px;
  border-left: 3px solid var(--_accent); }
dl { display: grid; grid-template-columns: max-content 1fr; gap: 3px 14px; margin: 0; }
dt { color: var(--_muted); } dd { margin: 0; font-variant-numeric: tabular-nums; }
.range { color: var(--_muted); font-size: 12px; }
.fits { display: inline-block; padding: 0 6px; border-radius: 4px; font-weight: 600; font-size: 12px; color: var(--_on-badge); }
.yes { background: var(--_ok); } .no { background: var(--_bad); }
.error { color: var(--_error); margin: 0; padding-left: 8px; border-left: 3px solid var(--_bad); overflow-wrap: anywhere; }
.foot { margin-top: 8px; font-size: 11px; color: var(--_muted); }
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

const make = (tag, { className, part, text } = {}) => {
  const el = document.createElement(tag);
  if (className) el.className = className;
  if (part) el.setAttribute('part', part);
  if (text !== undefined) el.textContent = text;
  return el;
};

// ---- The element ------------------------------------------------------------------------------
class FlopcastEstimate extends HTMLElement {
  constructor() {
    super();
    this.attachShadow({ mode: 'open' });
    // A constructed style sheet, not a <style> element: it needs no 'unsafe-inline' in the host
    // page's Content-Security-Policy (style-src). Browsers without it get the <style> element.
    if (sheet()) this.shadowRoot.adoptedStyleSheets = [sheet()];
    else this.shadowRoot.append(Object.assign(document.createElement('style'), { textContent: STYLE }));
    const card = make('div', { className: 'card', part: 'card' });
    card.setAttribute('role', 'group');
    card.setAttribute('aria-label', 'flopcast estimate');
    card.setAttribute('aria-busy', 'true');
    card.append(make('div', { className: 'sub', part: 'status', text: 'loading…' }));
    this.shadowRoot.append(card);
    this._pending = false;
    // Any attribute may name a request field (the table decides which), so watch them all;
    // theme (and class, style, ...) only restyle, they do not re-estimate.
    new MutationObserver((records) => {
      if (!ATTRIBUTES || records.some((r) => Object.hasOwn(ATTRIBUTES, r.attributeName))) this._schedule();
    }).observe(this, { attributes: true });
  }

  connectedCallback() {
    this._schedule();
  }

  /** The theme attribute as used: "light", "dark", or "auto" (the default, and any other value). */
  get theme() {
    const t = (this.getAttribute('theme') ?? '').toLowerCase();
    return t === 'light' || t === 'dark' ? t : 'auto';
  }
  set theme(value) {
    this.setAttribute('theme', value);
  }

  /** The colour scheme the card is drawn in now: "light" or "dark". */
  get resolvedTheme() {
    if (this.theme !== 'auto') return this.theme;
    const scheme = getComputedStyle(this).colorScheme.split(/\s+/);
    const dark = scheme.includes('dark');
    if (dark && !scheme.includes('light')) return 'dark';
    if (dark && scheme.includes('light')) return matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
    return 'light';
  }

  /** The request this element's attributes describe (throws on a boolean attribute it cannot read). */
  get request() {
    const req = {};
    for (const [attr, [field, convert, pointer, part]] of Object.entries(ATTRIBUTES ?? {})) {
      if (!this.hasAttribute(attr)) continue;
      const value = convert(this.getAttribute(attr), attr, pointer);
      if (part) (req[part] ??= {})[field] = value;
      else req[field] = value;
    }
    return req;
  }

  _schedule() {
    if (this._pending) return;
    this._pending = true;
    queueMicrotask(() => {
      this._pending = false;
      engine().then(
        (fc) => this._render(fc),
        (e) => this._fail(e, 'engine'),
      );
    });
  }

  _fail(e, stage) {
    const card = this.shadowRoot.querySelector('.card');
    card.removeAttribute('aria-busy');
    card.replaceChildren();
    // Plain words: the attribute the core's pointer names, then what is wrong and what is allowed;
    // the code and the pointer stay on the element (data-code, data-pointer, title) for scripts.
    const m = CORE_PREFIX.exec(e.message);
    const pointer = e.pointer ?? m?.[2] ?? '';
    const code = e.code ?? m?.[1] ?? 'internal';
    let text = m ? e.message.slice(m[0].length) : e.message;
    const attribute = stage === 'request' ? this._attributeAt(pointer) : '';
    if (attribute) text = `${attribute} attribute: ${text}`;
    const p = make('p', { className: 'error', part: 'error', text });
    p.dataset.code = code;
    if (pointer) p.dataset.pointer = pointer;
    if (m) p.title = `flopcast.${code}${pointer ? ` at ${pointer}` : ''}`;
    p.setAttribute('role', 'alert');
    card.append(p);
    this.result = undefined;
    const detail = { message: e.message, code, stage, url: e.url };
    this.dispatchEvent(new CustomEvent('error', { detail }));
    this.dispatchEvent(new CustomEvent('flopcast-error', { detail }));
  }

  /** The attribute whose request field a JSON pointer names ("/batch_size/..." -> "batch"), or ''. */
  _attributeAt(pointer) {
    const path = (pointer || '').split('/');
    const pick = (n) => Object.entries(ATTRIBUTES ?? {}).find(([, [, , p]]) => p === path.slice(0, n).join('/'))?.[0];
    return pick(3) ?? pick(2) ?? '';
  }

  _render(fc) {
    const attributes = attributesOf(fc);
    let r;
    try {
      r = fc.estimate(this.request);
    } catch (e) {
      this._fail(e, 'request');
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
    ];
    // The configuration asked for: with a layout, memory per GPU and the layout's GPUs.
    const gpus = r.gpus ?? 1;
    if (gpus > 1)
      rows.push([
        'Memory per GPU',
        `${formatBytes(r.memory_per_gpu)} × ${plural(gpus, 'GPU')}`,
        '/memory_per_gpu',
        r.memory_per_gpu,
      ]);
    else rows.push(['Memory', formatBytes(r.memory), '/memory', r.memory]);
    const training = mem.training !== null;
    if (!training) rows.push(['KV cache', formatBytes(r.kv_cache), '/kv_cache', r.kv_cache]);
    const per = training ? 'per training step' : 'per request';
    if (perf && training) {
      rows.push([
        'Training step',
        formatSeconds(perf.training_step_s),
        '/details/performance/training_step_s',
        perf.training_step_s,
        ['training_step_s', formatSeconds],
      ]);
    } else if (perf) {
      rows.push([
        'Time to first token',
        `${formatSeconds(perf.prefill_latency_s)} (${perf.prefill_bound}-bound)`,
        '/details/performance/prefill_latency_s',
        perf.prefill_latency_s,
        ['prefill_latency_s', formatSeconds],
      ]);
      if (perf.decode_tokens_per_second !== null)
        rows.push([
          'Decode',
          formatRate(perf.decode_tokens_per_second),
          '/details/performance/decode_tokens_per_second',
          perf.decode_tokens_per_second,
          ['decode_tokens_per_second', formatRate],
        ]);
    }
    if (perf) {
      rows.push([
        `Energy ${per}`,
        formatJoules(perf.energy_total_joules),
        '/details/performance/energy_total_joules',
        perf.energy_total_joules,
        ['energy_total_joules', formatJoules],
      ]);
      rows.push([
        `Cost ${per}`,
        `${formatUsd(perf.cost_usd)}${gpus > 1 ? ` (${plural(gpus, 'GPU')})` : ''}`,
        '/details/performance/cost_usd',
        perf.cost_usd,
        ['cost_usd', formatUsd],
      ]);
    }
    const card = this.shadowRoot.querySelector('.card');
    card.removeAttribute('aria-busy');
    card.replaceChildren();
    const h = make('h3', { part: 'title', text: r.model });
    const sub = make('div', {
      className: 'sub',
      part: 'subtitle',
      text: `${r.precision} · ${r.gpu === null ? 'no GPU' : gpus > 1 ? `${gpus} × ${r.gpu}` : r.gpu} · batch ${formatInteger(r.batch_size)} · ${plural(r.sequence_length, 'token')}`,
    });
    if (mem.fits_on_gpu !== null) {
      const badge = make('span', {
        className: `fits ${mem.fits_on_gpu ? 'yes' : 'no'}`,
        part: `badge ${mem.fits_on_gpu ? 'badge-fits' : 'badge-no-fit'}`,
        text: mem.fits_on_gpu ? 'fits' : 'does not fit',
      });
      badge.dataset.field = '/details/memory/fits_on_gpu';
      badge.dataset.value = String(mem.fits_on_gpu);
      sub.append(' · ', badge);
    }
    card.append(h, sub);
    // No gpu attribute: the core used its default GPU; say which (the core's name for it).
    const gpuAttribute = Object.keys(attributes).find((a) => attributes[a][0] === 'gpu');
    if (gpuAttribute && !this.hasAttribute(gpuAttribute)) {
      const fallback = fc.defaults().settings.gpu;
      const note = make('p', {
        className: 'note',
        part: 'note',
        text: `No ${gpuAttribute} attribute: latency and energy are for the default GPU, ${fallback}. Set ${gpuAttribute}="…" for another one, or ${gpuAttribute}="none".`,
      });
      note.dataset.defaultGpu = fallback;
      card.append(note);
    }
    const dl = make('dl', { part: 'figures' });
    for (const [label, text, field, value, range] of rows) {
      const dt = make('dt', { part: 'label', text: label });
      const dd = make('dd', { part: 'value', text });
      dd.dataset.field = field;
      dd.dataset.value = String(value);
      // The core's range around the figure (details.performance.ranges), as the page shows it.
      const band = range && perf.ranges[range[0]];
      if (band) {
        const small = make('small', { className: 'range', part: 'range' });
        const end = (k) => {
          const span = make('span', { text: range[1](band[k]) });
          span.dataset.field = `/details/performance/ranges/${range[0]}/${k}`;
          span.dataset.value = String(band[k]);
          return span;
        };
        small.append(' (', end(0), ' – ', end(1), ')');
        dd.append(small);
      }
      dl.append(dt, dd);
    }
    const foot = make('div', {
      className: 'foot',
      part: 'footer',
      text: `Latency and energy ESTIMATED (roofline) · flopcast ${fc.version()}`,
    });
    if (perf) foot.title = `Ranges: ${perf.ranges.source}`;
    card.append(dl, foot);
    this.dispatchEvent(new CustomEvent('flopcast-estimate', { detail: r }));
  }
}

if (!customElements.get('flopcast-estimate')) customElements.define('flopcast-estimate', FlopcastEstimate);
export { FlopcastEstimate, EngineLoadError };

/**
 * The attributes the element reads, from the core's request table: {attribute, field, type, default,
 * help, choices} each (plus `theme`, which only styles). Rejects as the element does when the engine
 * cannot load.
 */
export async function widgetAttributes() {
  const fc = await engine();
  const defaults = fc.defaults();
  const fields = defaults.request_fields.filter(widgetField);
  return [
    ...fields.map((f) => ({
      attribute: f.attribute,
      field: f.key,
      type: f.type,
      default: f.key === 'gpu' ? defaults.settings.gpu : (f.default ?? defaults.settings[f.key] ?? null),
      help: f.help,
      choices: f.choices,
    })),
    {
      attribute: 'theme',
      field: null,
      type: 'choice',
      default: 'auto',
      help: "light or dark force the card's colours; auto follows the color-scheme of the page around the element",
      choices: ['auto', 'light', 'dark'],
    },
  ];
}
