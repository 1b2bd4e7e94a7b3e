// Renders a report (fc.reportData's object) into a document: a header with the model, GPU and
// settings, the estimate's table (the core's row fields), and each chart in a <figure> with a
// caption, drawn by the page's chart code (../charts.js). No network, no layout that depends on
// the window: charts have a fixed size that fits an A4 or Letter page, so printing keeps them.
import { CHARTS, chartConfig, palette, servingChart } from '../charts.js';
import { createPlot } from '../plot.js';
import { el, badge, WIDTH, HEIGHT } from './dom.js';
import { formatByKind, formatInteger } from '../format.js';
import { renderMeasure } from './measure-render.js';

function settingsList(d) {
  const e = d.estimate;
  const s = e.details.settings;
  const par = e.details.parallelism;
  const rows = [
    ['Model', e.model],
    ['GPU', e.gpu ?? 'none'],
    ['Precision', `${e.precision} (KV cache ${s.kv_cache_precision})`],
    ['Batch × prompt', `${formatInteger(e.batch_size)} × ${formatInteger(e.sequence_length)} tokens`],
    ['Generated tokens', formatInteger(s.num_generated_tokens)],
    ['Mode', s.training ? `training (${s.optimizer})` : 'inference'],
    [
      'Efficiencies',
      `compute ${s.compute_efficiency} (${s.compute_efficiency_origin}), memory ${s.mem_efficiency} (${s.mem_efficiency_origin})`,
    ],
  ];
  if (par && par.gpus > 1) rows.push(['Layout', `${par.gpus} GPUs`]);
  if (s.calibration_source) rows.push(['Calibration', s.calibration_source]);
  return el(
    'dl',
    { class: 'settings' },
    ...rows.flatMap(([k, v]) => [el('dt', { text: k }), el('dd', { text: String(v) })]),
  );
}

function table(d) {
  const body = el('tbody');
  for (const f of d.fields) {
    const v = d.row[f.key];
    body.append(
      el(
        'tr',
        {},
        el('th', { scope: 'row', text: f.header }),
        el('td', { class: f.kind === 'text' ? '' : 'num', text: formatByKind(f.kind, v) }),
      ),
    );
  }
  return el(
    'table',
    { class: 'estimate' },
    el('thead', {}, el('tr', {}, el('th', { text: 'Figure' }), el('th', { text: 'Value' }))),
    body,
  );
}

/** A figure with a caption and a canvas drawn from `cfg` at the report's fixed size. */
function figure(id, caption, label, cfg, charts) {
  const canvas = el('canvas', { id, role: 'img', 'aria-label': caption, width: String(WIDTH), height: String(HEIGHT) });
  const fig = el(
    'figure',
    { 'data-chart': id },
    el('figcaption', { text: caption }, label ? badge(label) : null),
    el('div', { class: 'chart-box' }, canvas),
  );
  charts.push({ fig, canvas, spec: cfg });
  return fig;
}

/**
 * Renders `d` into `root` and draws its charts; returns {charts: [{id, chart}]} (the charts
 * (./plot.js createPlot), for tests and for redrawing).
 */
export function render(d, root) {
  if (d.kind === 'measure-suite') return renderMeasure(d, root); // `flopcast measure --suite --html`
  const e = d.estimate;
  document.title = `flopcast report: ${e.model}${e.gpu ? ` on ${e.gpu}` : ''}`;
  const pending = [];
  const perfLabel = e.details.performance?.latency_is_estimate === false ? 'CALIBRATED' : 'ESTIMATED';

  const head = el(
    'section',
    { class: 'sheet' },
    el('h1', { text: `${e.model}${e.gpu ? ` on ${e.gpu}` : ''}` }),
    el('p', {
      class: 'meta',
      text: `flopcast ${d.version} report: figures computed from the architecture (not measured).`,
    }),
    settingsList(d),
    el('h2', { text: 'Estimate' }, badge(perfLabel)),
    table(d),
    ...(e.note ?? []).map((n) => el('p', { class: 'note', text: n })),
  );
  const charts = el('section', { class: 'sheet' }, el('h2', { text: 'Charts' }));
  const p = palette(root);
  for (const c of CHARTS) {
    const cfg = chartConfig(c.id, d, p);
    if (cfg) charts.append(figure(c.id, c.caption, c.perf ? perfLabel : null, cfg, pending));
  }
  if (d.roofline === null)
    charts.append(el('p', { class: 'note', text: 'No GPU: the roofline and latency charts need one.' }));
  root.replaceChildren(head, charts);

  if (d.serving) {
    const sv = d.serving;
    const w = sv.workload;
    const serving = el(
      'section',
      { class: 'sheet' },
      el('h2', { text: 'Serving curve' }, badge(sv.label)),
      el('p', {
        class: 'note',
        text: `${sv.method}; closed loop, ${formatInteger(w.num_requests)} requests of ${formatInteger(w.input_tokens[0])} + ${formatInteger(w.output_tokens[0])} tokens per concurrency (${sv.points.map((pt) => pt.concurrency).join(', ')}).`,
      }),
    );
    for (const [metric, slo, name] of [
      ['ttft_s', w.slo_ttft_s, 'Time to first token'],
      ['tpot_s', w.slo_tpot_s, 'Time per output token'],
    ])
      serving.append(
        figure(
          `chart-serving-${metric}`,
          `${name} against output tokens/s (p50, p99)`,
          sv.label,
          servingChart({ points: sv.points, metric, slo }, p),
          pending,
        ),
      );
    root.append(serving);
  }
  return {
    charts: pending.map(({ canvas, spec }) => {
      const id = canvas.id;
      const chart = createPlot(canvas, { width: WIDTH, height: HEIGHT });
      chart.draw(spec, p);
      return { id, chart };
    }),
  };
}
