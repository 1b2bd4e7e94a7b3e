// The Operators card: the core's per-operator tables (details.operators of an estimate with
// operator_table: true) for the prefill and one decode step, sortable, and a roofline chart with
// one point per operator. Loaded on first view (panels.js); every figure comes from the core.
import { createPlot } from '../plot.js';
import { show, si, tick } from './fmt.js';

/** The columns: key, header, the row's value, how it is shown, whether it sorts as text. */
const COLUMNS = [
  { key: 'name', head: 'Operator', text: true },
  { key: 'layers', head: 'Layers', fmt: 'int' },
  { key: 'flops', head: 'FLOPs', fmt: 'flops' },
  { key: 'bytes', head: 'Bytes', fmt: 'bytes' },
  { key: 'intensity', head: 'FLOP/B', fmt: 'intensity' },
  { key: 'bound', head: 'Bound', text: true },
  { key: 'time_s', head: 'Time', fmt: 'seconds' },
  { key: 'share', head: 'Share', fmt: 'share' },
];

/** A row's key: its name and layer group ("q_proj@0"; "lm_head@model" for once-per-model rows). */
export const rowKey = (row) => `${row.name}@${row.group ?? 'model'}`;

function display(col, row, groups) {
  const v = row[col.key];
  if (col.key === 'name') return groups > 1 && row.group !== null ? `${v} · group ${row.group}` : v;
  if (v === null || v === undefined) return '–';
  if (col.fmt === 'intensity') return si(v, 'FLOP/B');
  if (col.fmt === 'share') return `${(v * 100).toPrecision(3)}%`;
  return col.text ? String(v) : show(col.fmt, v);
}

function palette() {
  const cs = getComputedStyle(document.documentElement);
  const v = (n) => cs.getPropertyValue(n).trim();
  return { text: v('--muted'), grid: v('--grid'), c: [1, 2, 3, 4, 5, 6].map((i) => v(`--chart-${i}`)) };
}

/**
 * Sets up the card in `root` (the #operators section). update(req) estimates req with the
 * operator tables and shows them (deferred off the input event, one estimate per burst).
 */
export function initOps({ fc, root }) {
  const q = (sel) => root.querySelector(sel);
  const table = q('#ops-table');
  const status = q('#ops-status');
  const canvas = q('#chart-ops');
  const buttons = { prefill: q('#ops-prefill'), decode: q('#ops-decode') };
  let ops = null;
  let pass = 'prefill';
  let sort = { key: null, dir: 1 };
  let chart = null;
  const plotted = () => chart?.canvas ?? canvas; // the canvas showing the chart
  let pending = null;
  let computed = 0;

  const rows = () => ops?.[pass] ?? [];

  function renderTable() {
    const list = rows().slice();
    if (sort.key) {
      const col = COLUMNS.find((c) => c.key === sort.key);
      list.sort((a, b) => {
        const x = a[sort.key];
        const y = b[sort.key];
        if (x === y) return 0;
        if (x === null) return 1;
        if (y === null) return -1;
        return (col.text ? String(x).localeCompare(String(y)) : x - y) * sort.dir;
      });
    }
    const groups = new Set(
      rows()
        .map((r) => r.group)
        .filter((g) => g !== null),
    ).size;
    const head = document.createElement('tr');
    for (const col of COLUMNS) {
      const th = document.createElement('th');
      th.scope = 'col';
      th.className = col.text ? 'text' : '';
      const b = document.createElement('button');
      b.type = 'button';
      b.textContent = col.head;
      b.dataset.sort = col.key;
      th.append(b);
      if (sort.key === col.key) th.setAttribute('aria-sort', sort.dir > 0 ? 'ascending' : 'descending');
      head.append(th);
    }
    table.tHead.replaceChildren(head);
    table.tBodies[0].replaceChildren(
      ...list.map((row) => {
        const tr = document.createElement('tr');
        const key = rowKey(row);
        tr.dataset.op = key;
        for (const col of COLUMNS) {
          const td = document.createElement(col.key === 'name' ? 'th' : 'td');
          if (col.key === 'name') td.scope = 'row';
          td.className = col.text ? 'text' : '';
          td.textContent = display(col, row, groups);
          td.setAttribute(`data-op-${col.key.replace('_s', '')}`, key);
          td.dataset.value = row[col.key] === null ? '' : String(row[col.key]);
          if (col.key === 'name') td.title = `${row.layers} layer${row.layers === 1 ? '' : 's'}`;
          tr.append(td);
        }
        return tr;
      }),
    );
  }

  function renderChart() {
    const dev = ops?.device;
    const list = rows().filter((r) => r.flops > 0 && r.bytes > 0 && r.time_s > 0);
    root.dataset.points = String(list.length);
    q('#ops-chart').hidden = !dev;
    if (!dev) {
      chart?.draw(null, palette());
      plotted().dataset.pointNames = JSON.stringify(list.map(rowKey));
      return;
    }
    const p = palette();
    const ce = pass === 'prefill' ? dev.prefill_compute_efficiency : dev.decode_compute_efficiency;
    const peak = dev.peak_flops_per_s * ce;
    const bw = dev.memory_bandwidth_bytes_per_s * dev.mem_efficiency;
    const ridge = peak / bw;
    const xs = [ridge, ...list.map((r) => r.intensity)];
    const lo = 10 ** Math.floor(Math.log10(Math.min(...xs)) - 0.5);
    const hi = 10 ** Math.ceil(Math.log10(Math.max(...xs)) + 0.5);
    const spec = {
      kind: 'xy',
      x: { type: 'log', fmt: tick('FLOP/B'), title: 'arithmetic intensity (FLOP/byte)' },
      // Room above the compute roof for the labels of the points on it.
      axes: { y: { type: 'log', fmt: tick('FLOP/s'), title: 'attained FLOP/s', max: peak * 4 } },
      series: [
        {
          label: `Memory roof (${si(bw, 'B/s')} achieved)`,
          points: [
            { x: lo, y: bw * lo },
            { x: ridge, y: peak },
          ],
          style: 'line',
          radius: 0,
          color: p.c[5],
          value: (v) => si(v, 'FLOP/s'),
        },
        {
          label: `Compute roof (${si(peak, 'FLOP/s')} ${dev.compute_precision} achieved)`,
          points: [
            { x: ridge, y: peak },
            { x: hi, y: peak },
          ],
          style: 'line',
          radius: 0,
          dash: [6, 4],
          color: p.c[4],
          value: (v) => si(v, 'FLOP/s'),
        },
        ...['compute', 'memory'].map((b, i) => ({
          label: `${b === 'compute' ? 'Compute' : 'Memory'}-bound operators`,
          points: list
            .filter((r) => r.bound === b)
            .map((r) => ({ x: r.intensity, y: r.flops / r.time_s, label: r.name })),
          style: 'points',
          radius: 5,
          pointLabels: true,
          color: p.c[i],
          value: (v) => si(v, 'FLOP/s'),
        })),
      ],
    };
    chart ??= createPlot(canvas);
    chart.draw(spec, p);
    plotted().dataset.pointNames = JSON.stringify(list.map(rowKey));
  }

  function render() {
    for (const [k, b] of Object.entries(buttons)) b.setAttribute('aria-pressed', String(k === pass));
    buttons.decode.disabled = !ops?.decode;
    if (!ops) return;
    status.textContent = ops.device ? '' : 'Choose a GPU to see each operator’s bound and time and the roofline.';
    renderTable();
    renderChart();
    root.dataset.pass = pass;
  }

  for (const [k, b] of Object.entries(buttons))
    b.addEventListener('click', () => {
      pass = k;
      render();
    });
  table.addEventListener('click', (e) => {
    const b = e.target.closest('button[data-sort]');
    if (!b) return;
    const key = b.dataset.sort;
    sort = sort.key === key ? { key, dir: -sort.dir } : { key, dir: COLUMNS.find((c) => c.key === key).text ? 1 : -1 };
    renderTable();
  });

  function compute(req) {
    const t0 = performance.now();
    try {
      ops = fc.estimate({ ...req, operator_table: true }).details.operators;
      if (pass === 'decode' && !ops.decode) pass = 'prefill';
      root.classList.remove('stale');
      render();
      root.dataset.ms = (performance.now() - t0).toFixed(1); // main-thread time of the estimate and its drawing
      root.dataset.ready = String(++computed); // how many estimates it has shown
    } catch (e) {
      root.classList.add('stale');
      status.textContent = `The operator tables could not be computed: ${e.message}`;
    }
  }
  // The chart's colours follow the page's theme.
  matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => {
    if (ops) renderChart();
  });
  return {
    update(req) {
      clearTimeout(pending);
      pending = setTimeout(() => compute(req), 0);
    },
  };
}
