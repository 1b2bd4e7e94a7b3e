// The serving-simulation panel (loaded on first use by panels.js): builds fc.simulate's request
// from the inputs above (the throughput request) and the panel's fields, runs it in the page's
// worker, and shows the core's figures as they came: a table of percentiles per concurrency, the
// latency-throughput curve and one point's timeline. Formatting only here (../format.js); every
// cell keeps its raw value (data-value) at its JSON pointer in the result (data-field).
import { plainMessage, showError } from './fmt.js';
import { readNumbers, setFieldError } from './inputs.js';
import { formatInteger, formatPercent, formatPerSecond, formatRate, formatSeconds } from '../format.js';
import { placeholder, showWorkload } from './workload.js';

const $ = (id) => document.getElementById(id);

// The panel's numeric fields: input id, simulation key.
const NUMBERS = [
  { id: 'sim-isl', key: 'input_tokens' },
  { id: 'sim-osl', key: 'output_tokens' },
  { id: 'sim-requests', key: 'num_requests' },
  { id: 'sim-slo-ttft', key: 'slo_ttft_s' },
  { id: 'sim-slo-tpot', key: 'slo_tpot_s' },
];
const FIELD_OF = { concurrency: 'sim-concurrency', ...Object.fromEntries(NUMBERS.map((n) => [n.key, n.id])) };
const IDS = ['sim-engine', 'sim-concurrency', ...NUMBERS.map((n) => n.id)];

const LATENCIES = [
  ['ttft_s', 'TTFT'],
  ['tpot_s', 'TPOT'],
  ['itl_s', 'ITL'],
  ['e2e_s', 'E2E'],
];
const STATS = ['mean', 'p50', 'p90', 'p99'];
const perSecond = (unit) => (v) => formatPerSecond(v, unit);
// The table's columns (the optional ones below join when the result has them): group header, header, pointer within a point, formatter, and the pointer
// of the figure's range where the core gives one (a fitted engine's residual band).
const ALWAYS = [
  ['', 'Concurrency', '/concurrency', formatInteger],
  ['Throughput', 'Output tokens/s', '/output_tokens_per_s', formatRate, '/output_tokens_per_s_range'],
  ['Throughput', 'Requests/s', '/requests_per_s', perSecond('req'), '/requests_per_s_range'],
  ['Throughput', 'Goodput', '/goodput_requests_per_s', perSecond('req')],
  ...LATENCIES.flatMap(([k, name]) =>
    STATS.map((s) => [name, s, `/${k}/${s}`, formatSeconds, s === 'mean' ? `/${k}_range` : undefined]),
  ),
  ['KV cache', 'mean', '/mean_kv_utilization', formatPercent],
  ['KV cache', 'peak', '/peak_kv_utilization', formatPercent],
];
const text = (v) => (v === null || v === undefined ? '—' : String(v));
// Columns shown only when the result has them (a feature the request turned on): prefix caching,
// speculative decoding, a disaggregated layout's pools.
const OPTIONAL = [
  ['Prefix cache', 'hit rate', '/cache_hit_rate', formatPercent, undefined, (pt) => pt.prefix_cache !== 'off'],
  [
    'Speculative',
    'tokens/step',
    '/tokens_per_decode_step',
    (v) => (v ? v.toFixed(2) : '—'),
    undefined,
    (pt, r) => Boolean(r.speculative),
  ],
  ['Disaggregated', 'bottleneck', '/disaggregation/bottleneck', text],
  ['Disaggregated', 'prefill util', '/disaggregation/prefill/utilization', formatPercent],
  ['Disaggregated', 'decode util', '/disaggregation/decode/utilization', formatPercent],
  ['Disaggregated', 'KV transfer', '/disaggregation/transfer_s/mean', formatSeconds],
];
const at = (obj, pointer) =>
  pointer
    .split('/')
    .slice(1)
    .reduce((o, k) => (o === null || o === undefined ? undefined : o[k]), obj);

/**
 * fc: the loaded API; call: the worker client (app/worker.js); base(): {base, error}, the
 * throughput request of the inputs above; labelOf(id): an input's label.
 */
export function initServe({ fc, call, base, labelOf, more }) {
  IDS.push(...more.ids);
  const table = $('sim-table');
  const results = $('sim-results');
  const summary = $('sim-summary');
  const labelEl = $('sim-label');
  const kindEl = $('sim-kind');
  const errorEl = $('sim-error');
  const pointSel = $('sim-point');
  const metricSel = $('sim-metric');
  let charts = null;
  const chartsLoading = import('../charts.js').then(
    ({ createServeCharts }) => {
      charts = createServeCharts();
      matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => charts.theme());
      draw();
    },
    (e) => console.warn(`the serving charts could not load (${e.message}); the table is unaffected`),
  );
  let shown = null; // {request, result, ms}
  let runId = 0;

  const setError = setFieldError;
  function clearErrors() {
    for (const id of IDS) setError(id, '');
    showError(errorEl, '');
  }

  /** The simulation part of the request; JS-side problems (not a number, empty) go to `errors`. */
  function readSimulation(errors) {
    const sim = {};
    const typed = $('sim-concurrency').value;
    const items = typed
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    if (!items.length && typed.trim() !== '')
      errors.set('sim-concurrency', 'Enter at least one concurrency (comma-separated).');
    else if (items.length) {
      const bad = items.find((s) => !Number.isFinite(Number(s)));
      if (bad !== undefined) errors.set('sim-concurrency', `Not a number: "${bad}".`);
      else sim.concurrency = items.map(Number);
    }
    return { ...sim, ...readNumbers(NUMBERS, errors) };
  }

  /** Puts a core error at the field its pointer names (/simulation/concurrency/0, /engine), else under the panel. */
  function showCoreError(e) {
    const [, top, sub] = (e.pointer || '').split('/');
    const id =
      top === 'engine'
        ? 'sim-engine'
        : (more.idOf(e.pointer || '') ?? (top === 'simulation' ? FIELD_OF[sub] : undefined));
    if (id) {
      setError(id, `${labelOf(id)}: ${plainMessage(e)}`, e);
    } else showError(errorEl, plainMessage(e), e);
    summary.textContent = 'Simulation failed.';
    results.classList.add('stale');
  }

  async function run() {
    clearErrors();
    const errors = new Map();
    const { simulation: extra, ...parts } = more.read(errors);
    const simulation = { ...readSimulation(errors), ...extra };
    if (errors.size) {
      for (const [id, msg] of errors) setError(id, msg);
      summary.textContent = `Fix ${[...errors.keys()].map(labelOf).join(', ')}.`;
      return;
    }
    const { base: req, error, workload: w } = base();
    if (error) {
      errorEl.textContent = error;
      summary.textContent = 'Simulation not run.';
      return;
    }
    // The workload's lengths, concurrency and engine unless this panel overrides them (in view).
    const engine = $('sim-engine').value;
    showWorkload('sim-workload', w, {
      input_tokens: simulation.input_tokens,
      output_tokens: simulation.output_tokens,
      concurrency: simulation.concurrency,
      engine: engine || undefined,
    });
    if (!simulation.dataset && !simulation.trace) {
      simulation.input_tokens ??= w.prompt;
      simulation.output_tokens ??= w.output;
    }
    if (simulation.request_rate === undefined) simulation.concurrency ??= [w.concurrency];
    const request = { ...req, ...parts, simulation };
    // "none": the plain roofline (the core's request field; unset is the device class's engine).
    if (engine) request.engine = engine;
    const id = ++runId;
    $('sim-run').setAttribute('aria-busy', 'true');
    summary.textContent = `Simulating ${simulation.concurrency.length} concurrencies…`;
    const t0 = performance.now();
    let r;
    try {
      r = await call({ type: 'simulate', request });
    } catch (e) {
      if (id === runId) showCoreError(e);
      return;
    } finally {
      if (id === runId) $('sim-run').removeAttribute('aria-busy');
    }
    if (id !== runId) return;
    const keep = selectedPoint()?.concurrency; // the timeline stays at the same concurrency if it is still there
    shown = { request, result: r.result, ms: performance.now() - t0, workerMs: r.ms };
    render(keep);
  }

  function renderTable(result) {
    const COLUMNS = [
      ...ALWAYS,
      ...OPTIONAL.filter(([, , pointer, , , shown]) =>
        result.points.some((pt) => at(pt, pointer) !== undefined && (!shown || shown(pt, result))),
      ),
    ];
    const head1 = document.createElement('tr');
    const head2 = document.createElement('tr');
    for (let i = 0; i < COLUMNS.length;) {
      const group = COLUMNS[i][0];
      let n = 1;
      while (i + n < COLUMNS.length && group && COLUMNS[i + n][0] === group) n++;
      const th = Object.assign(document.createElement('th'), { scope: 'colgroup', colSpan: n, textContent: group });
      head1.append(th);
      i += n;
    }
    for (const [, header] of COLUMNS)
      head2.append(Object.assign(document.createElement('th'), { scope: 'col', textContent: header }));
    table.tHead.replaceChildren(head1, head2);
    const rows = result.points.map((pt, i) => {
      const tr = document.createElement('tr');
      tr.dataset.index = String(i);
      for (const [, , pointer, fmt, rangePointer] of COLUMNS) {
        const v = at(pt, pointer);
        const td = document.createElement(pointer === '/concurrency' ? 'th' : 'td');
        if (pointer === '/concurrency') td.scope = 'row';
        td.dataset.field = `/points/${i}${pointer}`;
        td.dataset.value = v === null || v === undefined ? 'null' : String(v);
        td.textContent = fmt(v ?? null);
        const range = rangePointer ? at(pt, rangePointer) : null;
        if (Array.isArray(range)) {
          const small = Object.assign(document.createElement('small'), {
            className: 'range',
            title: 'range over the residuals of the engine’s fit to public measurements',
            textContent: `${fmt(range[0])} – ${fmt(range[1])}`,
          });
          small.dataset.low = String(range[0]);
          small.dataset.high = String(range[1]);
          td.append(small);
        }
        tr.append(td);
      }
      return tr;
    });
    table.tBodies[0].replaceChildren(...rows);
    table.dataset.request = JSON.stringify(shown.request);
  }

  function selectedPoint() {
    const pts = shown?.result.points ?? [];
    return pts[Number(pointSel.value)] ?? pts[pts.length - 1] ?? null;
  }

  function draw() {
    if (!charts || !shown) return;
    const metric = metricSel.value;
    const w = shown.result.workload ?? {};
    const slo = metric === 'ttft_s' ? w.slo_ttft_s : metric === 'tpot_s' ? w.slo_tpot_s : null;
    charts.latency({ points: shown.result.points, metric, slo: slo ?? null });
    charts.timeline(selectedPoint());
  }

  function markSelected() {
    for (const tr of table.tBodies[0].rows)
      tr.setAttribute('aria-selected', String(tr.dataset.index === pointSel.value));
  }

  function render(keep) {
    const { result, request } = shown;
    labelEl.textContent = result.label;
    labelEl.hidden = !result.label;
    const kind = result.engine
      ? `${result.engine}, ${result.engine_fitted ? `fitted to ${result.engine_fit_rows} measurements` : 'plain roofline (not fitted)'}`
      : 'no engine, plain roofline';
    kindEl.textContent = kind;
    kindEl.title = result.method ?? '';
    // Points the core corrected by the engine's fitted median residual (its band excluded them).
    $('sim-correction').textContent = result.point_correction ? `Points ${result.point_correction}.` : '';
    $('sim-correction').hidden = !result.point_correction;
    renderTable(result);
    pointSel.replaceChildren(
      ...result.points.map((pt, i) =>
        Object.assign(document.createElement('option'), { value: String(i), textContent: String(pt.concurrency) }),
      ),
    );
    const again = result.points.findIndex((pt) => pt.concurrency === keep);
    pointSel.value = String(again >= 0 ? again : result.points.length - 1);
    markSelected();
    results.hidden = false;
    results.classList.remove('stale');
    const n = request.simulation.concurrency.length;
    summary.textContent = `${n} ${n === 1 ? 'run' : 'runs'} of ${result.model ?? request.model} on ${result.gpu ?? request.gpu} in ${formatSeconds(shown.ms / 1000)} (in the background worker).`;
    draw();
  }

  pointSel.addEventListener('change', () => {
    markSelected();
    if (charts && shown) charts.timeline(selectedPoint());
  });
  metricSel.addEventListener('change', draw);
  table.tBodies[0].addEventListener('click', (e) => {
    const tr = e.target.closest('tr[data-index]');
    if (!tr) return;
    pointSel.value = tr.dataset.index;
    pointSel.dispatchEvent(new Event('change'));
  });

  return {
    run,
    /** The inputs changed since the table was computed: dim it until the next run. */
    stale() {
      if (shown) results.classList.add('stale');
    },
    clearError: (id) => IDS.includes(id) && setError(id, ''),
    charts: () => chartsLoading,
  };
}
