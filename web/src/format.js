// Display formatting only, in ONE place for the page and the widget: values arrive in SI base
// units from the core and are shown with units here. core/src/base/format.cpp applies the same rules to
// the CLI's text, and tests/fixtures/format_cases.json holds the cases both must print alike.
//
// The rules:
// - Three significant digits by default, trailing zeros dropped ("16.5 GiB", "80 GiB", "1.87 s");
//   integer parts of four or more digits are grouped ("8,192", "6,260 years").
// - Decimal (SI) prefixes for FLOP, FLOP/s, B/s, J, Wh, W, events per second; memory in binary units
//   (KiB, MiB, GiB: an "80 GB" A100 holds 80 GiB, as vendors sell it and the CLI prints it). A prefix
//   changes at 1000 (also for binary units: 1010 MiB reads "0.986 GiB"). Energy, power and CO2 take
//   small prefixes too (300 µWh); FLOPs, bytes and rates do not (0.5 FLOP).
// - CO2 in mg, g, kg and t (never "Gg"); time in ns, µs, ms, s, min, h, days and years.
// - Counts: below a million exact and grouped ("8,192 tokens"), from a million with a suffix
//   ("8.03B" parameters); integers ("int") always exact and grouped.
// - Money: cents from $0.01 ("$1,234.50"), three significant digits below a cent ("$0.00123").
// - Fractions as percentages ("32.9 %").
// - Missing, NaN or infinite values show "–"; so does a zero time (a step that does not happen, e.g.
//   tensor-parallel communication on one GPU). Other zeros show "0 unit"; "-0" never appears (a
//   negative that rounds to zero is zero), nor does a value needing more than nine decimals after
//   its smallest prefix (it is zero).
// - Plurals follow the number: "1 GPU", "4 GPUs", "1 day".
export const NONE = '–';
const MAX_DECIMALS = 9;

const finite = (v) => typeof v === 'number' && Number.isFinite(v);

/** 10^n, built by the same exact steps in C++ (format.cpp) so both round alike. */
function pow10(n) {
  let p = 1;
  for (let i = 0; i < Math.abs(n); i++) p *= 10;
  return n < 0 ? 1 / p : p;
}
const scaleBy = (x, k) => (k >= 0 ? x * pow10(k) : x / pow10(-k));
/** Decimal digits of a non-negative integer-valued double (exact, also beyond 2^53). */
const intDigits = (m) => (m <= Number.MAX_SAFE_INTEGER ? String(m) : BigInt(m).toString());

/** Groups an integer's digits by thousands: "1234567" -> "1,234,567". */
function group(digits) {
  let out = '';
  for (let i = 0; i < digits.length; i++) {
    if (i > 0 && (digits.length - i) % 3 === 0) out += ',';
    out += digits[i];
  }
  return out;
}

/** The text of m / 10^k (m a non-negative integer), integer part grouped; `trim` drops trailing zeros. */
function decimalText(m, k, trim) {
  let d = intDigits(m);
  if (k <= 0) return group(d + '0'.repeat(-k));
  if (d.length <= k) d = '0'.repeat(k + 1 - d.length) + d;
  const int = d.slice(0, d.length - k);
  let frac = d.slice(d.length - k);
  if (trim) frac = frac.replace(/0+$/, '');
  return group(int) + (frac ? `.${frac}` : '');
}

/** x >= 0 rounded to `digits` significant digits (half up): { m, k } with x ~ m / 10^k. */
function roundSig(x, digits) {
  if (x === 0) return { m: 0, k: 0 };
  let e = Math.floor(Math.log10(x));
  if (x >= pow10(e + 1)) e++;
  else if (x < pow10(e)) e--;
  let k = digits - 1 - e;
  let m = Math.floor(scaleBy(x, k) + 0.5);
  if (m >= pow10(digits)) {
    k--;
    m = Math.floor(scaleBy(x, k) + 0.5);
  }
  if (k > MAX_DECIMALS) return { m: 0, k: 0 };
  return { m, k };
}

/** { text, value, zero } of |x| rounded to `digits` significant digits. */
function sig(x, digits) {
  const { m, k } = roundSig(x, digits);
  return { text: decimalText(m, k, true), value: scaleBy(m, -k), zero: m === 0 };
}

const signed = (negative, r) => (negative && !r.zero ? `-${r.text}` : r.text);

/** A plain number, `digits` significant digits: 0.3292 -> "0.329", 123456 -> "123,000". */
export function formatNumber(v, digits = 3) {
  if (!finite(v)) return NONE;
  return signed(v < 0, sig(Math.abs(v), digits));
}

const SI_UP = ['', 'k', 'M', 'G', 'T', 'P', 'E', 'Z', 'Y'];
const SI_DOWN = ['', 'm', 'µ', 'n'];
const BINARY = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB', 'EiB', 'ZiB', 'YiB'];

/** |v| at ladder step `level` (> 0: divided by `base` that often, < 0: times 1000). */
function atLevel(a, level, base) {
  let x = a;
  for (let i = 0; i < level; i++) x /= base;
  for (let i = 0; i > level; i--) x *= 1000;
  return x;
}

/**
 * A value on a unit ladder: `names[i]` is the unit `base`^i times the first, `low` (<= 0) the
 * lowest step (its names in `small`: 1000^-1, 1000^-2, ...). Returns the number and the unit's name.
 */
function ladder(v, digits, base, names, small) {
  if (!finite(v)) return null;
  const a = Math.abs(v);
  const top = names.length - 1;
  const low = -(small.length - 1);
  let level = 0;
  if (a > 0) {
    while (level < top && atLevel(a, level, base) >= 1000) level++;
    while (level > low && atLevel(a, level, base) < 1) level--;
  }
  let r = sig(atLevel(a, level, base), digits);
  if (r.value >= 1000 && level < top) r = sig(atLevel(a, ++level, base), digits);
  if (r.zero) level = 0;
  return { text: signed(v < 0, r), unit: level >= 0 ? names[level] : small[-level] };
}

/** Value with a decimal SI prefix; `small` allows m, µ, n below 1 (300 µWh). */
export function formatSI(v, unit, digits = 3, small = true) {
  const r = ladder(v, digits, 1000, SI_UP, small ? SI_DOWN : ['']);
  return r ? `${r.text} ${r.unit}${unit}` : NONE;
}

export const formatFlops = (v) => formatSI(v, 'FLOP', 3, false);
export const formatFlopRate = (v) => formatSI(v, 'FLOP/s', 3, false);
/** Bandwidth in decimal units, as datasheets give it (3.35 TB/s). */
export const formatBandwidth = (v) => formatSI(v, 'B/s', 3, false);
/** Memory in binary units. */
export function formatBytes(v) {
  const r = ladder(v, 3, 1024, BINARY, ['']);
  return r ? `${r.text} ${r.unit}` : NONE;
}
export const formatJoules = (v) => formatSI(v, 'J');
export const formatWh = (v) => formatSI(v, 'Wh');
export const formatWatts = (v) => formatSI(v, 'W');
/** Mass (CO2): mg, g, kg, t; beyond that, grouped tonnes (never "Gg"). */
export function formatGrams(v) {
  const r = ladder(v, 3, 1000, ['g', 'kg', 't'], ['', 'mg', 'µg']);
  return r ? `${r.text} ${r.unit}` : NONE;
}
/** Events per second with a decimal prefix, e.g. requests: formatPerSecond(2.5, 'req') = "2.5 req/s". */
export const formatPerSecond = (v, unit) => formatSI(v, `${unit}/s`, 3, false);
/** Generated tokens per second. */
export const formatRate = (v) => (finite(v) ? `${formatNumber(v)} tok/s` : NONE);
/** A fraction (0..1) as a percentage: 0.3292 -> "32.9 %". */
export const formatPercent = (v) => (finite(v) ? `${formatNumber(v * 100)} %` : NONE);

/** "1 GPU", "4 GPUs", "1,024 tokens": an integer and the word that goes with it. */
export function plural(n, one, many = `${one}s`) {
  if (!finite(n)) return NONE;
  const text = formatInteger(n);
  return `${text} ${text === '1' ? one : many}`;
}

/** Bits per weight: "4.84 bits", "16 bits". */
export function formatBits(v) {
  if (!finite(v)) return NONE;
  const text = formatNumber(v);
  return `${text} ${text === '1' ? 'bit' : 'bits'}`;
}

// Time: the unit, its size in seconds, and where the next unit takes over (in this unit).
const TIME = [
  ['ns', 1e-9, 1000],
  ['µs', 1e-6, 1000],
  ['ms', 1e-3, 1000],
  ['s', 1, 60],
  ['min', 60, 60],
  ['h', 3600, 24],
  ['days', 86400, 365.25],
  ['years', 31557600, Infinity],
];
const inUnit = (a, i) => (i < 3 ? a * [1e9, 1e6, 1e3][i] : a / TIME[i][1]);
const SINGULAR = { days: 'day', years: 'year' };

/** Seconds in ns, µs, ms, s, min, h, days or years; zero (nothing happens) shows "–". */
export function formatSeconds(s) {
  if (!finite(s) || s === 0) return NONE;
  const a = Math.abs(s);
  let i = TIME.length - 1;
  while (i > 0 && a < TIME[i][1]) i--;
  let r = sig(inUnit(a, i), 3);
  if (r.value >= TIME[i][2]) r = sig(inUnit(a, ++i), 3);
  if (r.zero) return NONE;
  const unit = r.text === '1' ? (SINGULAR[TIME[i][0]] ?? TIME[i][0]) : TIME[i][0];
  return `${signed(s < 0, r)} ${unit}`;
}

/** An integer, exact and grouped: 8192 -> "8,192" (rounded half away from zero). */
export function formatInteger(n) {
  if (!finite(n)) return NONE;
  const m = Math.floor(Math.abs(n) + 0.5);
  return `${n < 0 && m !== 0 ? '-' : ''}${decimalText(m, 0, false)}`;
}

const COUNT = ['', 'K', 'M', 'B', 'T'];
/** A count: exact below a million ("8,192"), then with a suffix and three digits ("8.03B"). */
export function formatCount(n) {
  if (!finite(n)) return NONE;
  const a = Math.abs(n);
  if (a < 1e6) return Number.isInteger(n) ? formatInteger(n) : formatNumber(n);
  const r = ladder(n, 3, 1000, COUNT, ['']);
  return `${r.text}${r.unit}`;
}

/** Money: cents from $0.01, three significant digits below ("$0.00123") and from $10^15. */
export function formatUsd(v) {
  if (!finite(v)) return NONE;
  const a = Math.abs(v);
  let text;
  let zero;
  if (a >= 1e15) {
    // No cents on amounts this absurd (and none exact beyond 2^53 cents).
    text = sig(a, 3).text;
    zero = false;
  } else if (a >= 0.01) {
    const cents = Math.floor(a * 100 + 0.5);
    text = decimalText(cents, 2, false);
    zero = false;
  } else {
    const r = sig(a, 3);
    zero = r.zero;
    text = zero ? '0.00' : r.text;
  }
  return `${v < 0 && !zero ? '-' : ''}$${text}`;
}

const yesNo = (v) => (v ? 'yes' : 'no');

/**
 * Every rule by name: the core's field kinds (defaults().row_fields[].kind) and the display kinds of
 * tests/fixtures/format_cases.json. `unit` is the word of "plural" and the event of "per_second".
 */
const KINDS = {
  count: formatCount,
  int: formatInteger,
  flops: formatFlops,
  'flops/s': formatFlopRate,
  bytes: formatBytes,
  'bytes/s': formatBandwidth,
  seconds: formatSeconds,
  rate: formatRate,
  joules: formatJoules,
  wh: formatWh,
  watts: formatWatts,
  grams: formatGrams,
  usd: formatUsd,
  percent: formatPercent,
  bits: formatBits,
  number: formatNumber,
  per_second: (v, unit) => formatPerSecond(v, unit),
  plural: (v, unit) => plural(v, unit),
};

/** Formats `v` by a rule's name (see KINDS); an unknown kind shows the value as text. */
export function formatAs(kind, v, unit) {
  if (v === null || v === undefined) return NONE;
  if (kind === 'boolean') return typeof v === 'number' && Number.isNaN(v) ? NONE : yesNo(v);
  if (kind === 'bound') {
    if (typeof v === 'string') return v;
    return typeof v === 'number' && Number.isNaN(v) ? NONE : v ? 'compute' : 'memory';
  }
  const f = KINDS[kind];
  if (f) return f(v, unit);
  return String(v);
}

/** Formats a value by the core's field kind (defaults().row_fields[].kind; "number" is cost in USD). */
export function formatByKind(kind, v) {
  return formatAs(kind === 'number' ? 'usd' : kind, v);
}
