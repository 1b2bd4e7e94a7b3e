// Display formatting only: values arrive in SI base units from the core and are shown with
// units here (decimal prefixes, except memory: binary GiB as vendors sell it and the CLI prints it,
// an "80 GB" A100 is 80 GiB).
const prefixes = ['', 'k', 'M', 'G', 'T', 'P', 'E', 'Z'];

function scaled(v, unit, digits = 3) {
  if (v === null || v === undefined || Number.isNaN(v)) return '–';
  let i = 0;
  let x = v;
  while (Math.abs(x) >= 1000 && i < prefixes.length - 1) {
    x /= 1000;
    i++;
  }
  return `${x.toFixed(digits)} ${prefixes[i]}${unit}`;
}

export const formatFlops = (v) => scaled(v, 'FLOP');
const binary = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB', 'EiB'];
export function formatBytes(v) {
  if (v === null || v === undefined || Number.isNaN(v)) return '–';
  let i = 0;
  let x = v;
  while (Math.abs(x) >= 1024 && i < binary.length - 1) {
    x /= 1024;
    i++;
  }
  return `${x.toFixed(2)} ${binary[i]}`;
}
export const formatRate = (v) => (v === null || Number.isNaN(v) ? '–' : `${v.toFixed(1)} tok/s`);
/** Events per second with a decimal prefix, e.g. requests: formatPerSecond(2.5, 'req') = "2.50 req/s". */
export const formatPerSecond = (v, unit) =>
  v === null || v === undefined || Number.isNaN(v) ? '–' : scaled(v, `${unit}/s`, 2);
/** A fraction (0..1) as a percentage. */
export const formatPercent = (v) =>
  v === null || v === undefined || Number.isNaN(v) ? '–' : `${(v * 100).toFixed(1)} %`;
export const formatJoules = (v) => scaled(v, 'J', 2);
export function formatSeconds(s) {
  if (s === null || s === undefined || Number.isNaN(s)) return '–';
  if (s < 1e-3) return `${(s * 1e6).toFixed(2)} µs`;
  if (s < 1) return `${(s * 1e3).toFixed(2)} ms`;
  if (s < 3600) return `${s.toFixed(2)} s`;
  return `${(s / 3600).toFixed(2)} h`;
}
export function formatCount(n) {
  if (n === null || n === undefined || Number.isNaN(n)) return '–';
  if (n >= 1e12) return `${(n / 1e12).toFixed(2)}T`;
  if (n >= 1e9) return `${(n / 1e9).toFixed(2)}B`;
  if (n >= 1e6) return `${(n / 1e6).toFixed(1)}M`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(1)}K`;
  return String(n);
}
export const formatInteger = (n) => (n === null || n === undefined ? '–' : Math.round(n).toLocaleString('en-US'));
export const formatUsd = (v) =>
  v === null || Number.isNaN(v) ? '–' : `$${v < 0.01 ? v.toPrecision(3) : v.toFixed(2)}`;

/** Formats a value by the core's field kind (defaults().row_fields[].kind). */
export function formatByKind(kind, v) {
  switch (kind) {
    case 'count':
      return formatCount(v);
    case 'flops':
      return formatFlops(v);
    case 'bytes':
      return formatBytes(v);
    case 'seconds':
      return formatSeconds(v);
    case 'rate':
      return formatRate(v);
    case 'joules':
      return formatJoules(v);
    case 'boolean':
      return v === null || Number.isNaN(v) ? '–' : v ? 'yes' : 'no';
    case 'bound':
      return v === null || Number.isNaN(v) ? '–' : typeof v === 'string' ? v : v ? 'compute' : 'memory';
    case 'number':
      return formatUsd(v);
    default:
      return v === null || v === undefined ? '–' : String(v);
  }
}
