// The charts of the page and of the report file (Chart.js 4, tree-shaken). Every plotted number
// comes from the core's report data (fc.reportData: the estimate with its layer table, the
// series over batch size, prompt length and precision, the roofline points, the serving curve);
// each chart is a pure function of that data and a palette to a Chart.js config, so the page's
// charts card and web/src/report/ draw the same charts from the same data.
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
import { show, si, tick } from './app/fmt.js';
import { formatInteger, formatPercent, formatSeconds } from './format.js';

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
export { Chart };

/** The colours of the charts: the CSS custom properties of `root` (the page's, or the report's). */
export function palette(root = document.documentElement) {
  const cs = getComputedStyle(root);
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
    data(d, p) {
      const L = d.estimate.details.flops.layers;
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
    data(d, p) {
      const f = d.estimate.details.flops.forward;
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
    data(d, p) {
      const r = d.estimate;
      const m = r.details.memory;
      const t = m.training;
      const gpu = m.gpu_memory;
      const labels = gpu === null ? ['Needed'] : ['Needed', 'GPU'];
      const parts = t
        ? [
            ['Weights', t.weights],
            ['Gradients', t.gradients],
            ['Optimizer state', t.optimizer_state],
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
    data(d, p) {
      const { peak_flops_per_s: peak, memory_bandwidth_bytes_per_s: bw, ridge_intensity: ridge } = d.roofline;
      const PHASES = { prefill: ['Prefill', p.c[0]], decode_first_step: ['Decode (first step)', p.c[1]] };
      const pts = d.roofline.points.map((q) => ({
        label: PHASES[q.phase][0],
        x: q.intensity,
        y: q.flops_per_s,
        c: PHASES[q.phase][1],
      }));
      const xs = [ridge, ...pts.map((q) => q.x)];
      const lo = 10 ** Math.floor(Math.log10(Math.min(...xs)) - 1);
      const hi = 10 ** Math.ceil(Math.log10(Math.max(...xs)) + 1);
      const roof = [lo, ridge, hi].map((x) => ({ x, y: Math.min(peak, bw * x) }));
      return {
        datasets: [
          {
            label: `Roofline (${si(peak, 'FLOP/s')} ${d.roofline.compute_precision}, ${si(bw, 'B/s')})`,
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
    data(d, p) {
      const { values, rows } = d.series.batch_size;
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
    data(d, p) {
      const { values, rows } = d.series.sequence_length;
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
    data(d, p) {
      const { values, rows } = d.series.precision;
      const perf = d.roofline !== null;
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
    after(options, d) {
      options.scales.y1.display = d.roofline !== null;
    },
  },
};

// What each chart shows (the report's captions; the page's are in index.html).
const CAPTIONS = {
  'chart-layers': 'Forward FLOPs per layer (attention, MLP, norms)',
  'chart-attn-mlp': 'Forward FLOPs by component',
  'chart-memory': "Memory breakdown against the GPU's memory",
  'chart-roofline': 'Roofline (log-log)',
  'chart-batch': 'Latency vs batch size',
  'chart-seq': 'FLOPs and KV cache vs prompt length',
  'chart-precision': 'Memory and decode speed by precision',
};

/** The estimate's charts in order: id, caption, and whether its figures are latency estimates (perf). */
export const CHARTS = Object.entries(SPECS).map(([id, spec]) => ({ id, caption: CAPTIONS[id], perf: !!spec.perf }));

/**
 * The Chart.js config ({type, data, options}) of chart `id` for report data `d` (fc.reportData's
 * object) in palette `p`; null where the chart does not apply (roofline and latency without a GPU).
 */
export function chartConfig(id, d, p) {
  const spec = SPECS[id];
  if (spec.perf && d.roofline === null) return null;
  const options = spec.options(p);
  spec.after?.(options, d);
  return { type: spec.type, data: spec.data(d, p), options };
}

/** Creates every chart; schedule() redraws them once per animation frame from fc.reportData of the latest request. */
export function createCharts(fc) {
  let p = palette();
  const charts = CHARTS.map(({ id }) => {
    const canvas = document.getElementById(id);
    const chart = new Chart(canvas, { type: SPECS[id].type, data: { labels: [], datasets: [] }, options: {} });
    return { id, canvas, chart, figure: canvas.closest('figure') };
  });
  const section = document.querySelector('.charts');
  const noGpu = document.getElementById('charts-nogpu');
  let latest = null;
  let data = null;
  let frame = 0;

  function draw() {
    frame = 0;
    if (!latest) return;
    try {
      data = fc.reportData(latest);
    } catch (e) {
      console.warn(`flopcast: the charts' data: ${e.message}`);
      return;
    }
    for (const c of charts) {
      let cfg = null;
      try {
        cfg = chartConfig(c.id, data, p);
      } catch (e) {
        console.warn(`flopcast: ${c.id}: ${e.message}`);
      }
      c.figure.hidden = cfg === null;
      c.chart.data = cfg?.data ?? { labels: [], datasets: [] };
      if (cfg) c.chart.options = cfg.options;
      c.chart.update('none');
      c.canvas.dataset.rendered = '1';
    }
    noGpu.hidden = data.roofline !== null;
    section.classList.remove('stale');
  }

  return {
    /** Redraws for `request` (the estimate's request; `result` is its estimate, drawn from reportData). */
    schedule(result, request) {
      latest = request;
      if (!frame) frame = document.hidden ? setTimeout(draw, 0) : requestAnimationFrame(draw);
    },
    stale(on) {
      section.classList.toggle('stale', on);
    },
    theme() {
      p = palette();
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
      y1: axis(p, { fmt: formatPercent, title: 'KV cache in use', position: 'right', grid: false }),
    },
    {
      label: (ctx) =>
        `${ctx.dataset.label}: ${ctx.dataset.yAxisID === 'y1' ? formatPercent(ctx.parsed.y) : formatInteger(ctx.parsed.y)} at ${formatSeconds(ctx.parsed.x)}`,
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
 * The serving curve's Chart.js config: p50 and p99 of `metric` against output tokens/s, a point
 * per concurrency of fc.simulate's `points`, with the SLO (seconds, or null) as a dashed line.
 */
export function servingChart({ points, metric, slo }, p) {
  const at = (q) => points.map((pt) => ({ x: pt.output_tokens_per_s, y: pt[metric]?.[q] ?? null, c: pt.concurrency }));
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
  return { type: 'scatter', data: { datasets }, options: latencyConfig(p, metric, { log }) };
}

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
    const cfg = servingChart(args, p);
    lat.chart.options = cfg.options;
    lat.chart.data = cfg.data;
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
