// The page's charts (Chart.js 4, tree-shaken). Every plotted number comes from the core:
// the estimate result, or fc.compare over one varied input (batch, prompt length, precision).
import {
  Chart,
  BarController,
  BarElement,
  DoughnutController,
  ArcElement,
  LineController,
  LineElement,
  PointElement,
  ScatterController,
  CategoryScale,
  LinearScale,
  LogarithmicScale,
  Legend,
  Tooltip,
} from 'chart.js';
import { FlopcastError } from './engine.js';
import { show, si, tick } from './app/fmt.js';
import { formatSeconds } from './format.js';

Chart.register(
  BarController,
  BarElement,
  DoughnutController,
  ArcElement,
  LineController,
  LineElement,
  PointElement,
  ScatterController,
  CategoryScale,
  LinearScale,
  LogarithmicScale,
  Legend,
  Tooltip,
);
Chart.defaults.font.family = 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
Chart.defaults.animation = false;

// The points along each varied axis (the x values of the charts; the core computes each point).
const BATCHES = [1, 2, 4, 8, 16, 32, 64, 128, 256];
const SEQS = [128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768];

function palette() {
  const cs = getComputedStyle(document.documentElement);
  const v = (n) => cs.getPropertyValue(n).trim();
  return {
    text: v('--muted'),
    grid: v('--grid'),
    panel: v('--panel'),
    c: [1, 2, 3, 4, 5, 6].map((i) => v(`--chart-${i}`)),
  };
}

const isPow10 = (x) => x > 0 && Math.abs(Math.log10(x) - Math.round(Math.log10(x))) < 1e-9;

function axis(p, { type = 'linear', title, fmt, stacked, position, grid = true, display = true } = {}) {
  const a = {
    type,
    display,
    stacked,
    position,
    title: title ? { display: true, text: title, color: p.text } : undefined,
    grid: { color: p.grid, display: grid },
    border: { color: p.grid },
    ticks: fmt && type !== 'category' ? { color: p.text, callback: (v) => fmt(v) } : { color: p.text },
  };
  if (type === 'logarithmic') {
    a.afterBuildTicks = (scale) => {
      const major = scale.ticks.filter((t) => isPow10(t.value));
      if (major.length >= 2) scale.ticks = major;
    };
  }
  return a;
}

function base(p, scales, { legend = true, label } = {}) {
  return {
    responsive: true,
    maintainAspectRatio: false,
    animation: false,
    interaction: { mode: 'nearest', intersect: false },
    scales,
    plugins: {
      legend: { display: legend, labels: { color: p.text, boxWidth: 12, boxHeight: 12 } },
      tooltip: { callbacks: label ? { label } : {} },
    },
  };
}

const tipBy = (fmt) => (ctx) => `${ctx.dataset.label}: ${show(fmt, ctx.parsed.y ?? ctx.parsed)}`;
const tipX = (fmt) => (ctx) => `${ctx.dataset.label}: ${show(fmt, ctx.parsed.x)}`;

/** fc.compare over `list` for `key`; entries the core rejects (e.g. fp8 training) are left out. */
function compareOver(fc, req, key, list) {
  let values = list.slice();
  while (values.length) {
    try {
      return { values, rows: fc.compare({ ...req, [key]: values }) };
    } catch (e) {
      if (!(e instanceof FlopcastError)) throw e;
      const m = new RegExp(`^/${key}/(\\d+)$`).exec(e.pointer);
      if (m) values = values.filter((_, i) => i !== Number(m[1]));
      else if (e.pointer === `/${key}`) return oneByOne(fc, req, key, values);
      else return { values: [], rows: [] };
    }
  }
  return { values: [], rows: [] };
}
function oneByOne(fc, req, key, list) {
  const out = { values: [], rows: [] };
  for (const v of list) {
    try {
      out.rows.push(fc.compare({ ...req, [key]: [v] })[0]);
      out.values.push(v);
    } catch (e) {
      if (!(e instanceof FlopcastError)) throw e;
    }
  }
  return out;
}

const line = (label, data, color, extra = {}) => ({
  label,
  data,
  borderColor: color,
  backgroundColor: color,
  pointRadius: 3,
  borderWidth: 2,
  spanGaps: false,
  ...extra,
});
const bar = (label, data, color, extra = {}) => ({ label, data, backgroundColor: color, borderColor: color, ...extra });

const SPECS = {
  'chart-layers': {
    type: 'bar',
    options: (p) =>
      base(
        p,
        {
          x: axis(p, { type: 'category', stacked: true, title: 'layer', grid: false }),
          y: axis(p, { stacked: true, fmt: tick('FLOP'), title: 'forward FLOPs' }),
        },
        { label: tipBy('flops') },
      ),
    data(r, req, p) {
      const L = r.details.flops.layers;
      const enc = L.some((l) => l.stack === 'encoder');
      return {
        labels: L.map((l) => (enc ? `${l.stack === 'encoder' ? 'enc' : 'dec'} ${l.layer}` : String(l.layer))),
        datasets: [
          bar(
            'Attention',
            L.map((l) => l.attention),
            p.c[0],
          ),
          bar(
            'MLP',
            L.map((l) => l.mlp),
            p.c[1],
          ),
          bar(
            'Norms',
            L.map((l) => l.layernorm),
            p.c[2],
          ),
          ...(L.some((l) => l.mixer > 0)
            ? [
                bar(
                  'SSM / linear',
                  L.map((l) => l.mixer),
                  p.c[5],
                ),
              ]
            : []),
        ],
      };
    },
  },
  'chart-attn-mlp': {
    type: 'doughnut',
    options: (p) => ({
      ...base(p, {}, { label: (ctx) => `${ctx.label}: ${show('flops', ctx.parsed)}` }),
      plugins: {
        legend: { position: 'right', labels: { color: p.text, boxWidth: 12, boxHeight: 12 } },
        tooltip: { callbacks: { label: (ctx) => `${ctx.label}: ${show('flops', ctx.parsed)}` } },
      },
    }),
    data(r, req, p) {
      const f = r.details.flops.forward;
      return {
        labels: ['Attention', 'MLP', 'Norms', 'Embedding', 'Output head', 'SSM / linear'],
        datasets: [
          {
            label: 'forward FLOPs',
            data: [f.attention, f.mlp, f.layernorm, f.embedding, f.output_head, f.mixer],
            backgroundColor: p.c.slice(0, 6),
            borderColor: p.panel,
            borderWidth: 2,
          },
        ],
      };
    },
  },
  'chart-memory': {
    type: 'bar',
    options: (p) => ({
      ...base(
        p,
        {
          x: axis(p, { stacked: true, fmt: tick('B'), title: 'bytes' }),
          y: axis(p, { type: 'category', stacked: true, grid: false }),
        },
        { label: tipX('bytes') },
      ),
      indexAxis: 'y',
    }),
    data(r, req, p) {
      const m = r.details.memory;
      const t = m.training;
      const gpu = m.gpu_memory;
      const labels = gpu === null ? ['Needed'] : ['Needed', 'GPU'];
      const parts = t
        ? [
            ['Weights', t.weights],
            ['Gradients', t.gradients],
            ['fp32 master copy', t.master_weights],
            ['Optimizer moments', t.optimizer_moments],
            ['Activations (est.)', t.activations],
          ]
        : [
            ['Weights', m.weights],
            ['KV cache', m.kv_cache],
            ['Activations (est.)', m.activations],
          ];
      const datasets = parts.map(([label, v], i) => bar(label, [v, null], p.c[i]));
      if (gpu !== null) datasets.push(bar(`GPU memory (${r.gpu})`, [null, gpu], p.c[5]));
      return { labels, datasets };
    },
  },
  'chart-roofline': {
    type: 'scatter',
    perf: true,
    options: (p) =>
      base(
        p,
        {
          x: axis(p, { type: 'logarithmic', fmt: tick('FLOP/B'), title: 'arithmetic intensity (FLOP/byte)' }),
          y: axis(p, { type: 'logarithmic', fmt: tick('FLOP/s'), title: 'attained FLOP/s' }),
        },
        { label: (ctx) => `${ctx.dataset.label}: ${si(ctx.parsed.x, 'FLOP/B')}, ${si(ctx.parsed.y, 'FLOP/s')}` },
      ),
    data(r, req, p) {
      const f = r.details.performance;
      const peak = f.peak_flops_per_s;
      const bw = f.memory_bandwidth_bytes_per_s;
      const pts = [
        { label: 'Prefill', x: f.prefill_flops / f.prefill_bytes, y: f.prefill_flops / f.prefill_latency_s, c: p.c[0] },
      ];
      if (f.decode_first_step_flops !== null)
        pts.push({
          label: 'Decode (first step)',
          x: f.decode_first_step_flops / f.decode_first_step_bytes,
          y: f.decode_first_step_flops / f.decode_first_step_s,
          c: p.c[1],
        });
      const ridge = peak / bw;
      const xs = [ridge, ...pts.map((q) => q.x)];
      const lo = 10 ** Math.floor(Math.log10(Math.min(...xs)) - 1);
      const hi = 10 ** Math.ceil(Math.log10(Math.max(...xs)) + 1);
      const roof = [lo, ridge, hi].map((x) => ({ x, y: Math.min(peak, bw * x) }));
      return {
        datasets: [
          {
            label: `Roofline (${si(peak, 'FLOP/s')} ${f.compute_precision}, ${si(bw, 'B/s')})`,
            data: roof,
            showLine: true,
            pointRadius: 0,
            borderColor: p.c[5],
            backgroundColor: p.c[5],
            borderWidth: 2,
          },
          ...pts.map((q) => ({
            label: q.label,
            data: [{ x: q.x, y: q.y }],
            pointRadius: 7,
            pointHoverRadius: 9,
            backgroundColor: q.c,
            borderColor: q.c,
          })),
        ],
      };
    },
  },
  'chart-batch': {
    type: 'line',
    perf: true,
    options: (p) =>
      base(
        p,
        {
          x: axis(p, { type: 'category', title: 'batch size', grid: false }),
          y: axis(p, { type: 'logarithmic', fmt: formatSeconds, title: 'seconds' }),
        },
        { label: tipBy('seconds') },
      ),
    data(r, req, p, fc) {
      const { values, rows } = compareOver(fc, req, 'batch_size', BATCHES);
      return {
        labels: values.map(String),
        datasets: [
          line(
            'Prefill (TTFT)',
            rows.map((x) => x.prefill_latency_s),
            p.c[0],
          ),
          line(
            'Decode per token',
            rows.map((x) => x.decode_latency_per_token_s),
            p.c[1],
          ),
        ],
      };
    },
  },
  'chart-seq': {
    type: 'line',
    options: (p) =>
      base(
        p,
        {
          x: axis(p, { type: 'category', title: 'prompt tokens', grid: false }),
          y: axis(p, { type: 'logarithmic', fmt: tick('FLOP'), title: 'forward FLOPs', position: 'left' }),
          y1: axis(p, { type: 'logarithmic', fmt: tick('B'), title: 'KV cache', position: 'right', grid: false }),
        },
        {
          label: (ctx) =>
            `${ctx.dataset.label}: ${show(ctx.dataset.yAxisID === 'y1' ? 'bytes' : 'flops', ctx.parsed.y)}`,
        },
      ),
    data(r, req, p, fc) {
      const { values, rows } = compareOver(fc, req, 'sequence_length', SEQS);
      return {
        labels: values.map(String),
        datasets: [
          line(
            'Forward FLOPs',
            rows.map((x) => x.forward_flops),
            p.c[0],
            { yAxisID: 'y' },
          ),
          line(
            'KV cache',
            rows.map((x) => x.kv_cache),
            p.c[3],
            { yAxisID: 'y1', borderDash: [6, 4] },
          ),
        ],
      };
    },
  },
  'chart-precision': {
    type: 'bar',
    options: (p) =>
      base(
        p,
        {
          x: axis(p, { type: 'category', title: 'precision', grid: false }),
          y: axis(p, { fmt: tick('B'), title: 'memory', position: 'left' }),
          y1: axis(p, { fmt: (v) => `${si(v, '', 2)}`, title: 'decode tok/s', position: 'right', grid: false }),
        },
        {
          label: (ctx) =>
            `${ctx.dataset.label}: ${show(ctx.dataset.yAxisID === 'y1' ? 'rate' : 'bytes', ctx.parsed.y)}`,
        },
      ),
    data(r, req, p, fc) {
      const { values, rows } = compareOver(fc, req, 'precision', fc.precisions());
      const perf = r.details.performance !== null;
      const datasets = [
        bar(
          'Memory',
          rows.map((x) => x.memory),
          p.c[2],
          { yAxisID: 'y' },
        ),
      ];
      if (perf)
        datasets.push(
          bar(
            'Decode tok/s',
            rows.map((x) => x.decode_tokens_per_second),
            p.c[4],
            { yAxisID: 'y1' },
          ),
        );
      return { labels: values, datasets };
    },
    after(chart, r) {
      chart.options.scales.y1.display = r.details.performance !== null;
    },
  },
};

/** Creates every chart; schedule() redraws them once per animation frame with the latest result. */
export function createCharts(fc) {
  let p = palette();
  const charts = Object.entries(SPECS).map(([id, spec]) => {
    const canvas = document.getElementById(id);
    const chart = new Chart(canvas, { type: spec.type, data: { labels: [], datasets: [] }, options: spec.options(p) });
    return { id, spec, canvas, chart, figure: canvas.closest('figure') };
  });
  const section = document.querySelector('.charts');
  const noGpu = document.getElementById('charts-nogpu');
  let latest = null;
  let frame = 0;

  function draw() {
    frame = 0;
    if (!latest) return;
    const { result, request } = latest;
    const perf = result.details.performance !== null;
    for (const c of charts) {
      const off = c.spec.perf && !perf;
      c.figure.hidden = off;
      try {
        c.chart.data = off ? { labels: [], datasets: [] } : c.spec.data(result, request, p, fc);
      } catch (e) {
        c.chart.data = { labels: [], datasets: [] };
        console.warn(`flopcast: ${c.id}: ${e.message}`);
      }
      c.spec.after?.(c.chart, result);
      c.chart.update('none');
      c.canvas.dataset.rendered = '1';
    }
    noGpu.hidden = perf;
    section.classList.remove('stale');
  }

  return {
    schedule(result, request) {
      latest = { result, request };
      if (!frame) frame = document.hidden ? setTimeout(draw, 0) : requestAnimationFrame(draw);
    },
    stale(on) {
      section.classList.toggle('stale', on);
    },
    theme() {
      p = palette();
      for (const c of charts) c.chart.options = c.spec.options(p);
      draw();
    },
  };
}

// ---------- the serving simulation's charts (app/serve.js draws them from fc.simulate's result) ----------
const METRIC_NAMES = { ttft_s: 'TTFT', tpot_s: 'TPOT', itl_s: 'ITL', e2e_s: 'E2E latency' };

function latencyConfig(p, metric, { log }) {
  const name = METRIC_NAMES[metric] ?? metric;
  return base(
    p,
    {
      x: axis(p, { type: 'logarithmic', fmt: tick('tok/s'), title: 'output tokens/s (all requests)' }),
      y: axis(p, { type: log ? 'logarithmic' : 'linear', fmt: tick('s'), title: name }),
    },
    {
      label: (ctx) =>
        ctx.raw.c === undefined
          ? `${ctx.dataset.label}`
          : `${ctx.dataset.label}: ${formatSeconds(ctx.parsed.y)} at ${si(ctx.parsed.x, 'tok/s')} (concurrency ${ctx.raw.c})`,
    },
  );
}

function timelineConfig(p) {
  return base(
    p,
    {
      x: axis(p, { fmt: tick('s'), title: 'time since the first request' }),
      y: axis(p, { fmt: (v) => String(v), title: 'requests', position: 'left' }),
      y1: axis(p, { fmt: (v) => `${Math.round(v * 100)} %`, title: 'KV cache in use', position: 'right', grid: false }),
    },
    {
      label: (ctx) =>
        `${ctx.dataset.label}: ${ctx.dataset.yAxisID === 'y1' ? `${(ctx.parsed.y * 100).toFixed(1)} %` : ctx.parsed.y} at ${formatSeconds(ctx.parsed.x)}`,
    },
  );
}

const curve = (label, data, color, extra = {}) => ({
  label,
  data,
  showLine: true,
  borderColor: color,
  backgroundColor: color,
  pointRadius: 4,
  pointHoverRadius: 6,
  borderWidth: 2,
  ...extra,
});

/**
 * The serving panel's charts on #chart-sim-latency and #chart-sim-timeline. latency(): p50 and
 * p99 of a metric against output tokens/s, a point per concurrency, with the SLO as a dashed
 * line; timeline(): one point's running / waiting requests and KV utilisation over time.
 */
export function createServeCharts() {
  let p = palette();
  const make = (id, type) => {
    const canvas = document.getElementById(id);
    return { canvas, chart: new Chart(canvas, { type, data: { datasets: [] }, options: {} }) };
  };
  const lat = make('chart-sim-latency', 'scatter');
  const tl = make('chart-sim-timeline', 'scatter');
  let last = { latency: null, timeline: null };

  function latency(args) {
    last.latency = args;
    const { points, metric, slo } = args;
    const at = (q) =>
      points.map((pt) => ({ x: pt.output_tokens_per_s, y: pt[metric]?.[q] ?? null, c: pt.concurrency }));
    const p50 = at('p50').filter((d) => d.x > 0 && d.y !== null);
    const p99 = at('p99').filter((d) => d.x > 0 && d.y !== null);
    const ys = [...p50, ...p99].map((d) => d.y).filter((y) => y > 0);
    const log = ys.length > 1 && Math.max(...ys) / Math.min(...ys) > 20;
    const datasets = [curve('p50', p50, p.c[0]), curve('p99', p99, p.c[3], { borderDash: [6, 4] })];
    const xs = p50.map((d) => d.x);
    if (slo !== null && slo !== undefined && xs.length)
      datasets.push(
        curve(
          `SLO ${formatSeconds(slo)}`,
          [
            { x: Math.min(...xs), y: slo },
            { x: Math.max(...xs), y: slo },
          ],
          p.c[5],
          { pointRadius: 0, pointHoverRadius: 0, borderDash: [2, 3], borderWidth: 2 },
        ),
      );
    lat.chart.options = latencyConfig(p, metric, { log });
    lat.chart.data = { datasets };
    lat.chart.update('none');
    lat.canvas.dataset.rendered = '1';
  }

  function timeline(point) {
    last.timeline = point;
    const T = point?.timeline ?? [];
    const series = (key) => T.map((s) => ({ x: s.t_s, y: s[key] }));
    tl.chart.options = timelineConfig(p);
    tl.chart.data = {
      datasets: [
        curve('Running', series('running'), p.c[0], { pointRadius: 0, yAxisID: 'y' }),
        curve('Waiting', series('waiting'), p.c[2], { pointRadius: 0, yAxisID: 'y' }),
        curve('KV cache in use', series('kv_utilization'), p.c[3], {
          pointRadius: 0,
          yAxisID: 'y1',
          borderDash: [6, 4],
        }),
      ],
    };
    tl.chart.update('none');
    tl.canvas.dataset.rendered = '1';
  }

  return {
    latency,
    timeline,
    theme() {
      p = palette();
      if (last.latency) latency(last.latency);
      if (last.timeline) timeline(last.timeline);
    },
  };
}
