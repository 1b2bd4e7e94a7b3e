// Display formatting for the page, on top of ../format.js (which the widget shares).
// Formatting only: every value arrives from the core in SI base units.
import { formatAs, formatByKind, formatCount, formatSI, NONE } from '../format.js';

/** Value with a decimal SI prefix, three significant digits, small values included (e.g. 300 µWh). */
export const si = (v, unit, digits = 3) => formatSI(v, unit, digits);

/** Compact tick labels for chart axes. */
export const tick = (unit) => (v) => si(v, unit, 2);
/** Tick labels of a byte axis in the tables' binary units ("16 GiB", never "17 GB"). */
export const tickBytes = (v) => formatAs('bytes', v);
/** Tick steps of a linear byte axis: 1, 2, 5, 10, ... 500 times each power of 1024 (whole KiB, MiB, GiB, TiB). */
export const BYTE_STEPS = [0, 1, 2, 3, 4].flatMap((k) =>
  [1, 2, 5, 10, 20, 50, 100, 200, 500].map((m) => m * 1024 ** k),
);

const NULLS = { fits: 'No GPU selected', gpu: 'no GPU' };
const FITS = { true: 'Fits in GPU memory', false: 'Does not fit in GPU memory' };
// The page's format names (data-fmt) that differ from ../format.js's rule names.
const RULE = { num: 'number' };

/** Formats a result value by the page's format names (data-fmt; "gpus" is a count of GPUs). */
export function show(fmt, v) {
  if (v === null || v === undefined || (typeof v === 'number' && Number.isNaN(v))) return NULLS[fmt] ?? NONE;
  switch (fmt) {
    case 'fits':
      return FITS[v] ?? String(v);
    case 'gpus':
      return formatAs('plural', v, 'GPU');
    case 'gpu':
    case undefined:
      return String(v);
    default:
      return formatAs(RULE[fmt] ?? fmt, v);
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
