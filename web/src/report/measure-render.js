// Renders a measurement report (`flopcast measure --suite --html`, data kind "measure-suite":
// core/measure/src/bench_suite.cpp suite_to_json) into the report document: the run and the
// calibration, one table per task (the measured mean, stddev, n, percentiles beside the
// estimate at the measured peaks and the calibrated one), and charts drawn by the page's chart
// code (../plot.js): latency samples and their distribution, per-step decode times over the
// context, the batch sweep, and the KV cache's growth per token (fp32 vs int8).
import { palette } from '../charts.js';
import { createPlot } from '../plot.js';
import { el, badge, WIDTH, HEIGHT } from './dom.js';
import { BYTE_STEPS, tick, tickBytes } from '../app/fmt.js';
import { formatInteger, formatNumber, formatSeconds, NONE } from '../format.js';
import { formatMeasure } from './measure-format.js';

const points = (label, pts, color, extra = {}) => ({ label, points: pts, color, style: 'line', radius: 3, ...extra });
const scatter = (label, pts, color) => ({ label, points: pts, color, style: 'points', radius: 3 });
const xy = (x, y, series) => ({ kind: 'xy', x, axes: { y }, series });
const byMetric = (task, metric) => (task?.points ?? []).filter((p) => p.metric === metric);

/** Samples as points, the measured mean, and the estimate at the peaks and calibrated, over `x`. */
function measuredVsEstimated(pts, xTitle, yTitle, p, { logX = true } = {}) {
  const at = (f) => pts.map((q) => ({ x: q.value, y: f(q) }));
  return xy(
    { type: logX ? 'log' : 'linear', fmt: (v) => formatInteger(v), title: xTitle },
    { type: 'linear', fmt: tick('s'), title: yTitle },
    [
      scatter(
        'samples (MEASURED)',
        pts.flatMap((q) => q.measured.samples.map((y) => ({ x: q.value, y }))),
        p.c[1],
      ),
      points(
        'mean (MEASURED)',
        at((q) => q.measured.mean),
        p.c[0],
      ),
      points(
        'estimate at peaks (ESTIMATED)',
        at((q) => q.estimated.value),
        p.c[3],
        { dash: [6, 4] },
      ),
      points(
        'calibrated (ESTIMATED)',
        at((q) => q.calibrated.value),
        p.c[2],
        { dash: [2, 3] },
      ),
    ],
  );
}

/** Sorted samples per point against their rank in percent: the latency distribution. */
function distribution(pts, name, p) {
  return xy(
    { type: 'linear', fmt: (v) => `${formatNumber(v)} %`, title: 'percentile rank of the sample' },
    { type: 'linear', fmt: tick('s'), title: 'latency' },
    pts.map((q, i) => {
      const s = [...q.measured.samples].sort((a, b) => a - b);
      const rank = (k) => (s.length > 1 ? (100 * k) / (s.length - 1) : 50);
      return points(
        `${name} ${q.value}`,
        s.map((y, k) => ({ x: rank(k), y })),
        p.c[i % p.c.length],
      );
    }),
  );
}

function kvGrowth(pts, p) {
  const series = [];
  pts.forEach((q, i) => {
    const g = q.growth ?? [];
    series.push(
      points(
        `${q.format} (MEASURED)`,
        g.map((r) => ({ x: r.tokens, y: r.bytes })),
        p.c[(i * 2) % p.c.length],
      ),
    );
    series.push(
      points(
        `${q.format} estimate (ESTIMATED)`,
        g.map((r) => ({ x: r.tokens, y: r.estimated_bytes })),
        p.c[(i * 2 + 3) % p.c.length],
        {
          dash: [6, 4],
        },
      ),
    );
  });
  return xy(
    { type: 'linear', fmt: (v) => formatInteger(v), title: 'tokens cached (one sequence)' },
    { type: 'linear', fmt: tickBytes, incrs: BYTE_STEPS, title: 'KV cache bytes' },
    series,
  );
}

function table(task) {
  const head = ['Parameter', 'Metric', 'Mean', 'Stddev', 'n', 'p50', 'p90', 'p99', 'Estimated', 'Calibrated', 'Error'];
  const body = el('tbody');
  for (const q of task.points) {
    const m = q.measured;
    const cell = (v, key) =>
      el('td', { class: 'num', 'data-key': key, 'data-value': String(v ?? ''), text: formatMeasure(q.unit, v) });
    body.append(
      el(
        'tr',
        { 'data-metric': q.metric },
        el('th', { scope: 'row', text: `${q.parameter} ${q.format ?? formatInteger(q.value)}` }),
        el('td', { text: q.metric }),
        cell(m.mean, 'mean'),
        cell(m.stddev, 'stddev'),
        el('td', { class: 'num', 'data-key': 'n', 'data-value': String(m.n), text: formatInteger(m.n) }),
        cell(m.p50, 'p50'),
        cell(m.p90, 'p90'),
        cell(m.p99, 'p99'),
        cell(q.estimated.value, 'estimated'),
        cell(q.calibrated.value, 'calibrated'),
        el('td', { class: 'num', text: q.error_pct === null ? NONE : `${formatNumber(q.error_pct)} %` }),
      ),
    );
  }
  return el(
    'table',
    { class: 'estimate measure', 'data-task': task.name },
    el('thead', {}, el('tr', {}, ...head.map((h) => el('th', { text: h })))),
    body,
  );
}

/** Renders the measurement report `d` into `root`; returns {charts: [{id, chart}]} as render() does. */
export function renderMeasure(d, root) {
  document.title = `flopcast measurement: ${d.model.name}`;
  const task = Object.fromEntries(d.tasks.map((t) => [t.name, t]));
  const c = d.calibration;
  const facts = [
    [
      'Model',
      `${d.model.name} (${d.model.layers} of ${d.model.layers_total} layers, ${formatInteger(d.model.parameters)} parameters)`,
    ],
    ['Machine', `${d.machine.cpu}, ${d.run.threads} threads`],
    ['Tasks', d.run.tasks.join(', ')],
    [
      'Runs',
      `${d.run.repetitions} prefills per point, ${d.run.decode_steps} decode steps per context, batch up to ${d.run.max_batch}`,
    ],
    [
      'Calibration',
      `compute ${formatNumber(c.compute_efficiency)}, memory ${formatNumber(c.mem_efficiency)}${c.clamped ? ' (clamped to 1)' : ''}: ${c.basis}`,
    ],
  ];
  const head = el(
    'section',
    { class: 'sheet' },
    el('h1', { text: `${d.model.name}: measured on this machine` }),
    el('p', {
      class: 'meta',
      text: `flopcast ${d.flopcast_version} measurement report: timed on the reference decoder (MEASURED) beside the estimate at the measured peaks and calibrated (ESTIMATED).`,
    }),
    el('dl', { class: 'settings' }, ...facts.flatMap(([k, v]) => [el('dt', { text: k }), el('dd', { text: v })])),
  );
  for (const t of d.tasks)
    head.append(el('h2', { text: `${t.name} (${formatSeconds(t.wall_s)})` }, badge('MEASURED')), table(t));

  const pending = [];
  const p = palette(root);
  const charts = el('section', { class: 'sheet' }, el('h2', { text: 'Charts' }));
  const add = (id, caption, spec) => {
    const canvas = el('canvas', {
      id,
      role: 'img',
      'aria-label': caption,
      width: String(WIDTH),
      height: String(HEIGHT),
    });
    charts.append(
      el(
        'figure',
        { 'data-chart': id },
        el('figcaption', { text: caption }),
        el('div', { class: 'chart-box' }, canvas),
      ),
    );
    pending.push({ canvas, spec });
  };
  const prefill = byMetric(task.prefill, 'ttft_s');
  const decode = byMetric(task.decode, 'decode_step_s');
  if (prefill.length) {
    add(
      'chart-measure-prefill',
      'Time to first token over prompt lengths: samples, mean, estimate and calibrated line',
      measuredVsEstimated(prefill, 'prompt tokens', 'TTFT', p),
    );
    add(
      'chart-measure-prefill-dist',
      'Prefill latency distribution: sorted samples per prompt length',
      distribution(prefill, 'prompt', p),
    );
  }
  if (decode.length) {
    add(
      'chart-measure-decode',
      'Per-step decode time over the cached context: samples, mean, estimate and calibrated line',
      measuredVsEstimated(decode, 'context tokens', 'decode step', p),
    );
    add(
      'chart-measure-decode-dist',
      'Decode step distribution and percentiles: sorted steps per context length',
      distribution(decode, 'context', p),
    );
  }
  if (task.batch) {
    add(
      'chart-measure-batch-ttft',
      'Batch sweep: time to first token over batch size',
      measuredVsEstimated(byMetric(task.batch, 'ttft_s'), 'batch size', 'TTFT', p, { logX: false }),
    );
    add(
      'chart-measure-batch-step',
      'Batch sweep: decode step time over batch size',
      measuredVsEstimated(byMetric(task.batch, 'decode_step_s'), 'batch size', 'decode step', p, { logX: false }),
    );
  }
  if (task.kv_cache)
    add(
      'chart-measure-kv',
      'KV cache growth per token: fp32 vs int8, measured and estimated',
      kvGrowth(byMetric(task.kv_cache, 'kv_bytes_per_token'), p),
    );
  root.replaceChildren(head, charts);
  return {
    charts: pending.map(({ canvas, spec }) => {
      const chart = createPlot(canvas, { width: WIDTH, height: HEIGHT });
      chart.draw(spec, p);
      return { id: canvas.id, chart };
    }),
  };
}
