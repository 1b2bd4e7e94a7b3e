// The SLO planner card (loaded on first use by panels.js): fc.plan's SLO search for the page's model,
// GPU and lengths (the plan request of the inputs above) with the card's "plan" fields: the most GPUs
// or a budget, the traffic (the workload's concurrency unless typed), the SLOs (typed in ms, sent in
// seconds) at a percentile, and what to optimize. Each search runs in its own worker
// (../plan-search-worker.js), reporting progress; Cancel terminates that worker and the next search
// starts a fresh one. Shows the core's answer as it came: its `why`, the Pareto chart
// (./slo-plan-chart.js), the ranked configurations with their launch commands, and its notes.
// Formatting only here (../format.js); every figure keeps its raw value (data-value) at its key in
// the search point (data-field).
import { plainMessage, showError } from './fmt.js';
import { readNumbers, setFieldError } from './inputs.js';
import { formatInteger, formatPercent, formatRate, formatSeconds, formatUsd } from '../format.js';
import { placeholder, showWorkload, workloadOf } from './workload.js';

const $ = (id) => document.getElementById(id);

// The card's inputs: input id, "plan" key. Numbers sent as typed, and SLOs typed in milliseconds.
const NUMBERS = [
  { id: 'slo-gpus', key: 'gpus' },
  { id: 'slo-budget', key: 'budget_usd_per_hour' },
  { id: 'slo-percentile', key: 'slo_percentile' },
];
const MILLISECONDS = [
  { id: 'slo-ttft', key: 'slo_ttft_s' },
  { id: 'slo-tpot', key: 'slo_tpot_s' },
  { id: 'slo-e2e', key: 'slo_e2e_s' },
];
// The plan key a core error's pointer (/plan/<key>) names → the input that holds it.
const INPUT_OF = {
  ...Object.fromEntries([...NUMBERS, ...MILLISECONDS].map((f) => [f.key, f.id])),
  concurrency: 'slo-load',
  request_rate: 'slo-load',
  optimize: 'slo-optimize',
};
const IDS = [...new Set([...Object.values(INPUT_OF), 'slo-compare'])];
const CANCELLED = 'The search was cancelled.';

const rate = (v) => formatRate(v);
const signedPercent = (v) => (v > 0 ? `+${formatPercent(v)}` : formatPercent(v));

/** "TP=2 × EP=4 × attention-DP=2, 3 replicas"; disaggregated: "prefill 2×TP=4 + decode 1×TP=8". */
export function layoutText(p) {
  const d = p.disaggregated;
  if (d) return `prefill ${d.prefill_workers}×TP=${d.prefill_tp} + decode ${d.decode_workers}×TP=${d.decode_tp}`;
  const ranks = [
    ['TP', p.tp],
    ['EP', p.ep],
    ['attention-DP', p.attention_dp],
  ].filter(([k, v]) => k === 'TP' || v > 1);
  const text = ranks.map(([k, v]) => `${k}=${v}`).join(' × ');
  return p.replicas > 1 ? `${text}, ${p.replicas} replicas` : text;
}

/** A name for a point in sentences and labels: "vllm fp8 TP=1, 3 replicas". */
const pointName = (p) => `${p.engine} ${p.precision} ${layoutText(p)}`;

/** Copies `text` to the clipboard: the async Clipboard API, else a selected text area and execCommand. */
export async function copyText(text) {
  try {
    if (navigator.clipboard?.writeText) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch {
    // not allowed here (an insecure context, no permission): the fallback below
  }
  const area = Object.assign(document.createElement('textarea'), { value: text, readOnly: true });
  area.style.position = 'fixed';
  area.style.opacity = '0';
  document.body.append(area);
  area.select();
  let ok = false;
  try {
    ok = document.execCommand('copy');
  } catch {
    ok = false;
  }
  area.remove();
  return ok;
}

/**
 * base(): {base, error}, the plan request of the inputs above; search: a worker client (app/worker.js)
 * whose worker runs the searches and which terminate() stops;
 * useConfiguration(point): puts a ranked point's settings into the serving panel and runs it (returns
 * the arguments of its serve_args no input holds);
 * labelOf(id): an input's label.
 */
export function initSloPlan({ base, search, useConfiguration, labelOf }) {
  const table = $('slo-table');
  const results = $('slo-results');
  const errorEl = $('slo-error');
  const statusEl = $('slo-status');
  const bar = $('slo-bar');
  const progress = $('slo-progress');
  const runBtn = $('slo-run');
  const cancelBtn = $('slo-cancel');
  let shown = null; // {request, base (the request above it answers), result, ms, workerMs}
  let runId = 0;
  let busy = false;
  let chart = null;
  let chartModule = null;
  let staleTimer = 0;

  // Cancel terminates the search's worker (app/worker.js); the next call starts a fresh one.
  search({ type: 'ready' }).catch(() => {}); // warm it up: the module compiles while the user types

  const setError = setFieldError;
  function clearErrors() {
    for (const id of IDS) setError(id, '');
    showError(errorEl, '');
  }

  const traffic = () => $('slo-traffic').value;
  /** The load input's label and placeholder follow the traffic kind (the workload's concurrency by default). */
  function syncTraffic(req) {
    const w = workloadOf(req);
    const conc = traffic() === 'concurrency';
    document.querySelector('label[for="slo-load"]').textContent = conc ? 'Concurrent clients' : 'Requests per second';
    if (conc) placeholder('slo-load', w.concurrency);
    else $('slo-load').placeholder = 'most each serves';
    return w;
  }

  /** The "plan" part of the request for the page's request `req`; JS-side problems go to `errors`. */
  function planPart(req, errors) {
    const w = syncTraffic(req);
    const plan = readNumbers(NUMBERS, errors);
    const ms = readNumbers(MILLISECONDS, errors);
    for (const { key } of MILLISECONDS) if (key in ms) plan[key] = ms[key] / 1000; // SI in the request
    const load = readNumbers([{ id: 'slo-load', key: traffic() }], errors);
    if (traffic() === 'concurrency') plan.concurrency = load.concurrency ?? w.concurrency;
    else if ('request_rate' in load) plan.request_rate = load.request_rate;
    // Always sent: the objective makes the plan a search even without an SLO (the core's rule).
    plan.optimize = $('slo-optimize').value;
    showWorkload('slo-workload', w, traffic() === 'concurrency' ? { concurrency: load.concurrency } : {});
    return plan;
  }

  function setBusy(on) {
    busy = on;
    if (on) runBtn.setAttribute('aria-busy', 'true');
    else runBtn.removeAttribute('aria-busy');
    cancelBtn.hidden = !on;
    bar.hidden = false;
    if (on) {
      progress.value = 0;
      delete statusEl.dataset.state;
    }
  }

  /** A core error at the card's field its pointer names (/plan/slo_tpot_s), else under the card. */
  function showCoreError(e, plan) {
    const [, top, sub] = (e.pointer || '').split('/');
    const id = top === 'plan' ? INPUT_OF[sub] : top === 'gpu' && sub ? 'slo-compare' : undefined;
    if (id) {
      const f = MILLISECONDS.find((m) => m.id === id);
      // The core judges seconds; the field holds milliseconds.
      const sent = f && typeof plan?.[f.key] === 'number' ? ` (${$(id).value} ms sent as ${plan[f.key]} s)` : '';
      setError(id, `${labelOf(id)}: ${plainMessage(e)}${sent}`, e);
    } else showError(errorEl, plainMessage(e), e);
    statusEl.textContent = 'Not searched.';
    statusEl.dataset.state = 'error';
    results.classList.add('stale');
  }

  async function run() {
    clearErrors();
    const errors = new Map();
    const { base: req, error } = base();
    const plan = planPart(req, errors);
    if (errors.size) {
      for (const [id, msg] of errors) setError(id, msg);
      bar.hidden = false;
      statusEl.textContent = `Fix ${[...errors.keys()].map(labelOf).join(', ')}.`;
      statusEl.dataset.state = 'error';
      return;
    }
    if (error) {
      errorEl.textContent = error;
      bar.hidden = false;
      statusEl.textContent = 'Not searched.';
      statusEl.dataset.state = 'error';
      results.classList.add('stale');
      return;
    }
    if (busy) search.terminate('superseded by a new search'); // the newer one wins (runId below)
    // Other GPUs to compare: the request's "gpu" becomes the list (the page's GPU first).
    const others = $('slo-compare')
      .value.split(/[,\s]+/)
      .filter(Boolean);
    const request = { ...req, plan, ...(others.length ? { gpu: [req.gpu, ...others] } : {}) };
    const id = ++runId;
    setBusy(true);
    statusEl.textContent = 'Searching…';
    const t0 = performance.now();
    let r;
    try {
      r = await search({ type: 'plan', request }, (done, total) => {
        if (id !== runId) return;
        progress.value = done / total;
        statusEl.textContent = `Searching… ${Math.round((100 * done) / total)} %`;
      });
    } catch (e) {
      if (id !== runId) return;
      setBusy(false);
      if (e.code === 'cancelled') {
        statusEl.textContent = e.message;
        statusEl.dataset.state = 'cancelled';
        results.classList.add('stale');
      } else showCoreError(e, plan);
      return;
    }
    if (id !== runId) return;
    setBusy(false);
    progress.value = 1;
    shown = { request, base: req, result: r.result, ms: performance.now() - t0, workerMs: r.ms };
    statusEl.dataset.state = 'done';
    render();
  }

  function cancel() {
    if (!busy) return;
    search.terminate(CANCELLED); // the pending search rejects: run() shows why
    search({ type: 'ready' }).catch(() => {}); // a fresh worker for the next search, warmed up
  }
  cancelBtn.addEventListener('click', cancel);

  function cell(tr, field, value, text) {
    const td = document.createElement('td');
    td.dataset.field = field;
    td.dataset.value = value === null || value === undefined ? 'null' : String(value);
    td.textContent = text;
    tr.append(td);
    return td;
  }
  /** A latency figure with the fitted engine's residual band under it (null: no fit, no band). */
  function latencyCell(tr, p, key) {
    const td = cell(tr, key, p[key], formatSeconds(p[key]));
    const range = p[key.replace(/_s$/, '_range')];
    if (Array.isArray(range)) {
      const small = Object.assign(document.createElement('small'), {
        className: 'range',
        title: 'range over the residuals of the engine’s fit to public measurements',
        textContent: `${formatSeconds(range[0])} – ${formatSeconds(range[1])}`,
      });
      small.dataset.low = String(range[0]);
      small.dataset.high = String(range[1]);
      td.append(small);
    }
  }
  function marginsCell(tr, p) {
    const td = document.createElement('td');
    td.className = 'slo-margins';
    td.dataset.binding = p.binding ?? '';
    const parts = [
      ['ttft_margin', 'TTFT'],
      ['tpot_margin', 'TPOT'],
      ['e2e_margin', 'E2E'],
    ].filter(([k]) => p[k] !== null && p[k] !== undefined);
    parts.forEach(([k, name], i) => {
      const span = Object.assign(document.createElement('span'), { textContent: `${name} ${signedPercent(p[k])}` });
      span.dataset.field = k;
      span.dataset.value = String(p[k]);
      if (p.binding && k === `${p.binding}_margin`) {
        span.className = 'slo-binding';
        span.title = 'the SLO closest to binding';
      }
      if (i) td.append(' · ');
      td.append(span);
    });
    if (!parts.length) td.textContent = '–';
    tr.append(td);
  }
  function launchCell(tr, p) {
    const td = document.createElement('td');
    td.className = 'slo-launch';
    if (!p.launch) {
      td.textContent = '–';
      tr.append(td);
      return;
    }
    // A disaggregated configuration: each prefill worker's command, then each decode worker's.
    if (p.prefill_launch) td.append(commandDetails(p.prefill_launch, `${p.disaggregated.prefill_workers} prefill: `));
    td.append(commandDetails(p.launch, p.prefill_launch ? `${p.disaggregated.decode_workers} decode: ` : ''));
    tr.append(td);
  }
  function commandDetails(l, what) {
    const details = document.createElement('details');
    const summary = Object.assign(document.createElement('summary'), {
      textContent: what + l.args.slice(0, 2).join(' '),
    });
    const cmd = Object.assign(document.createElement('pre'), { className: 'slo-command', textContent: l.command });
    details.append(summary, cmd);
    if (l.yaml?.length) {
      details.append(
        Object.assign(document.createElement('small'), { textContent: `${l.yaml_file ?? 'config.yaml'}:` }),
        Object.assign(document.createElement('pre'), { className: 'slo-yaml', textContent: l.yaml.join('\n') }),
      );
    }
    for (const why of l.left_out ?? [])
      details.append(
        Object.assign(document.createElement('small'), { className: 'hint', textContent: `Left out: ${why}` }),
      );
    if (l.docs_version)
      details.append(
        Object.assign(document.createElement('small'), { className: 'hint', textContent: `Flags: ${l.docs_version}` }),
      );
    return details;
  }
  /** "Copy": `text` to the clipboard, the button saying whether it worked. */
  function copyButton(label, text, what) {
    const b = Object.assign(document.createElement('button'), { type: 'button', textContent: label });
    b.className = 'plan-use slo-copy';
    b.dataset.copy = what;
    b.addEventListener('click', async () => {
      const ok = await copyText(text);
      b.textContent = ok ? 'Copied' : 'Copy failed';
      b.dataset.copied = String(ok);
      setTimeout(() => (b.textContent = label), 1500);
    });
    return b;
  }

  function renderTable(s) {
    const q = `p${s.question.slo_percentile}`;
    const headers = [
      '#',
      'Engine',
      'Format',
      'Layout',
      'GPUs',
      'max_num_seqs',
      'Batched tokens',
      'MTP',
      `TTFT ${q}`,
      `TPOT ${q}`,
      'SLO margins',
      'Output tok/s per GPU',
      'Tok/s per user',
      '$/hour',
      '$/1M output tokens',
      '',
      'Launch command',
    ];
    const head = document.createElement('tr');
    for (const h of headers) head.append(Object.assign(document.createElement('th'), { scope: 'col', textContent: h }));
    table.tHead.replaceChildren(head);
    const rows = s.ranked.map((p, i) => {
      const tr = document.createElement('tr');
      tr.dataset.index = String(i);
      tr.append(Object.assign(document.createElement('th'), { scope: 'row', textContent: String(i + 1) }));
      const cellActions = document.createElement('td');
      const actions = document.createElement('div');
      cellActions.append(actions);
      actions.className = 'slo-actions';
      const use = Object.assign(document.createElement('button'), {
        type: 'button',
        textContent: 'Use this configuration',
      });
      use.className = 'plan-use slo-use';
      use.setAttribute('aria-label', `Use ${pointName(p)} in the serving simulation`);
      const devices = s.question.devices ?? [];
      const elsewhere = devices.length > 1 && p.gpu !== devices[0];
      if (elsewhere) {
        use.disabled = true;
        use.title = `This configuration runs on ${p.gpu}: choose that GPU above to simulate it`;
      }
      use.addEventListener('click', () => {
        const missed = useConfiguration(p);
        statusEl.textContent =
          `Configuration ${i + 1} (${pointName(p)}) is in the serving simulation below` +
          (p.replicas > 1 ? `, one replica of ${p.replicas}` : '') +
          (missed.length ? `; the page has no input for ${missed.join(', ')}.` : '.');
      });
      actions.append(use);
      if (p.launch) {
        actions.append(
          copyButton(p.prefill_launch ? 'Copy decode command' : 'Copy command', p.launch.command, 'command'),
        );
        if (p.prefill_launch) actions.append(copyButton('Copy prefill command', p.prefill_launch.command, 'prefill'));
        if (p.launch.yaml?.length) actions.append(copyButton('Copy YAML', p.launch.yaml.join('\n'), 'yaml'));
      }
      const engine = cell(tr, 'engine', p.engine, devices.length > 1 ? `${p.engine} on ${p.gpu}` : p.engine);
      engine.dataset.gpu = p.gpu;
      cell(
        tr,
        'precision',
        p.precision,
        p.kv_cache_precision && p.kv_cache_precision !== p.precision
          ? `${p.precision}, KV ${p.kv_cache_precision}`
          : p.precision,
      );
      const layout = cell(
        tr,
        'layout',
        JSON.stringify({
          tp: p.tp,
          ep: p.ep,
          attention_dp: p.attention_dp,
          replicas: p.replicas,
          disaggregated: p.disaggregated ?? null,
        }),
        layoutText(p),
      );
      if (p.disaggregated) layout.dataset.disaggregated = '';
      // A closed loop's clients per replica (0 with a request rate: the deployment's, in the question)
      if (p.replica_concurrency) {
        const each = Object.assign(document.createElement('small'), {
          className: 'range',
          textContent: `${formatInteger(p.replica_concurrency)} clients${p.replicas > 1 ? ' per replica' : ''}`,
        });
        each.dataset.field = 'replica_concurrency';
        each.dataset.value = String(p.replica_concurrency);
        layout.append(each);
      }
      cell(tr, 'gpus', p.gpus, formatInteger(p.gpus));
      // The engine's own uncapped default (SGLang's) is no cap at all.
      cell(tr, 'max_num_seqs', p.max_num_seqs, p.max_num_seqs >= 100000 ? 'uncapped' : formatInteger(p.max_num_seqs));
      const batched = cell(
        tr,
        'max_num_batched_tokens',
        p.max_num_batched_tokens,
        formatInteger(p.max_num_batched_tokens),
      );
      batched.append(
        Object.assign(document.createElement('small'), {
          className: 'range',
          textContent: p.chunked_prefill ? 'chunked prefill' : 'no chunked prefill',
        }),
      );
      cell(
        tr,
        'speculative_tokens',
        p.speculative_tokens,
        p.speculative_tokens ? `${p.speculative_tokens} tokens` : 'off',
      );
      latencyCell(tr, p, 'ttft_s');
      latencyCell(tr, p, 'tpot_s');
      marginsCell(tr, p);
      cell(tr, 'output_tokens_per_s_per_gpu', p.output_tokens_per_s_per_gpu, rate(p.output_tokens_per_s_per_gpu));
      cell(tr, 'tokens_per_s_per_user', p.tokens_per_s_per_user, rate(p.tokens_per_s_per_user));
      cell(tr, 'cost_per_hour_usd', p.cost_per_hour_usd, formatUsd(p.cost_per_hour_usd));
      cell(
        tr,
        'usd_per_million_output_tokens',
        p.usd_per_million_output_tokens,
        formatUsd(p.usd_per_million_output_tokens),
      );
      tr.append(cellActions);
      launchCell(tr, p);
      return tr;
    });
    table.tBodies[0].replaceChildren(...rows);
    table.dataset.request = JSON.stringify(shown.request); // what was sent, for tests and inspection
  }

  function drawChart() {
    if (!shown) return;
    chartModule ??= import('./slo-plan-chart.js');
    const s = shown.result.search;
    chartModule.then(
      ({ drawPareto }) => {
        if (shown?.result.search === s) chart = drawPareto(chart, $('chart-slo-pareto'), s);
      },
      (e) => console.warn(`the SLO planner's chart could not load (${e.message}); the table is unaffected`),
    );
  }

  function render() {
    const s = shown.result.search;
    if (!s) {
      // (the core answers every plan with a search when it carries an objective)
      showError(errorEl, 'The core returned no search for this request.');
      return;
    }
    $('slo-why').textContent = s.why;
    $('slo-why').dataset.meets = String(s.ranked.length > 0);
    const summary = $('slo-summary');
    summary.textContent =
      `${formatInteger(s.configurations)} configurations (${formatInteger(s.fitting)} fit), ` +
      `${formatInteger(s.closed_form_points)} closed-form points, ${formatInteger(s.simulations)} simulations: ` +
      `${s.ranked.length} meet every SLO at p${s.question.slo_percentile}, ${s.rejected.length} simulated miss one. ` +
      `Searched in ${formatSeconds(shown.ms / 1000)} in a background worker.`;
    summary.dataset.ms = String(shown.ms);
    summary.dataset.workerMs = String(shown.workerMs);
    statusEl.textContent = `Done: ${s.ranked.length} configurations meet every SLO.`;
    renderTable(s);
    table.closest('.table-wrap').hidden = s.ranked.length === 0;
    $('slo-notes').replaceChildren(
      ...s.notes.map((n) => Object.assign(document.createElement('li'), { textContent: n })),
    );
    results.hidden = false;
    results.classList.remove('stale');
    drawChart();
  }

  matchMedia('(prefers-color-scheme: dark)').addEventListener('change', drawChart);
  $('slo-traffic').addEventListener('change', () => syncTraffic(base().base));
  syncTraffic(base().base);

  return {
    run,
    cancel,
    /** The search shown, as fc.plan returned it (null before the first search). */
    result: () => shown?.result ?? null,
    /** The inputs above changed: dim the answer (until the next search) if the request it answers did. */
    stale() {
      if (!shown) return;
      clearTimeout(staleTimer);
      staleTimer = setTimeout(() => {
        if (JSON.stringify(base().base) !== JSON.stringify(shown.base)) results.classList.add('stale');
      }, 200);
    },
    clearError: (id) => IDS.includes(id) && setError(id, ''),
    chart: () => chartModule,
  };
}
