// The "How many GPUs?" panel (loaded on first use by panels.js): fc.plan for the page's model,
// precision, context, batch and GPU (the request above, without its layout ranks) plus the panel's
// "plan" fields, run in the page's worker; shows the core's layouts as they came, the cheapest and
// the fastest marked, and "Use this layout" puts a row's ranks into the layout inputs above.
// Formatting only here (../format.js); every cell keeps its raw value (data-value) at its key in
// the layout (data-field).
import { plainMessage, showError } from './fmt.js';
import { readNumbers, setFieldError } from './inputs.js';
import { formatBytes, formatInteger, formatRate, formatSeconds, formatSI, formatUsd } from '../format.js';
import { placeholder, showWorkload, workloadOf } from './workload.js';

const $ = (id) => document.getElementById(id);

// The panel's inputs: input id, "plan" key.
const INPUTS = [
  { id: 'plan-concurrency', key: 'concurrency' },
  { id: 'plan-max-gpus', key: 'max_gpus' },
];
const COLUMNS = [
  ['GPUs', 'gpus', formatInteger],
  ['TP', 'tp', formatInteger],
  ['PP', 'pp', formatInteger],
  ['EP', 'ep', formatInteger],
  ['DP', 'dp', formatInteger],
  ['Memory per GPU', 'per_gpu_memory_bytes', formatBytes],
  ['TTFT', 'ttft_s', formatSeconds],
  ['TPOT', 'tpot_s', formatSeconds],
  ['Output tokens/s', 'tokens_per_s', formatRate],
  ['$/h (all GPUs)', 'cost_per_hour_usd', formatUsd],
  ['$ per 1M output tokens', 'usd_per_million_output_tokens', formatUsd],
];

// Training (the request's training with its fine-tuning method): the step instead of TTFT/TPOT.
const TRAINING_COLUMNS = [
  ...COLUMNS.slice(0, 6),
  ['Training step', 'training_step_s', formatSeconds],
  ['Trained tokens/s', 'tokens_per_s', formatRate],
  ['$/h (all GPUs)', 'cost_per_hour_usd', formatUsd],
  ['$ per 1M trained tokens', 'usd_per_million_output_tokens', formatUsd],
];
const METHOD = { full: 'full fine-tuning', lora: 'LoRA', qlora: 'QLoRA' };

/** "TP=4 × PP=3"; one GPU: "1 GPU". */
export function layoutName(x) {
  const parts = [
    ['TP', x.tp],
    ['PP', x.pp],
    ['EP', x.ep],
    ['DP', x.dp],
  ].filter(([, v]) => v > 1);
  return parts.length ? parts.map(([k, v]) => `${k}=${v}`).join(' × ') : '1 GPU';
}

/**
 * A layout over several nodes: how many (of the plan's interconnect domain size each), the rate the
 * core charges the traffic between them at and, in the core's words, which traffic that is.
 */
function nodesNote(x, r) {
  const note = document.createElement('small');
  note.className = 'plan-nodes';
  note.dataset.field = 'nodes';
  note.dataset.value = String(x.nodes);
  const rate = x.inter_node_bandwidth_bytes_per_s;
  note.textContent =
    `${x.nodes} nodes of ${formatInteger(r.interconnect_domain_size)} GPUs; between nodes` +
    `${rate === null ? '' : ` ${formatSI(rate, 'B/s')} per direction`}: ${x.inter_node}.`;
  return note;
}

/** The one-line answer: where it fits first, or the closest layout when nothing fits. */
export function planAnswer(r) {
  const what = r.training ? ` for training (${METHOD[r.fine_tuning] ?? r.fine_tuning})` : '';
  if (!r.layouts.length) {
    const c = r.closest;
    return c
      ? `Does not fit${what} on up to ${r.max_gpus} × ${r.gpu}: the closest, ${layoutName(c)} on ${c.gpus} GPUs, needs ${formatBytes(c.per_gpu_memory_bytes)} per GPU of ${formatBytes(c.usable_bytes)} usable.`
      : `Does not fit${what} on up to ${r.max_gpus} × ${r.gpu}.`;
  }
  const x = r.layouts[0];
  return `Fits${what} on ${x.gpus} × ${r.gpu} (${layoutName(x)}) at ${formatBytes(x.per_gpu_memory_bytes)} per GPU of ${formatBytes(x.usable_bytes)} usable.`;
}

/**
 * fc: the loaded API; call: the worker client (app/worker.js); base(): {base, error}, the plan
 * request of the inputs above; useLayout({tp, pp, dp, ep}): sets the layout inputs; labelOf(id).
 */
export function initPlan({ call, base, useLayout, labelOf }) {
  const table = $('plan-table');
  const results = $('plan-results');
  const answer = $('plan-answer');
  const errorEl = $('plan-error');
  const notes = $('plan-notes');
  let shown = null;
  let runId = 0;

  const setError = setFieldError;
  const readPlan = (errors) => readNumbers(INPUTS, errors);
  /** The plan part for the request above: the workload's concurrency unless the panel overrides it. */
  function planPart(req, errors) {
    const typed = readPlan(errors);
    const w = workloadOf(req);
    placeholder('plan-concurrency', w.concurrency);
    showWorkload('plan-workload', w, { concurrency: typed.concurrency });
    // Training plans one optimizer step of the batch: no serving concurrency.
    return req.training ? typed : { concurrency: w.concurrency, ...typed };
  }

  function render() {
    const { result: r } = shown;
    answer.textContent = planAnswer(r);
    answer.dataset.fits = String(r.fits);
    answer.dataset.training = r.training ? (r.fine_tuning ?? '') : '';
    const columns = r.training ? TRAINING_COLUMNS : COLUMNS;
    // The marks and the button first: on a narrow screen they stay in view while the figures scroll.
    const head = document.createElement('tr');
    for (const h of ['Layout', ...columns.map(([h]) => h)])
      head.append(Object.assign(document.createElement('th'), { scope: 'col', textContent: h }));
    table.tHead.replaceChildren(head);
    const rows = r.layouts.map((x, i) => {
      const tr = document.createElement('tr');
      tr.dataset.index = String(i);
      if (x.cheapest) tr.dataset.cheapest = '';
      if (x.fastest) tr.dataset.fastest = '';
      const marks = document.createElement('td');
      marks.className = 'plan-marks';
      for (const [flag, text] of [
        [x.cheapest, 'cheapest'],
        [x.fastest, 'fastest'],
        [x.spans_nodes, 'spans nodes'],
      ])
        if (flag)
          marks.append(
            Object.assign(document.createElement('span'), {
              className: `plan-mark ${text.replace(' ', '-')}`,
              textContent: text,
            }),
          );
      const use = Object.assign(document.createElement('button'), { type: 'button', textContent: 'Use this layout' });
      use.className = 'plan-use';
      use.setAttribute('aria-label', `Use ${layoutName(x)} (${x.gpus} GPUs) in the layout above`);
      use.addEventListener('click', () => useLayout({ tp: x.tp, pp: x.pp, dp: x.dp, ep: x.ep }));
      marks.prepend(use);
      if (x.nodes > 1) marks.append(nodesNote(x, r));
      tr.append(marks);
      for (const [, key, fmt] of columns) {
        const td = document.createElement('td');
        td.dataset.field = key;
        td.dataset.value = String(x[key]);
        td.textContent = fmt(x[key]);
        tr.append(td);
      }
      return tr;
    });
    table.tBodies[0].replaceChildren(...rows);
    table.dataset.request = JSON.stringify(shown.request); // what was sent, for tests and inspection
    notes.replaceChildren(...r.notes.map((n) => Object.assign(document.createElement('li'), { textContent: n })));
    results.hidden = false;
    results.classList.remove('stale');
  }

  async function run() {
    for (const { id } of INPUTS) setError(id, '');
    showError(errorEl, '');
    const errors = new Map();
    const { base: req, error } = base();
    const plan = planPart(req, errors);
    if (errors.size) {
      for (const [id, msg] of errors) setError(id, msg);
      answer.textContent = `Fix ${[...errors.keys()].map(labelOf).join(', ')}.`;
      return;
    }
    if (error) {
      errorEl.textContent = error;
      answer.textContent = 'Not planned.';
      results.classList.add('stale');
      return;
    }
    const request = { ...req, plan };
    const id = ++runId;
    $('plan-run').setAttribute('aria-busy', 'true');
    const t0 = performance.now();
    let r;
    try {
      r = await call({ type: 'plan', request });
    } catch (e) {
      if (id !== runId) return;
      const [, top, sub] = (e.pointer || '').split('/');
      const field = top === 'plan' ? INPUTS.find((f) => f.key === sub)?.id : undefined;
      if (field) setError(field, `${labelOf(field)}: ${plainMessage(e)}`, e);
      else showError(errorEl, plainMessage(e), e);
      answer.textContent = 'Not planned.';
      results.classList.add('stale');
      return;
    } finally {
      if (id === runId) $('plan-run').removeAttribute('aria-busy');
    }
    if (id !== runId) return;
    shown = { request, result: r.result, ms: performance.now() - t0 };
    render();
  }

  let timer = 0;
  return {
    run,
    /** The inputs above changed: plan again (after a pause in typing) if the request did. */
    refresh() {
      if (!shown) return;
      clearTimeout(timer);
      timer = setTimeout(() => {
        const { base: req, error } = base();
        const errors = new Map();
        const request = { ...req, plan: planPart(req, errors) };
        if (error || errors.size || JSON.stringify(request) !== JSON.stringify(shown.request)) run();
      }, 300);
    },
    /** The plan shown, as fc.plan returned it (null before the first run). */
    result: () => shown?.result ?? null,
    stale() {
      if (shown) results.classList.add('stale');
    },
    clearError: (id) => INPUTS.some((f) => f.id === id) && setError(id, ''),
  };
}
