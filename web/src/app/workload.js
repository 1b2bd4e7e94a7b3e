// One workload for every panel: the main form's Workload (prompt and generated tokens, the batch
// as the number of concurrent requests) and its serving engine drive the serving card, the
// providers' self-hosted row, the planner and the simulation. A panel's own length, concurrency or
// engine input is an override: empty by default (its placeholder shows the workload's value), and
// when one is set the panel's note says so, in view. The defaults are the core's request table's;
// nothing here re-types them.

const $ = (id) => document.getElementById(id);

let D = null;
/** D: fc.defaults() (the request table gives the Workload's defaults and each command's fields). */
export function initWorkload(defaults) {
  D = defaults;
}

const defaultOf = (key) => D?.request_fields.find((f) => f.part === '' && f.key === key)?.default;
const count = (v, key) => (Number.isFinite(v) ? v : defaultOf(key));

/** The workload of the main form's request `req`: {prompt, output, concurrency, engine}. */
export function workloadOf(req) {
  return {
    prompt: count(req?.sequence_length, 'sequence_length'),
    output: count(req?.num_generated_tokens, 'num_generated_tokens'),
    concurrency: count(req?.batch_size, 'batch_size'),
    engine: typeof req?.engine === 'string' && req.engine !== '' ? req.engine : null,
  };
}

/** The top-level request keys a command takes (the core's request table). */
export function takes(command) {
  return new Set(D.request_fields.filter((f) => f.part === '' && f.commands.includes(command)).map((f) => f.key));
}

/**
 * The throughput request (fc.throughput's) for the page's request `req` at the workload, with a
 * panel's overrides {prompt_tokens, output_tokens, concurrency, chunked_prefill_tokens} on top.
 * The serving card and the providers' self-hosted row both send this, so they agree.
 */
export function servingRequest(req, overrides = {}) {
  const keys = takes('throughput');
  const w = workloadOf(req);
  const base = Object.fromEntries(Object.entries(req).filter(([k]) => keys.has(k)));
  return {
    ...base,
    serving: { prompt_tokens: w.prompt, output_tokens: w.output, concurrency: w.concurrency, ...overrides },
  };
}

const NAMES = {
  prompt_tokens: 'prompt tokens',
  output_tokens: 'output tokens',
  input_tokens: 'input tokens',
  concurrency: 'concurrency',
  engine: 'engine',
};

/**
 * Shows in `id` (a panel's note) the workload a panel used: `used` {prompt, output, concurrency,
 * engine} and the overrides it applied ({key: value}); an override is named, with the workload's
 * value it replaced, so it is always in view.
 */
export function showWorkload(id, used, overrides = {}) {
  const el = $(id);
  if (!el) return;
  const conc = Array.isArray(used.concurrency) ? used.concurrency.join(', ') : used.concurrency;
  const base = `Workload: ${used.prompt} prompt + ${used.output} output tokens, concurrency ${conc}, engine ${used.engine === 'none' ? 'none (plain roofline)' : (used.engine ?? "the device's default")}.`;
  const over = Object.entries(overrides).filter(([, v]) => v !== undefined && v !== null && v !== '');
  el.dataset.overrides = over.map(([k]) => k).join(',');
  el.classList.toggle('overridden', over.length > 0);
  el.textContent = over.length
    ? `${base} This panel overrides the workload: ${over.map(([k, v]) => `${NAMES[k] ?? k} ${Array.isArray(v) ? v.join(', ') : v}`).join(', ')}.`
    : base;
}

/** Sets the placeholder of a panel's override input to the workload's value. */
export function placeholder(id, value) {
  const el = $(id);
  if (el) el.placeholder = `workload: ${value}`;
}
