// The charts of the page and of the report file (drawn by ./plot.js with uPlot). Every plotted
// number comes from the core's report data (fc.reportData: the estimate with its layer table, the
// series over batch size, prompt length and precision, the roofline points, the serving curve);
// each chart is a pure function of that data and a palette to a chart spec (./plot.js), so the
// page's charts card and web/src/report/ draw the same charts from the same data.
import { createPlot } from './plot.js';
import { BYTE_STEPS, show, si, tick, tickBytes } from './app/fmt.js';
import { formatInteger, formatPercent, formatSeconds } from './format.js';

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

const category = (labels, title) => ({ type: 'category', labels, title });
const bar = (label, values, color, extra = {}) => ({ label, values, color, style: 'bar', ...extra });
const line = (label, values, color, extra = {}) => ({ label, values, color, style: 'line', radius: 3, ...extra });
const xy = (x, axes, series) => ({ kind: 'xy', x, axes, series });

const SPECS = {
  'chart-layers': {
    data(d, p) {
      const L = d.estimate.details.flops.layers;
      const enc = L.some((l) => l.stack === 'encoder');
      const stacked = (label, key, color) =>
        bar(
          label,
          L.map((l) => l[key]),
          color,
          { stack: 'flops' },
        );
      return xy(
        category(
          L.map((l) => (enc ? `${l.stack === 'encoder' ? 'enc' : 'dec'} ${l.layer}` : String(l.layer))),
          'layer',
        ),
        { y: { type: 'linear', fmt: tick('FLOP'), title: 'forward FLOPs' } },
        [
          stacked('Attention', 'attention', p.c[0]),
          stacked('MLP', 'mlp', p.c[1]),
          stacked('Norms', 'layernorm', p.c[2]),
          ...(L.some((l) => l.mixer > 0) ? [stacked('SSM / linear', 'mixer', p.c[5])] : []),
        ].map((s) => ({ ...s, value: (v) => show('flops', v) })),
      );
    },
  },
  'chart-attn-mlp': {
    data(d, p) {
      const f = d.estimate.details.flops.forward;
      const names = ['Attention', 'MLP', 'Norms', 'Embedding', 'Output head', 'SSM / linear'];
      const values = [f.attention, f.mlp, f.layernorm, f.embedding, f.output_head, f.mixer];
      return {
        kind: 'pie',
        slices: names.map((label, i) => ({ label, value: values[i], color: p.c[i] })),
        fmt: (v) => show('flops', v),
        border: p.panel,
      };
    },
  },
  'chart-memory': {
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
            ['fp32 master copy', t.master_weights],
            ['Optimizer moments', t.optimizer_moments],
            ['Activations (est.)', t.activations],
          ]
        : [
            ['Weights', m.weights],
            ['KV cache', m.kv_cache],
            ['Activations (est.)', m.activations],
          ];
      const value = (v) => show('bytes', v);
      const series = parts.map(([label, v], i) => bar(label, [v, null], p.c[i], { stack: 'memory', value }));
      if (gpu !== null) series.push(bar(`GPU memory (${r.gpu})`, [null, gpu], p.c[5], { stack: 'memory', value }));
      return xy(
        { ...category(labels), vertical: true },
        { y: { type: 'linear', fmt: tickBytes, incrs: BYTE_STEPS, title: 'bytes' } },
        series,
      );
    },
  },
  'chart-roofline': {
    perf: true,
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
      const value = (v) => si(v, 'FLOP/s');
      return xy(
        { type: 'log', fmt: tick('FLOP/B'), title: 'arithmetic intensity (FLOP/byte)' },
        { y: { type: 'log', fmt: tick('FLOP/s'), title: 'attained FLOP/s' } },
        [
          {
            label: `Roofline (${si(peak, 'FLOP/s')} ${d.roofline.compute_precision}, ${si(bw, 'B/s')})`,
            points: roof,
            style: 'line',
            radius: 0,
            color: p.c[5],
            value,
          },
          ...pts.map((q) => ({
            label: q.label,
            points: [{ x: q.x, y: q.y }],
            style: 'points',
            radius: 7,
            color: q.c,
            value: (v) => `${si(q.x, 'FLOP/B')}, ${si(v, 'FLOP/s')}`,
          })),
        ],
      );
    },
  },
  'chart-batch': {
    perf: true,
    data(d, p) {
      const { values, rows } = d.series.batch_size;
      const value = (v) => show('seconds', v);
      return xy(
        category(values.map(String), 'batch size'),
        { y: { type: 'log', fmt: formatSeconds, title: 'seconds' } },
        [
          line(
            'Prefill (TTFT)',
            rows.map((x) => x.prefill_latency_s),
            p.c[0],
            { value },
          ),
          line(
            'Decode per token',
            rows.map((x) => x.decode_latency_per_token_s),
            p.c[1],
            { value },
          ),
        ],
      );
    },
  },
  'chart-seq': {
    data(d, p) {
      const { values, rows } = d.series.sequence_length;
      return xy(
        category(values.map(String), 'prompt tokens'),
        {
          y: { type: 'log', fmt: tick('FLOP'), title: 'forward FLOPs', side: 'left' },
          y1: { type: 'log', fmt: tickBytes, title: 'KV cache', side: 'right', grid: false },
        },
        [
          line(
            'Forward FLOPs',
            rows.map((x) => x.forward_flops),
            p.c[0],
            { axis: 'y', value: (v) => show('flops', v) },
          ),
          line(
            'KV cache',
            rows.map((x) => x.kv_cache),
            p.c[3],
            { axis: 'y1', dash: [6, 4], value: (v) => show('bytes', v) },
          ),
        ],
      );
    },
  },
  'chart-precision': {
    data(d, p) {
      const { values, rows } = d.series.precision;
      const perf = d.roofline !== null;
      const series = [
        bar(
          'Memory',
          rows.map((x) => x.memory),
          p.c[2],
          { axis: 'y', value: (v) => show('bytes', v) },
        ),
      ];
      if (perf)
        series.push(
          bar(
            'Decode tok/s',
            rows.map((x) => x.decode_tokens_per_second),
            p.c[4],
            { axis: 'y1', value: (v) => show('rate', v) },
          ),
        );
      return xy(
        category(values, 'precision'),
        {
          y: { type: 'linear', fmt: tickBytes, incrs: BYTE_STEPS, title: 'memory', side: 'left' },
          y1: {
            type: 'linear',
            fmt: (v) => `${si(v, '', 2)}`,
            title: 'decode tok/s',
            side: 'right',
            grid: false,
            hidden: !perf,
          },
        },
        series,
      );
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
 * The spec (./plot.js) of chart `id` for report data `d` (fc.reportData's object) in palette `p`;
 * null where the chart does not apply (roofline and latency without a GPU).
 */
export function chartConfig(id, d, p) {
  const spec = SPECS[id];
  if (spec.perf && d.roofline === null) return null;
  return spec.data(d, p);
}

/**
 * Creates every chart; schedule() redraws them from the report data of the latest request.
 * `source.reportData(request)` answers fc.reportData's object, or a promise of it (the page asks
 * its worker, so that the series' estimates never run on the page's thread). The charts are then
 * drawn one per task, so that no task of the page runs long; a newer request restarts the queue.
 */
export function createCharts(source) {
  let p = palette();
  const charts = CHARTS.map(({ id }) => {
    const placeholder = document.getElementById(id);
    const figure = placeholder.closest('figure');
    return { id, plot: createPlot(placeholder), figure };
  });
  const section = document.querySelector('.charts');
  const noGpu = document.getElementById('charts-nogpu');
  let latest = null;
  let data = null;
  let asked = 0; // the number of the latest request asked for
  let queue = [];
  let timer = 0;

  function drawOne(c) {
    let spec = null;
    try {
      spec = chartConfig(c.id, data, p);
    } catch (e) {
      console.warn(`flopcast: ${c.id}: ${e.message}`);
    }
    c.figure.hidden = spec === null;
    c.plot.draw(spec, p);
    c.plot.canvas.flopcastSpec = spec; // for tests: exactly what is drawn
    c.plot.canvas.dataset.rendered = '1';
  }

  function next() {
    timer = 0;
    const c = queue.shift();
    if (!c) return;
    drawOne(c);
    if (queue.length) timer = setTimeout(next, 0);
    else section.classList.remove('stale');
  }

  function drawAll() {
    clearTimeout(timer);
    noGpu.hidden = data.roofline !== null;
    queue = charts.slice();
    next();
  }

  async function load() {
    const n = ++asked;
    let d;
    try {
      d = await source.reportData(latest);
    } catch (e) {
      if (n === asked) console.warn(`flopcast: the charts' data: ${e.message}`);
      return;
    }
    if (n !== asked) return; // a newer request is on its way
    data = d;
    drawAll();
  }

  let pending = false;
  return {
    /** Redraws for `request` (the estimate's request; `result` is its estimate, drawn from reportData). */
    schedule(result, request) {
      latest = request;
      if (pending) return;
      pending = true;
      const go = () => {
        pending = false;
        load();
      };
      if (document.hidden) setTimeout(go, 0);
      else requestAnimationFrame(go);
    },
    stale(on) {
      section.classList.toggle('stale', on);
    },
    theme() {
      p = palette();
      if (data) drawAll();
    },
  };
}

// ---------- the serving simulation's charts (app/serve.js draws them from fc.simulate's result) ----------
const METRIC_NAMES = { ttft_s: 'TTFT', tpot_s: 'TPOT', itl_s: 'ITL', e2e_s: 'E2E latency' };

const curve = (label, points, color, extra = {}) => ({ label, points, color, style: 'line', radius: 4, ...extra });

/**
 * The serving curve's spec: p50 and p99 of `metric` against output tokens/s, a point per
 * concurrency of fc.simulate's `points`, with the SLO (seconds, or null) as a dashed line.
 */
export function servingChart({ points, metric, slo }, p) {
  const at = (q) =>
    points.map((pt) => ({
      x: pt.output_tokens_per_s,
      y: pt[metric]?.[q] ?? null,
      label: `concurrency ${pt.concurrency}`,
    }));
  const p50 = at('p50').filter((d) => d.x > 0 && d.y !== null);
  const p99 = at('p99').filter((d) => d.x > 0 && d.y !== null);
  const ys = [...p50, ...p99].map((d) => d.y).filter((y) => y > 0);
  const log = ys.length > 1 && Math.max(...ys) / Math.min(...ys) > 20;
  const value = (v) => formatSeconds(v);
  const series = [curve('p50', p50, p.c[0], { value }), curve('p99', p99, p.c[3], { dash: [6, 4], value })];
  const xs = p50.map((d) => d.x);
  if (slo !== null && slo !== undefined && xs.length)
    series.push(
      curve(
        `SLO ${formatSeconds(slo)}`,
        [
          { x: Math.min(...xs), y: slo },
          { x: Math.max(...xs), y: slo },
        ],
        p.c[5],
        { radius: 0, dash: [2, 3], value },
      ),
    );
  return xy(
    { type: 'log', fmt: tick('tok/s'), title: 'output tokens/s (all requests)' },
    { y: { type: log ? 'log' : 'linear', fmt: tick('s'), title: METRIC_NAMES[metric] ?? metric } },
    series,
  );
}

/** One simulated point's running / waiting requests, KV utilisation and cache hit rate over time. */
function timelineChart(point, p) {
  const T = point?.timeline ?? [];
  const series = (key) => T.map((s) => ({ x: s.t_s, y: s[key] }));
  return xy(
    { type: 'linear', fmt: tick('s'), title: 'time since the first request' },
    {
      y: { type: 'linear', fmt: (v) => String(v), title: 'requests', side: 'left' },
      y1: {
        type: 'linear',
        fmt: formatPercent,
        title: T.some((s) => s.cache_hit_rate > 0) ? 'KV cache in use, cache hit rate' : 'KV cache in use',
        side: 'right',
        grid: false,
      },
    },
    [
      curve('Running', series('running'), p.c[0], { radius: 0, axis: 'y', value: formatInteger }),
      curve('Waiting', series('waiting'), p.c[2], { radius: 0, axis: 'y', value: formatInteger }),
      curve('KV cache in use', series('kv_utilization'), p.c[3], {
        radius: 0,
        axis: 'y1',
        dash: [6, 4],
        value: formatPercent,
      }),
      // With prefix caching: the share of prompt tokens the cache served so far.
      ...(T.some((s) => s.cache_hit_rate > 0)
        ? [
            curve('Cache hit rate', series('cache_hit_rate'), p.c[5], {
              radius: 0,
              axis: 'y1',
              dash: [2, 3],
              value: formatPercent,
            }),
          ]
        : []),
    ],
  );
}

/**
 * The serving panel's charts on #chart-sim-latency and #chart-sim-timeline. latency(): p50 and
 * p99 of a metric against output tokens/s, a point per concurrency, with the SLO as a dashed
 * line; timeline(): one point's running / waiting requests and KV utilisation over time.
 */
export function createServeCharts() {
  let p = palette();
  const lat = createPlot(document.getElementById('chart-sim-latency'));
  const tl = createPlot(document.getElementById('chart-sim-timeline'));
  let last = { latency: null, timeline: null };

  function latency(args) {
    last.latency = args;
    lat.draw(servingChart(args, p), p);
    lat.canvas.dataset.rendered = '1';
  }

  function timeline(point) {
    last.timeline = point;
    tl.draw(timelineChart(point, p), p);
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
