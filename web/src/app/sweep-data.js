// The sweep panel's worker side (sweep-worker.js routes the messages here): it computes every
// point (fc.sweep, in chunks, stopping at a cancel), keeps the numbers, and answers the page with
// what it shows: a sorted order, windows of rows, a chart's series and the CSV / JSON downloads,
// formatted here in chunks and posted as Blob parts, so that the page's thread only shows them.
// The columns are the core's compare row fields (fc.defaults().row_fields); the point order is
// compare.hpp's Cartesian order (model, precision, gpu, batch, sequence, generated tokens).

/** The swept inputs in compare order (outermost first): the request key and its row field. */
export const SWEPT_INPUTS = ['model', 'precision', 'gpu', 'batch_size', 'sequence_length', 'num_generated_tokens'];
const CHUNK = 20000; // points per fc.sweep call and rows per download part
const MAX_SERIES = 12; // a chart draws at most this many groups
const MAX_CHART_POINTS = 2400; // and this many points in all (x values evenly picked), so it draws in a few ms

const tick = () => new Promise((ok) => setTimeout(ok, 0)); // lets a cancel message in

export class Cancelled extends Error {
  constructor() {
    super('Cancelled.');
    this.code = 'cancelled';
  }
}

export function sweepHandlers(fc) {
  const rowFields = () => fc.defaults().row_fields;
  const jobs = new Map(); // message id -> { cancelled }
  let cur = null; // the finished sweep the page shows
  let generation = 0; // a new sweep stops downloads of the old one

  function check(job, gen = generation) {
    if (job.cancelled || gen !== generation) throw new Cancelled();
  }

  /** One cell's value: a number, true/false, 'compute'/'memory', a name, or null (does not apply). */
  function value(s, i, f) {
    const j = s.index[f.key];
    if (j !== undefined) {
      const v = s.values[i * s.stride + j];
      if (Number.isNaN(v)) return null;
      if (f.kind === 'boolean') return v !== 0;
      if (f.kind === 'bound') return v ? 'compute' : 'memory';
      return v;
    }
    const label = s.labels[Math.floor(i / s.inner)];
    return label && label[f.key] !== undefined ? label[f.key] : null;
  }

  /** The number a column sorts by: the value, or a text column's rank among its names. */
  function sortColumn(s, key) {
    const col = new Float64Array(s.total);
    const j = s.index[key];
    if (j !== undefined) {
      for (let i = 0; i < s.total; i++) col[i] = s.values[i * s.stride + j];
      return col;
    }
    const names = s.labels.map((l) => (l[key] === null || l[key] === undefined ? null : String(l[key])));
    const uniq = [...new Set(names.filter((x) => x !== null))].sort((a, b) => a.localeCompare(b));
    const rank = names.map((x) => (x === null ? NaN : uniq.indexOf(x)));
    for (let i = 0; i < s.total; i++) col[i] = rank[Math.floor(i / s.inner)];
    return col;
  }

  async function sweep(msg, job, progress) {
    const gen = ++generation;
    const t0 = performance.now();
    const { request, labels } = msg;
    const total = fc.sweepSize(request);
    const fields = fc.defaults().sweep_fields;
    const stride = fields.length;
    const values = new Float64Array(total * stride);
    let done = 0;
    while (done < total) {
      check(job, gen);
      const r = fc.sweep(request, { offset: done, count: Math.min(CHUNK, total - done), chunk: CHUNK });
      values.set(r.values, done * stride);
      done += r.count;
      progress({ done, total });
      await tick();
    }
    check(job, gen);
    const dims = SWEPT_INPUTS.map((k) => (Array.isArray(request[k]) ? request[k].length : 1));
    const steps = dims.map((_, d) => dims.slice(d + 1).reduce((a, b) => a * b, 1));
    cur = {
      request,
      labels,
      total,
      values,
      stride,
      dims,
      steps,
      inner: steps[2], // points per (model, precision, gpu) label
      index: Object.fromEntries(fields.map((k, j) => [k, j])),
      order: null,
    };
    return { fields, total, count: done, ms: performance.now() - t0 };
  }

  function current() {
    if (!cur) throw new Error('Run a sweep first.');
    return cur;
  }

  /** Sorts the points by one column (not applicable last, ties in sweep order). */
  function sort({ key, dir }) {
    const s = current();
    const t0 = performance.now();
    const col = sortColumn(s, key);
    // A plain array: V8 sorts it (TimSort) far faster than a typed array with a comparator.
    const order = new Array(s.total);
    for (let i = 0; i < s.total; i++) order[i] = i;
    order.sort((a, b) => {
      const x = col[a];
      const y = col[b];
      if (x !== x) return y !== y ? a - b : 1;
      if (y !== y) return -1;
      return dir * (x - y) || a - b;
    });
    s.order = Uint32Array.from(order);
    return { ms: performance.now() - t0 };
  }

  /** A window of rows in the current order: each row's values for `keys` (row field keys). */
  function rows({ offset, count, keys }) {
    const s = current();
    const fields = rowFields().filter((f) => keys.includes(f.key));
    const end = Math.min(s.total, offset + count);
    const out = [];
    for (let r = offset; r < end; r++) {
      const i = s.order ? s.order[r] : r;
      out.push({ point: i, cells: fields.map((f) => value(s, i, f)) });
    }
    return { total: s.total, offset, keys: fields.map((f) => f.key), rows: out };
  }

  /** The value of swept input `d` (a SWEPT_INPUTS index) at point i. */
  function inputAt(s, i, d) {
    const f = rowFields().find((x) => x.key === SWEPT_INPUTS[d]);
    return value(s, i, f);
  }

  /**
   * One series per value of `group` (or one series), y against x, every other swept input at
   * its first value; at most MAX_SERIES groups and MAX_CHART_POINTS points (x values evenly picked).
   */
  function chart({ x, y, group }) {
    const s = current();
    const dx = SWEPT_INPUTS.indexOf(x);
    const dg = group ? SWEPT_INPUTS.indexOf(group) : -1;
    const yField = rowFields().find((f) => f.key === y);
    if (dx < 0 || !yField || (group && (dg < 0 || dg === dx))) throw new Error('Choose x, y and a different group.');
    const nx = s.dims[dx];
    const ng = dg < 0 ? 1 : Math.min(MAX_SERIES, s.dims[dg]);
    const maxX = Math.max(2, Math.floor(MAX_CHART_POINTS / ng));
    const xs =
      nx <= maxX
        ? [...Array(nx).keys()]
        : Array.from({ length: maxX }, (_, k) => Math.round((k * (nx - 1)) / (maxX - 1)));
    const series = [];
    for (let g = 0; g < ng; g++) {
      const base = dg < 0 ? 0 : g * s.steps[dg];
      const points = xs.map((c) => {
        const i = base + c * s.steps[dx];
        const v = value(s, i, yField);
        return { x: inputAt(s, i, dx), y: typeof v === 'boolean' ? Number(v) : v, point: i };
      });
      series.push({ name: dg < 0 ? yField.header : String(inputAt(s, base, dg)), points });
    }
    const fixed = SWEPT_INPUTS.map((k, d) => ({ key: k, d }))
      .filter(({ d }) => d !== dx && d !== dg && s.dims[d] > 1)
      .map(({ key, d }) => ({ key, value: inputAt(s, 0, d) }));
    return {
      series,
      fixed,
      groups: dg < 0 ? 1 : s.dims[dg],
      xValues: nx,
      shownX: xs.length,
    };
  }

  const csvCell = (v) => {
    if (v === null || v === undefined) return '';
    const t = String(v);
    return /[",\n\r]/.test(t) ? `"${t.replace(/"/g, '""')}"` : t;
  };

  /** Every point in the sweep's order with every column, posted as Blob parts of CHUNK rows. */
  async function download({ format }, job, progress) {
    const s = current();
    const gen = generation;
    const fields = rowFields();
    const csv = format === 'csv';
    let done = 0;
    let first = true;
    progress({ done, total: s.total, part: new Blob([csv ? `${fields.map((f) => f.key).join(',')}\n` : '[\n']) });
    while (done < s.total) {
      check(job, gen);
      const end = Math.min(s.total, done + CHUNK);
      const lines = [];
      for (let i = done; i < end; i++) {
        if (csv) lines.push(fields.map((f) => csvCell(value(s, i, f))).join(','));
        else {
          const row = {};
          for (const f of fields) row[f.key] = value(s, i, f);
          lines.push(JSON.stringify(row));
        }
      }
      const text = csv ? `${lines.join('\n')}\n` : `${first ? '' : ',\n'}${lines.join(',\n')}`;
      first = false;
      done = end;
      progress({ done, total: s.total, part: new Blob([text]) });
      await tick();
    }
    check(job, gen);
    if (!csv) progress({ done, total: s.total, part: new Blob(['\n]\n']) });
    return { rows: done };
  }

  return {
    jobs,
    handlers: { sweep, sort, rows, chart, download },
    cancel(target) {
      const job = jobs.get(target);
      if (job) job.cancelled = true;
      return { cancelled: Boolean(job) };
    },
  };
}
