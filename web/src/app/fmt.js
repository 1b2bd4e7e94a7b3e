// Display formatting for the page, on top of ../format.js (which the widget shares).
// Formatting only: every value arrives from the core in SI base units.
import {
  formatByKind,
  formatCount,
  formatInteger,
  formatUsd,
  formatRate,
  formatFlops,
  formatBytes,
  formatSeconds,
} from '../format.js';

const isNum = (v) => typeof v === 'number' && !Number.isNaN(v);
const trim = (s) => (s.includes('.') ? s.replace(/\.?0+$/, '') : s);
const BIG = ['', 'k', 'M', 'G', 'T', 'P', 'E', 'Z'];
const SMALL = ['', 'm', 'µ', 'n'];

/** Value with a decimal SI prefix, three significant digits, small values included (e.g. 0.3 mWh). */
export function si(v, unit, digits = 3) {
  if (!isNum(v)) return '–';
  if (v === 0) return `0 ${unit}`;
  let x = Math.abs(v);
  let p = '';
  if (x >= 1000) {
    let i = 0;
    while (x >= 1000 && i < BIG.length - 1) {
      x /= 1000;
      i++;
    }
    p = BIG[i];
  } else if (x < 1) {
    let i = 0;
    while (x < 1 && i < SMALL.length - 1) {
      x *= 1000;
      i++;
    }
    p = SMALL[i];
  }
  const text = x >= 10 ** digits ? String(Math.round(x)) : trim(x.toPrecision(digits));
  return `${v < 0 ? '-' : ''}${text} ${p}${unit}`;
}

/** Compact tick labels for chart axes. */
export const tick = (unit) => (v) => si(v, unit, 2);

const NULLS = { fits: 'No GPU selected', gpu: 'no GPU' };
const FITS = { true: 'Fits in GPU memory', false: 'Does not fit in GPU memory' };

/** Formats a result value by the page's format names (data-fmt). */
export function show(fmt, v) {
  if (v === null || v === undefined || (typeof v === 'number' && Number.isNaN(v))) return NULLS[fmt] ?? '–';
  switch (fmt) {
    case 'int':
      return formatInteger(v);
    case 'count':
      return formatCount(v);
    case 'flops':
      return formatFlops(v);
    case 'bytes':
      return formatBytes(v);
    case 'flops/s':
      return si(v, 'FLOP/s', 4);
    case 'bytes/s':
      return si(v, 'B/s', 4);
    case 'wh':
      return si(v, 'Wh');
    case 'joules':
      return si(v, 'J');
    case 'grams':
      return si(v, 'g');
    case 'usd':
      return formatUsd(v);
    case 'rate':
      return formatRate(v);
    case 'fits':
      return FITS[v] ?? String(v);
    case 'seconds':
      return formatSeconds(v);
    case 'bits':
      return `${Number(v).toFixed(2)} bits`;
    default:
      return String(v);
  }
}

export { formatByKind, formatCount };

// ---- errors for people ----
// The core's messages start with "[flopcast.code] (pointer) ", for programs; the page shows the
// words after it and keeps the code and the pointer on the element (data-code, data-pointer, title).
const CORE_PREFIX = /^\[flopcast\.[\w.]+\](?: \([^)]*\))? /;
/** A core error's message without its "[flopcast.code] (pointer)" prefix (any other error: its message). */
export const plainMessage = (e) => String(e?.message ?? e).replace(CORE_PREFIX, '');
/** Shows `text` in `el` with the error's code and pointer (if a core error) as data- attributes and title. */
export function showError(el, text, e) {
  el.textContent = text;
  if (e?.code && e.code !== 'internal') {
    el.dataset.code = e.code;
    el.dataset.pointer = e.pointer ?? '';
    el.title = `flopcast.${e.code}${e.pointer ? ` at ${e.pointer}` : ''}`;
  } else {
    delete el.dataset.code;
    delete el.dataset.pointer;
    el.removeAttribute('title');
  }
}
