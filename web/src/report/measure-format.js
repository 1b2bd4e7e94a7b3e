// How the measurement report shows a value in its unit (the suite's "s", "B" and others);
// apart from the renderer so that tests can import it without the chart code.
import { formatBytes, formatNumber, formatSeconds, NONE } from '../format.js';

/** A value in its unit ("s", "B"), as the tables show it. */
export function formatMeasure(unit, v) {
  if (typeof v !== 'number' || !Number.isFinite(v)) return NONE;
  if (unit === 's') return formatSeconds(v);
  if (unit === 'B') return formatBytes(v);
  return `${formatNumber(v)} ${unit}`;
}
