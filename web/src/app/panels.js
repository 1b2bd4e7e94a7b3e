// The panels below the estimate, each given the part of the main form's request its command takes
// (from the core's request table): the compare & sweep panel (app/sweep.js, in the page from the
// start), the serving simulation (app/serve.js), "How many GPUs?" (app/plan.js), the SLO planner
// (app/slo-plan.js), the operators card (app/ops.js) and hosted providers (app/providers.js). The
// last five load on first use or when they come near the viewport, so that a first visit loads only
// the estimate's code.
import { initSweep } from './sweep.js';
import { errorText, labelOf } from './errors.js';
import { LAYOUT, buildRequest, readRaw } from './request.js';
import { $, option, setSelect } from './dom.js';
import { chosenDevice, enginesOn } from './formats.js';
import { lastGood } from './results.js';
import { addPageInputs, scheduleUrl } from './url-state.js';
import { tableInputs } from './table-inputs.js';
import { workloadOf } from './workload.js';
import { workerClient } from './worker.js';

// The serving panel's further settings, generated from the core's request table (table-inputs.js):
// how requests are sent, prefix caching and the client, speculative decoding, disaggregation. The
// layout (expert and attention-data parallelism) is the main form's.
const SIM_MORE = [
  {
    legend: 'Workload',
    fields: [
      ['simulation', 'request_rate'],
      ['simulation', 'dataset'],
      ['simulation', 'range_ratio'],
      ['simulation', 'prefix_tokens'],
      ['simulation', 'prompt_pool'],
      ['simulation', 'turns'],
      ['simulation', 'think_time_s'],
    ],
  },
  {
    legend: 'Engine scheduler',
    fields: [
      ['simulation', 'max_num_seqs'],
      ['simulation', 'max_num_batched_tokens'],
      ['simulation', 'chunked_prefill'],
    ],
  },
  {
    legend: 'Prefix cache and client',
    fields: [
      ['simulation', 'prefix_caching'],
      ['simulation', 'harness'],
      ['simulation', 'client_overhead_s'],
    ],
  },
  {
    legend: 'Speculative decoding',
    fields: [
      ['simulation', 'speculative'],
      ['simulation', 'draft'],
      ['simulation', 'speculative_tokens'],
      ['simulation', 'acceptance_rate'],
    ],
  },
  {
    legend: 'Disaggregated prefill and decode',
    fields: [
      ['disaggregation', 'enabled'],
      ['disaggregation', 'prefill_workers'],
      ['disaggregation', 'prefill_tensor_parallel'],
      ['disaggregation', 'decode_workers'],
      ['disaggregation', 'decode_tensor_parallel'],
      ['disaggregation', 'prefill_expert_parallel'],
      ['disaggregation', 'decode_expert_parallel'],
      ['disaggregation', 'prefill_attention_data_parallel'],
      ['disaggregation', 'decode_attention_data_parallel'],
      ['disaggregation', 'prefill_max_num_seqs'],
      ['disaggregation', 'prefill_max_num_batched_tokens'],
      ['disaggregation', 'decode_max_num_seqs'],
      ['disaggregation', 'decode_max_num_batched_tokens'],
      ['disaggregation', 'transfer_bandwidth_bytes_per_s'],
      ['disaggregation', 'transfer_latency_s'],
    ],
  },
];

/** The request for the main form's inputs, and its errors' texts (but those of inputs `skip` keeps out). */
function requestAbove(skip, text = (id, msg) => msg) {
  const errors = new Map();
  const req = buildRequest(readRaw(), errors);
  const bad = [...errors].filter(([id]) => !skip(id)).map(([id, msg]) => `${labelOf(id)}: ${text(id, msg)}`);
  return { req, bad };
}
const fixFirst = (bad) => (bad.length ? `Fix the inputs above first — ${bad.join(' · ')}` : '');

/** Loads a panel's code when its section comes near the viewport or its form gets focus (not on a first visit's load). */
function loadWhenNear(section, panelForm, load) {
  panelForm.addEventListener('focusin', load, { once: true });
  if (!('IntersectionObserver' in window)) return;
  const seen = new IntersectionObserver((entries) => {
    if (entries.some((en) => en.isIntersecting)) {
      seen.disconnect();
      load();
    }
  });
  seen.observe(section);
}

/**
 * Wires the panels. `work` is the page's worker client (app/worker.js), `update()` re-estimates.
 * Returns {changed(), estimated(req)}:
 * what the update loop tells the loaded panels after every input change and after a valid estimate.
 */
export function initPanels({ fc, D, work, update }) {
  // ---------- the sweep panel ----------
  const SWEPT = new Set(['model', 'config', 'hf-id', 'gpu', 'gpu-custom', 'precision', 'batch', 'seq']);
  /** The settings the sweep shares with the inputs above (everything it does not vary). */
  function sweepBase() {
    const { req, bad } = requestAbove((id) => SWEPT.has(id));
    for (const k of ['model', 'gpu', 'precision', 'batch_size', 'sequence_length', 'weight_bytes']) delete req[k];
    return { base: req, error: fixFirst(bad) };
  }
  initSweep({ fc, sweepBase, call: work, onInput: () => scheduleUrl() });
  $('sweep-form').addEventListener('submit', () => scheduleUrl(true)); // a Run click commits

  // ---------- the serving-simulation panel (app/serve.js, loaded on first use) ----------
  /** The simulation's base: the throughput request of the inputs above (fc.simulate adds engine and simulation). */
  function serveBase() {
    const { req, bad } = requestAbove((id) => id.startsWith('sim-'));
    const fields = D.request_fields.filter((f) => f.part === '');
    const forSim = fields.filter((f) => f.commands.includes('simulate'));
    const keys = new Set(
      (forSim.length ? forSim : fields.filter((f) => f.commands.includes('throughput'))).map((f) => f.key),
    );
    for (const k of ['serving', 'simulation']) keys.delete(k);
    const base = Object.fromEntries(Object.entries(req).filter(([k]) => keys.has(k)));
    if (!bad.length && !base.gpu) bad.push(`${labelOf('gpu')}: choose a GPU to simulate serving`);
    return { base, error: fixFirst(bad), workload: workloadOf(req) };
  }
  /** The engines the core models (its engine table), for the panel's select: [{id, name}]. */
  function engineList() {
    const field = D.request_fields.find((f) => f.part === '' && f.key === 'engine');
    const list = typeof fc.listEngines === 'function' ? fc.listEngines() : (D.engines ?? field?.choices);
    if (!Array.isArray(list)) return [];
    return list
      .filter((e) => e.simulated !== false)
      .map((e) =>
        typeof e === 'string' ? { id: e, name: e } : { ...e, id: e.id ?? e.engine, name: e.name ?? e.id ?? e.engine },
      );
  }
  $('sim-engine').append(
    option('', 'The workload’s (above)'),
    option('none', 'None (roofline)'),
    ...engineList().map((e) => option(e.id, e.name === e.id ? e.id : `${e.name} (${e.id})`)),
  );
  // Only the engines that run on the chosen device are offered (one chosen before stays, so the
  // core's error at /engine says why).
  const simEnginesHere = () => {
    const here = enginesOn(fc, chosenDevice($));
    const sel = $('sim-engine');
    for (const o of sel.options)
      o.hidden = o.disabled = Boolean(
        o.value && o.value !== 'none' && here && !here.some((e) => e.id === o.value) && o.value !== sel.value,
      );
  };
  requestAnimationFrame(() => setTimeout(simEnginesHere, 0));
  for (const id of ['gpu', 'gpu-custom']) $(id).addEventListener('change', simEnginesHere);
  // The simulation's defaults, from the core's request table.
  // (The lengths and the concurrency are the workload's unless typed here: app/workload.js.)
  for (const [id, key] of [['sim-requests', 'num_requests']]) {
    const d = D.request_fields.find((f) => f.part === 'simulation' && f.key === key)?.default;
    if (typeof d === 'number') $(id).value = String(d);
  }
  const simMore = tableInputs(D, SIM_MORE, $('sim-more-fields'), 'sim');
  addPageInputs(Object.fromEntries(Object.entries(simMore.urlKeys).map(([q, id]) => [`sim-${q}`, id])));
  let serve = null;
  function loadServe() {
    serve ??= import('./serve.js').then(({ initServe }) =>
      initServe({ fc, call: work, base: serveBase, labelOf, more: simMore }),
    );
    return serve;
  }
  const simForm = $('sim-form');
  simForm.addEventListener('submit', (e) => {
    e.preventDefault();
    scheduleUrl(true); // a Run click commits
    loadServe().then((panel) => panel.run());
  });
  simForm.addEventListener('input', (e) => {
    serve?.then((panel) => {
      panel.clearError(e.target.id);
      panel.stale();
    });
  });
  loadWhenNear($('serve'), simForm, loadServe);

  // ---------- "How many GPUs?" (app/plan.js, loaded on first use; fc.plan runs in the worker) ----------
  /** The plan's base: the request above with the fields fc.plan takes (the layout's ranks are the plan's). */
  function planBase() {
    const { req, bad } = requestAbove((id) => LAYOUT.some((f) => f.id === id), errorText);
    const forPlan = D.request_fields.filter((f) => f.commands.includes('plan'));
    const top = new Set(forPlan.filter((f) => f.part === '').map((f) => f.key));
    const links = new Set(forPlan.filter((f) => f.part === 'parallelism').map((f) => f.key));
    // The request's parts the plan takes too (the fine-tuning method: training_analysis).
    const parts = new Set(forPlan.filter((f) => f.part !== '' && f.part !== 'parallelism').map((f) => f.part));
    const base = Object.fromEntries(
      Object.entries(req).filter(([k]) => (top.has(k) || parts.has(k)) && k !== 'parallelism'),
    );
    const kept = Object.entries(req.parallelism ?? {}).filter(([k]) => links.has(k));
    if (kept.length) base.parallelism = Object.fromEntries(kept);
    if (!bad.length && !base.gpu) bad.push(`${labelOf('gpu')}: choose a GPU to plan for`);
    return { base, error: fixFirst(bad) };
  }
  /** "Use this layout": the plan's ranks into the layout inputs, then the estimate follows. */
  function useLayout(layout) {
    const key = { tensor_parallel: 'tp', pipeline_parallel: 'pp', data_parallel: 'dp', expert_parallel: 'ep' };
    for (const f of LAYOUT) if (key[f.key] in layout) $(f.id).value = String(layout[key[f.key]]);
    update();
    scheduleUrl(true);
    $('results').scrollIntoView?.({ block: 'start' });
  }
  {
    const d = D.request_fields.find((f) => f.part === 'plan' && f.key === 'max_gpus')?.default;
    if (typeof d === 'number') $('plan-max-gpus').value = String(d);
  }
  let plan = null;
  function loadPlan() {
    plan ??= import('./plan.js').then(({ initPlan }) => {
      const panel = initPlan({ call: work, base: planBase, useLayout, labelOf });
      panel.run();
      return panel;
    });
    return plan;
  }
  const planForm = $('plan-form');
  planForm.addEventListener('submit', (e) => {
    e.preventDefault();
    scheduleUrl(true); // a Plan click commits
    loadPlan().then((panel) => panel.run());
  });
  planForm.addEventListener('input', (e) => plan?.then((panel) => panel.clearError(e.target.id)));
  loadWhenNear($('plan'), planForm, loadPlan);

  // ---------- the SLO planner (app/slo-plan.js, loaded on first use; each search in its own worker) ----------
  // Its defaults and choices are the request table's "plan" fields.
  {
    const field = (key) => D.request_fields.find((f) => f.part === 'plan' && f.key === key);
    for (const [id, key] of [
      ['slo-gpus', 'gpus'],
      ['slo-percentile', 'slo_percentile'],
    ]) {
      const f = field(key);
      if (typeof f?.default === 'number') $(id).placeholder = String(f.default);
      if (f?.min !== undefined && f?.min !== null) $(id).min = String(f.min);
      if (f?.max !== undefined && f?.max !== null) $(id).max = String(f.max);
    }
    const optimize = field('optimize');
    const choices = (optimize?.choices ?? []).map((c) => c.name ?? c);
    $('slo-optimize').append(...choices.map((c) => option(c, c)));
    if (choices.includes(optimize?.derived)) $('slo-optimize').value = optimize.derived;
    if (optimize?.help) $('slo-optimize').title = optimize.help;
    for (const [id, key] of [
      ['slo-gpus', 'gpus'],
      ['slo-budget', 'budget_usd_per_hour'],
      ['slo-ttft', 'slo_ttft_s'],
      ['slo-tpot', 'slo_tpot_s'],
      ['slo-e2e', 'slo_e2e_s'],
      ['slo-percentile', 'slo_percentile'],
    ])
      if (field(key)?.help) $(id).title = field(key).help;
  }
  addPageInputs({
    'slo-gpus': 'slo-gpus',
    'slo-budget': 'slo-budget',
    'slo-traffic': 'slo-traffic',
    'slo-load': 'slo-load',
    'slo-ttft': 'slo-ttft',
    'slo-tpot': 'slo-tpot',
    'slo-e2e': 'slo-e2e',
    'slo-pct': 'slo-percentile',
    'slo-opt': 'slo-optimize',
    'slo-vs': 'slo-compare',
  });
  // "Use this configuration": a search point's `flopcast serve` arguments (the core's serve_args, one
  // replica) into the serving panel's inputs and the main form's precision and layout (which the
  // panel takes), each flag found in the request table; the panel's other settings go back to their
  // defaults, so that the simulation runs that replica as the search did. Then it runs.
  const SERVE_INPUT = {
    '/engine': 'sim-engine',
    '/simulation/concurrency': 'sim-concurrency',
    '/simulation/input_tokens': 'sim-isl',
    '/simulation/output_tokens': 'sim-osl',
    '/simulation/num_requests': 'sim-requests',
  };
  const simRequestsDefault = $('sim-requests').value;
  function inputFor(pointer) {
    if (SERVE_INPUT[pointer]) return SERVE_INPUT[pointer];
    if (simMore.ids.includes(simMore.idOf(pointer))) return simMore.idOf(pointer);
    const layout = LAYOUT.find((f) => `/parallelism/${f.key}` === pointer);
    if (layout) return layout.id;
    return document.querySelector(`#inputs [data-request="${pointer}"]`)?.id;
  }
  /** serve_args → [{field, value}] by the request table's flags (`--no-x` turns boolean x off). */
  function serveSettings(args) {
    const byFlag = new Map(
      D.request_fields.filter((f) => f.flag && f.commands.includes('simulate')).map((f) => [f.flag, f]),
    );
    const out = [];
    for (let i = 1; i < args.length; i++) {
      const a = args[i];
      if (!a.startsWith('-')) continue; // the model (the page's own)
      let f = byFlag.get(a);
      let value;
      if (f?.type === 'boolean') value = !a.startsWith('--no-');
      else if (f) value = args[++i];
      else if (a.startsWith('--no-') && byFlag.get(`--${a.slice(5)}`)?.type === 'boolean') {
        f = byFlag.get(`--${a.slice(5)}`);
        value = false;
      } else continue;
      out.push({ field: f, value });
    }
    return out;
  }
  /** Returns the arguments no input of the page holds (other than the page's model and GPU, and defaults). */
  function useConfiguration(point) {
    for (const id of ['sim-concurrency', 'sim-isl', 'sim-osl', ...simMore.ids]) $(id).value = '';
    $('sim-requests').value = simRequestsDefault;
    for (const f of LAYOUT) $(f.id).value = $(f.id).defaultValue;
    const w = workloadOf(requestAbove(() => true).req);
    const same = { '/simulation/input_tokens': w.prompt, '/simulation/output_tokens': w.output };
    const missed = [];
    for (const { field, value } of serveSettings(point.serve_args)) {
      if (field.pointer === '/gpu' || field.pointer === '/model') continue;
      const id = inputFor(field.pointer);
      if (!id) {
        if (String(field.default) !== String(value)) missed.push(`${field.flag} ${value}`);
        continue;
      }
      const el = $(id);
      if (String(same[field.pointer]) === String(value)) el.value = '';
      else if (typeof value === 'boolean') el.value = el.tagName === 'SELECT' ? (value ? 'on' : 'off') : String(value);
      else if (el.tagName === 'SELECT') setSelect(el, value);
      else el.value = String(value);
    }
    update();
    scheduleUrl(true);
    $('serve').scrollIntoView?.({ block: 'start' });
    loadServe().then((panel) => panel.run());
    return missed;
  }
  let slo = null;
  function loadSlo() {
    slo ??= import('./slo-plan.js').then(({ initSloPlan }) =>
      initSloPlan({
        base: planBase,
        // the searches in a worker of their own, which Cancel terminates (a WASM call cannot be interrupted)
        search: workerClient(
          () => new Worker(new URL('../plan-search-worker.js', import.meta.url), { type: 'module' }),
        ),
        useConfiguration,
        labelOf,
      }),
    );
    return slo;
  }
  const sloForm = $('slo-form');
  sloForm.addEventListener('submit', (e) => {
    e.preventDefault();
    scheduleUrl(true); // a Search click commits
    loadSlo().then((panel) => panel.run());
  });
  sloForm.addEventListener('input', (e) => slo?.then((panel) => panel.clearError(e.target.id)));
  loadWhenNear($('slo-plan'), sloForm, loadSlo);

  // ---------- the operators card (app/ops.js, loaded when it comes into view or gets focus) ----------
  let ops = null;
  function loadOps() {
    if (!ops) {
      ops = import('./ops.js').then(({ initOps }) => initOps({ fc, root: $('operators') }));
      ops.then((card) => lastGood && card.update(lastGood.req));
    }
    return ops;
  }
  $('operators').addEventListener('focusin', loadOps, { once: true });
  if ('IntersectionObserver' in window) {
    const seenOps = new IntersectionObserver((entries) => {
      if (entries.some((en) => en.isIntersecting)) {
        seenOps.disconnect();
        loadOps();
      }
    });
    seenOps.observe($('operators'));
  }

  // ---------- hosted providers vs self-hosted (app/providers.js, loaded when it comes into view) ----------
  let providers = null;
  function loadProviders() {
    providers ??= import('./providers.js').then(({ initProviders }) => {
      const panel = initProviders({ fc });
      if (lastGood) panel.update(lastGood.req);
      return panel;
    });
    return providers;
  }
  loadWhenNear($('providers'), $('providers'), loadProviders);

  return {
    /** After every input change: the simulation's figures are stale, the plan follows the inputs. */
    changed() {
      serve?.then((panel) => panel.stale());
      plan?.then((panel) => panel.refresh());
      slo?.then((panel) => panel.stale());
    },
    /** After a valid estimate of `req`: the operators card and the providers panel follow it. */
    estimated(req) {
      ops?.then((card) => card.update(req));
      providers?.then((panel) => panel.update(req));
    },
  };
}
