// The flopcast page: inputs → fc.estimate → results, charts, URL state; the sweep panel lives in
// app/sweep.js and its worker. Every number shown comes from the core; this file only moves
// inputs into requests and formats results (data-field = JSON pointer, data-value = raw value).
import { engine, FlopcastError } from './engine.js';
import { show } from './app/fmt.js';
import { initSweep } from './app/sweep.js';
import { workerClient } from './app/worker.js';
import { initSystem, loadCalibration } from './app/system.js';
import { HubError, HUB_TIMEOUT_MS, fetchHubConfig, hubConfigUrl } from './app/hub.js';
import { initPicker } from './app/picker.js';
import { initCheckpoint } from './app/checkpoint.js';
import { onFileDrop } from './app/drop.js';
import { initFormats } from './app/formats.js';
import { initTrainingCard } from './app/training-card.js';

const $ = (id) => document.getElementById(id);
const statusEl = $('status');
const resultsEl = $('results');
const form = $('inputs');

function setStatus(text, kind = '') {
  statusEl.textContent = text;
  statusEl.className = `status ${kind}`;
}

// Yields to the event loop, so that no piece of the start-up is one long main-thread task.
const nextTask = () => new Promise((resolve) => setTimeout(resolve, 0));

let fc;
try {
  fc = await engine();
  performance.mark('flopcast:engine'); // the module compiled and instantiated (bench:web reads it)
  await nextTask(); // the instantiation, the core's tables, the form and the first estimate: four tasks
} catch (e) {
  setStatus(`Could not load the WebAssembly estimator: ${e.message}. Reload to try again.`, 'bad');
  document.documentElement.dataset.loadError = '1';
  throw e;
}

const D = fc.defaults();
const S = D.settings;
const precisions = fc.precisions();
const gpus = fc.listGpus();
await nextTask();
// The registry's list (63 KB of JSON) is read when the picker first needs it, not before the first estimate.
const models = () => fc.listModels();
$('version').textContent = `v${fc.version()}`;

// Inputs that map one-to-one onto top-level request fields. The core's request table says which
// (each input carries data-request="<JSON pointer>"), the query name (the field's attribute, as the
// widget spells it), the kind, and whether it may be left unset (a derived default).
const FIELDS = D.request_fields.flatMap((f) => {
  const el = f.part === '' ? document.querySelector(`[data-request="${f.pointer}"]`) : null;
  if (!el) return [];
  const type = f.type === 'boolean' ? 'bool' : el.tagName === 'SELECT' ? 'select' : 'num';
  const unset = f.derived === null ? undefined : type === 'select' ? 'auto' : '';
  return [{ id: el.id, q: f.attribute, key: f.key, type, unset }];
});
const POINTER_FIELD = Object.fromEntries(FIELDS.map((f) => [f.key, f.id]));
// The parallel layout's numeric inputs: the request table's parallelism fields whose query name is
// an input's id (tp, pp, dp, ep).
const LAYOUT = D.request_fields.flatMap((f) =>
  f.part === 'parallelism' && f.attribute && $(f.attribute)?.type === 'number'
    ? [{ id: f.attribute, q: f.attribute, key: f.key }]
    : [],
);
const ERROR_IDS = [...document.querySelectorAll('.error[id$="-error"]')]
  .map((el) => el.id.slice(0, -'-error'.length))
  .filter((id) => $(id) && !id.startsWith('sweep-') && !id.startsWith('sim-') && !id.startsWith('plan-'));
// A field's error goes under its row of the form, at the row's full width (a narrow grid column
// would wrap it into many short lines); it keeps its id, so aria-describedby still finds it.
for (const grid of form.querySelectorAll('.grid2, .grid3')) {
  const errs = [...grid.querySelectorAll(':scope > .field > .error')];
  if (!errs.length) continue;
  const box = Object.assign(document.createElement('div'), { className: 'row-errors' });
  box.append(...errs);
  grid.after(box);
}
// Before a first valid estimate the figures are placeholders ("…"): a line above them says why.
const noEstimate = Object.assign(document.createElement('p'), { id: 'no-estimate', className: 'no-estimate' });
noEstimate.hidden = true;
resultsEl.querySelector('.summary').before(noEstimate);
const HUB_DEFAULT = $('hf-base').value;
const EXAMPLE_MODEL = 'llama-3-8b'; // the first model shown; any registry name works

// ---------- options from the core ----------
function option(value, text, label) {
  const o = document.createElement('option');
  o.value = value;
  if (text !== undefined) o.textContent = text;
  if (label !== undefined) o.label = label;
  return o;
}
// The model input searches the registry the core bundles (app/picker.js).
initPicker({
  input: $('model'),
  list: $('model-options'),
  count: $('model-options-count'),
  models,
  onPick: () => {
    update();
    scheduleUrl(true);
  },
});
$('gpu').append(
  ...gpus.map((g) => option(g.name, `${g.name} · ${show('bytes', g.memory_bytes)}`)),
  option('none', 'No GPU (counts and memory only)'),
  option('custom', 'Custom GPU (JSON)…'),
);
// The precision select grouped by format family, per-part formats and the engine (app/formats.js).
const formats = initFormats({ fc, $ });
const trainingCard = initTrainingCard({ fc, $, D });
const FORM_EXTRA = Object.values({ ...formats.url, ...trainingCard.url }); // inputs outside FIELDS that change the estimate
$('kv-precision').append(option('auto', 'auto'), ...precisions.map((p) => option(p, p)));
$('optimizer').append(...fc.optimizers().map((o) => option(o, o)));

const lower = (s) => String(s).toLowerCase();
function gpuName(text) {
  const t = lower(text);
  if (t === 'none' || t === 'custom') return t;
  return gpus.find((g) => lower(g.name) === t || g.aliases.some((a) => lower(a) === t))?.name ?? text;
}
/** Selects `value`; a value the list lacks is added so that the core can judge it. */
function setSelect(el, value) {
  const v = String(value);
  const hit = [...el.options].find((o) => lower(o.value) === lower(v));
  if (hit) el.value = hit.value;
  else {
    el.append(option(v, v));
    el.value = v;
  }
}

// ---------- initial values: the core's defaults (the query string is applied by applyQuery) ----------
const q = new URLSearchParams(location.search);
for (const f of FIELDS) {
  const el = $(f.id);
  const d = S[f.key];
  const v = d === null || d === undefined || f.unset === '' ? f.unset : d;
  if (f.type === 'bool') el.checked = Boolean(v);
  else if (f.type === 'select') setSelect(el, v);
  else el.value = String(v ?? '');
}
$('compute-eff').placeholder = `default ${S.compute_efficiency}`;
$('mem-eff').placeholder = `default ${S.mem_efficiency}`;
$('model').value = EXAMPLE_MODEL; // a bundled record (data/models/llama-3-8b.json)
setSelect($('gpu'), gpuName(S.gpu));
let lastGpu = $('gpu').value;

function pretty(text) {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}
function compact(text) {
  try {
    return JSON.stringify(JSON.parse(text));
  } catch {
    return text;
  }
}

// ---------- reading inputs ----------
function readRaw() {
  const raw = {
    source: form.querySelector('input[name="model-source"]:checked')?.value ?? 'registry',
    model: $('model').value,
    config: $('config').value,
    hfId: $('hf-id').value,
    hfBase: $('hf-base').value,
    gpu: $('gpu').value,
    gpuCustom: $('gpu-custom').value,
  };
  for (const f of FIELDS) raw[f.id] = f.type === 'bool' ? $(f.id).checked : $(f.id).value;
  return raw;
}

// URL values that a number input cannot hold ("seq=abc" leaves it empty): kept to hand to the core
// as typed (its error names them) and to keep in the URL, until the field is edited.
const urlRaw = new Map();

let hubError = ''; // the last Hub fetch's failure, shown at the id (or, for the address, at hf-base)
let hubBaseError = '';

function parseJson(text, id, errors, what) {
  if (!text.trim()) {
    errors.set(id, `Paste ${what} (a JSON object).`);
    return undefined;
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    errors.set(id, `Not valid JSON: ${e.message}`);
    return undefined;
  }
}

/** The estimate request for the inputs; JS-side problems (empty, not a number, bad JSON) go to `errors`. */
function buildRequest(raw, errors) {
  const req = {};
  if (raw.source === 'registry') {
    if (!raw.model.trim()) errors.set('model', 'Enter a model name or alias, e.g. llama-3-8b.');
    else req.model = raw.model.trim();
  } else if (raw.source === 'hub' && (hubError || hubBaseError)) {
    if (hubBaseError) errors.set('hf-base', hubBaseError);
    else errors.set('hf-id', hubError);
  } else if (raw.source === 'hub' && !raw.config.trim()) {
    errors.set('hf-id', 'Enter a model id and press “Fetch config”.');
  } else if (raw.source === 'checkpoint') {
    // The file's header gave its exact weight bytes; GGUF also its config (in the text area).
    const s = checkpoint.current(raw.config);
    if (!s) errors.set('checkpoint-file', checkpoint.failure() || 'Choose a .gguf or .safetensors file.');
    else {
      if (!raw.config.trim()) errors.set('config', s.architecture_error ?? 'Paste the checkpoint’s config.json.');
      else req.model = parseJson(raw.config, 'config', errors, 'a config.json');
      if (s.weight_bytes !== null) req.weight_bytes = s.weight_bytes;
    }
  } else {
    req.model = parseJson(raw.config, 'config', errors, 'a config.json');
  }
  if (raw.gpu === 'custom') req.gpu = parseJson(raw.gpuCustom, 'gpu-custom', errors, 'a GPU spec');
  else req.gpu = raw.gpu;
  for (const f of FIELDS) {
    const el = $(f.id);
    const v = raw[f.id];
    if (f.type === 'bool') req[f.key] = v;
    else if (f.type === 'select') {
      if (v !== f.unset) req[f.key] = v;
    } else if (v.trim() === '' && urlRaw.has(f.id)) {
      req[f.key] = urlRaw.get(f.id); // the core judges it (and names what it expects)
    } else if (v.trim() === '') {
      if (el.validity?.badInput) errors.set(f.id, fieldError('not a number: enter a number.'));
      else if (f.unset === undefined) errors.set(f.id, fieldError('required: enter a number.'));
    } else {
      const n = Number(v);
      if (Number.isFinite(n)) req[f.key] = n;
      else errors.set(f.id, fieldError(`not a number: "${v}".`));
    }
  }
  formats.apply(req); // per-part precision (the object form) and the engine
  const layout = {};
  for (const { id, key } of LAYOUT) {
    const v = $(id).value.trim();
    if (v === '') {
      if (urlRaw.has(id)) layout[key] = urlRaw.get(id);
      continue;
    }
    const n = Number(v);
    if (!Number.isFinite(n)) errors.set(id, fieldError(`not a number: "${v}".`));
    else if (n !== 1) layout[key] = n;
  }
  if (Object.keys(layout).length) req.parallelism = layout;
  const calibration = loadCalibration();
  if (calibration.length) req.calibration = calibration;
  return req;
}

/** The input id that a core error's JSON pointer names ('' when none). */
function fieldFor(pointer, raw) {
  const seg = (pointer || '').split('/')[1] ?? '';
  if (seg === 'model') return raw.source === 'registry' ? 'model' : 'config';
  if (seg === 'weight_bytes') return 'checkpoint-file';
  if (seg === 'engine') return 'engine-fit';
  if (seg === 'gpu') return raw.gpu === 'custom' ? 'gpu-custom' : 'gpu';
  if (seg === 'parallelism') {
    const sub = (pointer || '').split('/')[2] ?? '';
    return LAYOUT.find((f) => f.key === sub)?.id ?? '';
  }
  return POINTER_FIELD[seg] ?? '';
}

const labelOf = (id) => document.querySelector(`label[for="${id}"]`)?.textContent.trim().replace(/\s+/g, ' ') ?? id;

// An error for a field: the page's own words (a string, shown as is) or a value error, shown after
// the field's label ({text, code, pointer}: a core error, in plain words, its code and pointer kept
// for the data- attributes and the title).
const fieldError = (text, code = '', pointer = '') => ({ text, code, pointer });
const CORE_PREFIX = /^\[flopcast\.[\w.]+\](?: \([^)]*\))? /;
// In a pasted JSON object (a config.json, a GPU spec), the key inside it: "hidden_size: expected ...".
const IN_OBJECT = new Set(['config', 'gpu-custom']);
function coreError(e, id = '') {
  if (!(e instanceof FlopcastError)) return e.message;
  let text = e.message.replace(CORE_PREFIX, '');
  const inner = (e.pointer || '').split('/').slice(2).join('/');
  if (IN_OBJECT.has(id) && inner) text = `${inner}: ${text}`;
  return fieldError(text, e.code, e.pointer);
}
function errorText(id, err) {
  if (typeof err === 'string') return err;
  return id ? `${labelOf(id)}: ${err.text}` : err.text;
}

function showErrors(errors) {
  for (const id of ERROR_IDS) {
    const e = errors.get(id);
    const msg = e === undefined ? '' : errorText(id, e);
    const el = $(`${id}-error`);
    if (el.textContent !== msg) el.textContent = msg;
    const code = typeof e === 'object' ? e.code : '';
    const pointer = typeof e === 'object' ? e.pointer : '';
    if (code) {
      el.dataset.code = code;
      el.dataset.pointer = pointer;
      el.title = `flopcast.${code}${pointer ? ` at ${pointer}` : ''}`;
    } else {
      delete el.dataset.code;
      delete el.dataset.pointer;
      el.removeAttribute('title');
    }
    if (msg) $(id).setAttribute('aria-invalid', 'true');
    else $(id).removeAttribute('aria-invalid');
  }
}

// Every bad value at once: each field of `req` is tried on its own through the core, on top of a
// request made of the values already found good (a known model when the model itself is bad), so
// an error names its own field and a URL with several bad values shows them all.
function checkEach(req, raw, errors) {
  const fails = (r) => {
    try {
      fc.estimate(r);
      return null;
    } catch (e) {
      return e;
    }
  };
  const add = (e) => {
    const id = e instanceof FlopcastError ? fieldFor(e.pointer, raw) : '';
    if (!errors.has(id)) errors.set(id, coreError(e, id));
  };
  const base = {};
  if (req.model !== undefined) {
    const e = fails({ model: req.model });
    if (e) add(e);
    else base.model = req.model;
  }
  base.model ??= EXAMPLE_MODEL;
  for (const [k, v] of Object.entries(req)) {
    if (k === 'model') continue;
    const e = fails({ ...base, [k]: v });
    if (e) add(e);
    else base[k] = v;
  }
}

// ---------- rendering ----------
const fieldEls = [...resultsEl.querySelectorAll('[data-field]')];
const modeLabels = [...document.querySelectorAll('.mode-label')];
const perLabels = [...document.querySelectorAll('.per-label')];
const at = (obj, pointer) =>
  pointer
    .split('/')
    .slice(1)
    .reduce((o, k) => (o === null || o === undefined ? undefined : o[k]), obj);

function render(r) {
  for (const el of fieldEls) {
    let v = at(r, el.dataset.field);
    if (v === undefined) v = null;
    const value = v === null ? 'null' : String(v);
    if (el.dataset.value !== value || !el.dataset.value) {
      el.dataset.value = value;
      el.textContent = show(el.dataset.fmt, v);
    }
  }
  const fits = r.details.memory.fits_on_gpu;
  $('fits').className = `badge ${fits === true ? 'ok' : fits === false ? 'bad' : 'none'}`;
  resultsEl.classList.toggle('no-gpu', r.details.performance === null);
  const training = r.details.memory.training !== null;
  $('training-card').hidden = !training;
  // The configuration asked for: training rows or inference rows, the layout's GPUs.
  resultsEl.classList.toggle('training', training);
  resultsEl.classList.toggle('multi', (r.gpus ?? 1) > 1);
  for (const el of modeLabels) el.textContent = training ? '(training)' : '(inference)';
  for (const el of perLabels) el.textContent = training ? 'per training step' : 'per request';
  const notes = $('notes');
  if (notes.dataset.text !== r.note.join('\n')) {
    notes.dataset.text = r.note.join('\n');
    notes.replaceChildren(...r.note.map((n) => Object.assign(document.createElement('li'), { textContent: n })));
  }
  notes.parentElement.hidden = r.note.length === 0;
  resultsEl.classList.remove('stale');
}

function syncVisibility(raw) {
  for (const el of form.querySelectorAll('[data-source]'))
    el.hidden = !el.dataset.source.split(' ').includes(raw.source);
  $('gpu-custom-field').hidden = raw.gpu !== 'custom';
  for (const r of form.querySelectorAll('input[name="model-source"]'))
    r.parentElement.classList.toggle('on', r.checked);
  form.classList.toggle('no-training', !raw.training);
}

// ---------- URL state ----------
// The URL holds every input: the request-table fields (FIELDS, by the table's query names), the
// layout (LAYOUT), the model source and GPU, and the panels' inputs below (PAGE_INPUTS, by query
// name). A fresh load and a Back/Forward step both go through applyQuery, so they agree.
const PAGE_INPUTS = {
  // the compare & sweep panel
  sm: 'sweep-models',
  sb: 'sweep-batch',
  ss: 'sweep-seq',
  sp: 'sweep-precision',
  sg: 'sweep-gpu',
  // the serving-simulation panel (its code loads on first use; its inputs are in the page)
  engine: 'sim-engine',
  conc: 'sim-concurrency',
  isl: 'sim-isl',
  osl: 'sim-osl',
  nreq: 'sim-requests',
  slottft: 'sim-slo-ttft',
  slotpot: 'sim-slo-tpot',
  simy: 'sim-metric',
  // the "How many GPUs?" panel (app/plan.js)
  'plan-conc': 'plan-concurrency',
  'plan-gpus': 'plan-max-gpus',
  // the serving-throughput panel (app/system.js)
  'srv-prompt': 'srv-prompt',
  'srv-output': 'srv-output',
  'srv-concurrency': 'srv-concurrency',
  'srv-chunk': 'srv-chunk',
  // per-part precision, the engine (app/formats.js) and the LoRA inputs (app/training-card.js)
  ...formats.url,
  ...trainingCard.url,
};
const URL_IDS = [
  'model',
  'config',
  'hf-id',
  'hf-base',
  'gpu',
  'gpu-custom',
  ...FIELDS.map((f) => f.id),
  ...LAYOUT.map((f) => f.id),
  ...Object.values(PAGE_INPUTS),
];
const inputValue = (el) => (el.type === 'checkbox' ? el.checked : el.value);
let pristine = null; // every URL input's value on a load without a query (set once the page has its defaults)

/** Sets a number input; a value it cannot hold is kept in urlRaw for the core to judge. */
function setNumber(el, v) {
  el.value = v;
  if (el.value === '' && v.trim() !== '') urlRaw.set(el.id, v);
}

/** Puts the inputs in the state the query `p` describes: a fresh load's defaults, then p's values. */
function applyQuery(p) {
  if (p.has('eng')) formats.fillEngines(); // its options, before the address's value goes in
  pristine ??= Object.fromEntries(URL_IDS.map((id) => [id, inputValue($(id))]));
  urlRaw.clear();
  for (const [id, v] of Object.entries(pristine)) {
    if (typeof v === 'boolean') $(id).checked = v;
    else $(id).value = v;
  }
  for (const f of FIELDS) {
    if (!p.has(f.q)) continue;
    const el = $(f.id);
    const v = p.get(f.q);
    if (f.type === 'bool') el.checked = v === '1' || v === 'true';
    else if (f.type === 'select') setSelect(el, v);
    else setNumber(el, v);
  }
  for (const f of LAYOUT) if (p.has(f.q)) setNumber($(f.id), p.get(f.q));
  const src = ['registry', 'config', 'hub'].includes(p.get('src')) ? p.get('src') : 'registry';
  form.querySelector(`input[name="model-source"][value="${src}"]`).checked = true;
  if (p.has('model')) $('model').value = p.get('model');
  if (p.has('cfg')) $('config').value = pretty(p.get('cfg'));
  if (p.has('hf')) $('hf-id').value = p.get('hf');
  if (p.has('hfbase')) $('hf-base').value = p.get('hfbase');
  if (p.has('gpu')) setSelect($('gpu'), gpuName(p.get('gpu')));
  if (p.has('gpuspec')) $('gpu-custom').value = pretty(p.get('gpuspec'));
  for (const [k, id] of Object.entries(PAGE_INPUTS)) {
    if (!p.has(k)) continue;
    if ($(id).tagName === 'SELECT') setSelect($(id), p.get(k));
    else $(id).value = p.get(k);
  }
  lastGpu = $('gpu').value;
}

/** The page's address for the inputs `raw` (readRaw()) and the panels' inputs. */
function urlFor(raw) {
  const p = new URLSearchParams();
  // A checkpoint file cannot travel in a URL: its config does (without the exact bytes).
  if (raw.source !== 'registry') p.set('src', raw.source === 'checkpoint' ? 'config' : raw.source);
  p.set('model', raw.model);
  if (raw.source !== 'registry') {
    const cfg = compact(raw.config);
    if (cfg && cfg.length < 4000) p.set('cfg', cfg);
  }
  if (raw.source === 'hub' || raw.hfId) p.set('hf', raw.hfId);
  if (raw.hfBase !== HUB_DEFAULT) p.set('hfbase', raw.hfBase);
  p.set('gpu', raw.gpu);
  if (raw.gpu === 'custom') {
    const spec = compact(raw.gpuCustom);
    if (spec && spec.length < 4000) p.set('gpuspec', spec);
  }
  const typed = (id, v) => (v === '' && urlRaw.has(id) ? urlRaw.get(id) : v);
  for (const f of FIELDS) p.set(f.q, f.type === 'bool' ? (raw[f.id] ? '1' : '0') : typed(f.id, raw[f.id]));
  // The layout and the panels' inputs only where they differ from a fresh load's.
  for (const f of LAYOUT) if (typed(f.id, $(f.id).value) !== pristine?.[f.id]) p.set(f.q, typed(f.id, $(f.id).value));
  for (const [k, id] of Object.entries(PAGE_INPUTS)) if ($(id).value !== pristine?.[id]) p.set(k, $(id).value);
  return `${location.pathname}?${p}${location.hash}`;
}

// History: typing replaces the current entry's address (a reload keeps what is typed); a committed
// change (a select, an input's change event, blur or Enter, a Run button) adds an entry, so Back and
// Forward step between committed states. history.replaceState costs milliseconds in Chromium: typing
// writes once per task, however many inputs changed.
let urlTimer = 0;
let urlCommit = false;
let committedUrl = null; // the current entry's committed address (null until the first write)
const here = () => location.pathname + location.search + location.hash;
function scheduleUrl(commit = false) {
  urlCommit ||= commit;
  // A commit writes now, so that a Back pressed right after it finds its entry; typing waits.
  if (commit) flushUrl();
  else urlTimer ||= setTimeout(flushUrl, 0);
}
function flushUrl() {
  clearTimeout(urlTimer);
  urlTimer = 0;
  const commit = urlCommit;
  urlCommit = false;
  const url = urlFor(readRaw());
  if (commit && committedUrl !== null && url !== committedUrl) {
    if (here() !== committedUrl) history.replaceState(history.state, '', committedUrl); // the entry typing began from
    history.pushState(null, '', url);
    committedUrl = url;
  } else {
    if (url !== here()) history.replaceState(history.state, '', url);
    committedUrl ??= url;
  }
  if (!$('share-url').hidden) $('share-url').value = location.href;
}

// Back/Forward: the inputs as the entry's address says, and the estimate for them (no reload).
addEventListener('popstate', () => {
  clearTimeout(urlTimer);
  urlTimer = 0;
  urlCommit = false;
  committedUrl = null;
  hubError = hubBaseError = '';
  applyQuery(new URLSearchParams(location.search));
  update(true);
});
document.addEventListener('input', () => scheduleUrl());
document.addEventListener('change', (e) => {
  if (e.target.type !== 'file') scheduleUrl(true);
});
document.addEventListener('focusout', (e) => {
  if (e.target.matches?.('input, select, textarea')) scheduleUrl(true);
});
document.addEventListener('keydown', (e) => {
  if (e.key === 'Enter' && e.target instanceof HTMLInputElement) scheduleUrl(true);
});

// ---------- share: copy the link, export the result ----------
let shareTimer = 0;
function sayShared(text) {
  $('share-status').textContent = text;
  clearTimeout(shareTimer);
  shareTimer = setTimeout(() => ($('share-status').textContent = ''), 4000);
}
$('copy-link').addEventListener('click', async () => {
  flushUrl();
  const url = location.href;
  try {
    if (!navigator.clipboard?.writeText) throw new Error('no clipboard');
    await navigator.clipboard.writeText(url);
    $('share-url').hidden = true;
    sayShared('Copied');
  } catch {
    // Refused (no permission, not a secure context): the link in a selected field to copy by hand.
    const field = $('share-url');
    field.value = url;
    field.hidden = false;
    field.focus();
    field.select();
    sayShared('Copy the selected link (Ctrl+C or ⌘C)');
  }
});
const fileSafe = (s) => String(s).replace(/[^\w.-]+/g, '_');
$('export-json').addEventListener('click', () => {
  if (!lastGood) return;
  const r = fc.estimate({ ...lastGood.req, layer_table: true }); // the core's whole estimate, per-layer rows too
  const name = `flopcast-${fileSafe(r.model)}-${fileSafe(r.gpu ?? 'none')}.json`;
  const url = URL.createObjectURL(new Blob([`${JSON.stringify(r, null, 2)}\n`], { type: 'application/json' }));
  const a = Object.assign(document.createElement('a'), { href: url, download: name });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
  sayShared(`Saved ${name}`);
});

// The report file: its module and runtime load on the first click (web/src/report/download.js).
$('download-report').addEventListener('click', async () => {
  if (!lastGood) return;
  const r = lastGood.result;
  const name = `flopcast-${fileSafe(r.model)}-${fileSafe(r.gpu ?? 'none')}.html`;
  const request = { ...lastGood.req, report: { serving: $('report-serving').checked && r.gpu !== null } };
  $('download-report').disabled = true;
  sayShared('Writing the report…');
  try {
    const { downloadReport } = await import('./report/download.js');
    await downloadReport(work, request, name);
    sayShared(`Saved ${name}`);
  } catch (e) {
    sayShared(`Could not write the report: ${e.message}`);
  } finally {
    $('download-report').disabled = !lastGood;
  }
});

// ---------- the update loop ----------
// The charts load after the first estimate is on screen (they are not needed for the numbers).
let charts = null;
let lastGood = null;
let lastKey = null;
let ready = false;

function customTemplate() {
  const rec = gpus.find((g) => g.name === lastGpu) ?? gpus[0];
  const { aliases, interconnect, vendor, ...spec } = rec;
  return JSON.stringify({ ...spec, name: `${rec.name}-custom` }, null, 2);
}

function update(force = false) {
  if ($('gpu').value === 'custom' && !$('gpu-custom').value.trim()) $('gpu-custom').value = customTemplate();
  if (!['custom', 'none'].includes($('gpu').value)) lastGpu = $('gpu').value;
  const raw = readRaw();
  scheduleUrl();
  const key = JSON.stringify([raw, ...LAYOUT.map((f) => $(f.id).value), ...FORM_EXTRA.map((id) => $(id).value)]);
  if (key === lastKey && !force) return;
  lastKey = key;
  syncVisibility(raw);

  const errors = new Map();
  const t0 = performance.now();
  const req = buildRequest(raw, errors);
  let result = null;
  if (errors.size === 0) {
    try {
      result = fc.estimate(req); // the layer chart's per-layer rows come with the charts' data (the worker)
    } catch (e) {
      checkEach(req, raw, errors);
      // A problem of the combination (no single field is wrong on its own): where the core points.
      if (errors.size === 0) {
        const id = e instanceof FlopcastError ? fieldFor(e.pointer, raw) : '';
        errors.set(id, coreError(e, id));
      }
    }
  } else checkEach(req, raw, errors); // the page found some; the core judges the rest
  showErrors(errors);
  serve?.then((panel) => panel.stale());
  plan?.then((panel) => panel.refresh());
  noEstimate.hidden = Boolean(result || lastGood);
  if (result) {
    render(result);
    formats.note(result);
    resultsEl.dataset.request = JSON.stringify(req); // what was estimated (tests, the JSON export's twin)
    trainingCard.update(result, req);
    const ws = $('weights-source');
    const ck = raw.source === 'checkpoint' ? checkpoint.current(raw.config) : null;
    ws.hidden = !(ck && req.weight_bytes !== undefined);
    ws.textContent = ws.hidden
      ? ''
      : `(exact, from ${checkpoint.file().name}: ${ck.mix ? `${ck.mix} mix, ` : ''}${show('bits', ck.bits_per_weight)}/weight)`;
    system.update(req, result);
    lastGood = { result, req };
    $('export-json').disabled = false;
    $('download-report').disabled = false;
    charts?.schedule(result, req);
    ops?.then((card) => card.update(req));
    providers?.then((panel) => panel.update(req));
    const ms = performance.now() - t0;
    const where = result.gpu ? `on ${result.gpu}` : 'without a GPU';
    setStatus(
      `Estimated ${result.model} (${result.precision}) ${where}, batch ${result.batch_size} × ${result.sequence_length} tokens, in ${show('seconds', ms / 1000)}.`,
      'ok',
    );
  } else {
    resultsEl.classList.add('stale');
    charts?.stale(true);
    $('operators').classList.add('stale'); // until the next valid estimate reaches the card
    const list = [...errors].map(([id, e]) => {
      const text = errorText(id, e);
      return (id && typeof e === 'string' ? `${labelOf(id)}: ${text}` : text).replace(/\.$/, '');
    });
    const what = list.length === 1 ? 'Invalid input' : `${list.length} invalid inputs`;
    const fields = [...errors.keys()].filter(Boolean).map(labelOf);
    noEstimate.textContent = `No figures yet: ${fields.length ? `fix ${fields.join(', ')} (marked in red)` : 'fix the inputs'} to see the estimate.`;
    setStatus(
      lastGood
        ? `${what} — ${list.join(' · ')} (showing the last valid estimate, dimmed).`
        : `No estimate yet: ${what.toLowerCase().replace(/^invalid input$/, 'an invalid input')}, marked at ${list.length === 1 ? 'its field' : 'their fields'} — ${list.join(' · ')}. The figures appear once ${list.length === 1 ? 'it is' : 'they are'} fixed.`,
      'bad',
    );
  }
  if (!ready) {
    ready = true;
    window.__flopcastFirstEstimateMs = performance.now();
    document.body.dataset.ready = '1';
  }
}

form.addEventListener('submit', (e) => e.preventDefault());
form.addEventListener('input', (e) => {
  urlRaw.delete(e.target.id); // edited: what the field holds now
  if (e.target.id === 'hf-id' || e.target.id === 'hf-base') hubError = hubBaseError = '';
  if (e.target.id !== 'config-file' && e.target.id !== 'checkpoint-file') update();
});
form.addEventListener('change', (e) => {
  if (e.target.id === 'config-file') readFile(e.target.files?.[0]);
  else if (e.target.id === 'checkpoint-file') {
    $('source-checkpoint').checked = true;
    checkpoint.load(e.target.files?.[0]);
  } else update();
});
const checkpoint = initCheckpoint({
  fc,
  FlopcastError,
  // An .onnx file: the profiler panel, loaded only now.
  onOnnx: (file) => {
    update(); // shows the checkpoint source's fields, where the panel goes
    return import('./app/profile-panel.js').then(({ showProfile }) => showProfile({ fc, FlopcastError }, file));
  },
  onLoaded: (summary, file) => {
    update(true);
    if (summary)
      setStatus(
        `Read the header of ${file.name} (${summary.tensor_count} tensors); ${statusEl.textContent}`,
        statusEl.className.includes('bad') ? 'bad' : 'ok',
      );
  },
});

// ---------- config.json from a file or the Hub ----------
function useConfigText(text) {
  $('config').value = pretty(text);
  if (readRaw().source === 'registry') $('source-config').checked = true;
  update();
}

async function readFile(file) {
  const err = $('config-file-error');
  err.textContent = '';
  if (!file) return;
  try {
    useConfigText(await file.text());
    setStatus(`Read ${file.name}.`, 'ok');
    update(true);
    scheduleUrl(true);
  } catch (e) {
    err.textContent = `Could not read ${file.name}: ${e.message}`;
  }
}

onFileDrop($('config-drop'), readFile);

// The Hub fetch: checked address and id (app/hub.js), a timeout (?hftimeout=<ms> shortens it, for
// tests), a Cancel button while it runs; the Fetch button is re-enabled however it ends.
const hubTimeout = /^\d{1,7}$/.test(q.get('hftimeout') ?? '')
  ? Number(q.get('hftimeout')) || HUB_TIMEOUT_MS
  : HUB_TIMEOUT_MS;
let hubFetch = null;
function setHubBusy(busy) {
  $('hf-fetch').disabled = busy;
  $('hf-cancel').hidden = !busy;
  $('hf-id').closest('.field').setAttribute('aria-busy', String(busy));
}
$('hf-cancel').addEventListener('click', () => hubFetch?.abort());
$('hf-fetch').addEventListener('click', async () => {
  $('source-hub').checked = true;
  hubError = hubBaseError = '';
  let url;
  try {
    url = hubConfigUrl($('hf-base').value, $('hf-id').value);
  } catch (e) {
    if (e.kind === 'base') hubBaseError = e.message;
    else hubError = e.message;
    return update(true);
  }
  hubFetch?.abort();
  const ctl = (hubFetch = new AbortController());
  setHubBusy(true);
  setStatus(`Fetching ${url} …`);
  try {
    const text = await fetchHubConfig(url, { signal: ctl.signal, timeoutMs: hubTimeout });
    if (ctl !== hubFetch) return;
    $('config').value = pretty(text);
    update(true);
    scheduleUrl(true);
  } catch (e) {
    if (ctl !== hubFetch) return;
    hubError = e instanceof HubError ? e.message : `Could not fetch ${url}: ${e.message}`;
    update(true);
  } finally {
    if (ctl === hubFetch) {
      hubFetch = null;
      setHubBusy(false);
    }
  }
});

// ---------- the sweep panel ----------
const SWEPT = new Set(['model', 'config', 'hf-id', 'gpu', 'gpu-custom', 'precision', 'batch', 'seq']);
/** The settings the sweep shares with the inputs above (everything it does not vary). */
function sweepBase() {
  const raw = readRaw();
  const errors = new Map();
  const req = buildRequest(raw, errors);
  for (const k of ['model', 'gpu', 'precision', 'batch_size', 'sequence_length', 'weight_bytes']) delete req[k];
  const bad = [...errors].filter(([id]) => !SWEPT.has(id)).map(([id, msg]) => `${labelOf(id)}: ${msg}`);
  return { base: req, error: bad.length ? `Fix the inputs above first — ${bad.join(' · ')}` : '' };
}
const system = initSystem({ fc, FlopcastError, onCalibrated: () => update(true) });
// One worker for the sweeps and the serving simulations (app/worker.js).
const work = workerClient(() => new Worker(new URL('./sweep-worker.js', import.meta.url), { type: 'module' }));
initSweep({ fc, sweepBase, call: work, onInput: () => scheduleUrl() });
$('sweep-form').addEventListener('submit', () => scheduleUrl(true)); // a Run click commits

// ---------- the serving-simulation panel (app/serve.js, loaded on first use) ----------
/** The simulation's base: the throughput request of the inputs above (fc.simulate adds engine and simulation). */
function serveBase() {
  const raw = readRaw();
  const errors = new Map();
  const req = buildRequest(raw, errors);
  const fields = D.request_fields.filter((f) => f.part === '');
  const forSim = fields.filter((f) => f.commands.includes('simulate'));
  const keys = new Set(
    (forSim.length ? forSim : fields.filter((f) => f.commands.includes('throughput'))).map((f) => f.key),
  );
  for (const k of ['engine', 'serving', 'simulation']) keys.delete(k);
  const base = Object.fromEntries(Object.entries(req).filter(([k]) => keys.has(k)));
  const bad = [...errors].filter(([id]) => !id.startsWith('sim-')).map(([id, msg]) => `${labelOf(id)}: ${msg}`);
  if (!bad.length && !base.gpu) bad.push(`${labelOf('gpu')}: choose a GPU to simulate serving`);
  return { base, error: bad.length ? `Fix the inputs above first — ${bad.join(' · ')}` : '' };
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
  option('', 'None (roofline)'),
  ...engineList().map((e) => option(e.id, e.name === e.id ? e.id : `${e.name} (${e.id})`)),
);
// The simulation's defaults, from the core's request table.
for (const [id, key] of [
  ['sim-isl', 'input_tokens'],
  ['sim-osl', 'output_tokens'],
  ['sim-requests', 'num_requests'],
]) {
  const d = D.request_fields.find((f) => f.part === 'simulation' && f.key === key)?.default;
  if (typeof d === 'number') $(id).value = String(d);
}
let serve = null;
function loadServe() {
  serve ??= import('./app/serve.js').then(({ initServe }) => initServe({ fc, call: work, base: serveBase, labelOf }));
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
loadWhenNear($('serve'), simForm, loadServe);

// ---------- "How many GPUs?" (app/plan.js, loaded on first use; fc.plan runs in the worker) ----------
/** The plan's base: the request above with the fields fc.plan takes (the layout's ranks are the plan's). */
function planBase() {
  const raw = readRaw();
  const errors = new Map();
  const req = buildRequest(raw, errors);
  const forPlan = D.request_fields.filter((f) => f.commands.includes('plan'));
  const top = new Set(forPlan.filter((f) => f.part === '').map((f) => f.key));
  const links = new Set(forPlan.filter((f) => f.part === 'parallelism').map((f) => f.key));
  const base = Object.fromEntries(Object.entries(req).filter(([k]) => top.has(k) && k !== 'parallelism'));
  const kept = Object.entries(req.parallelism ?? {}).filter(([k]) => links.has(k));
  if (kept.length) base.parallelism = Object.fromEntries(kept);
  const bad = [...errors]
    .filter(([id]) => !LAYOUT.some((f) => f.id === id))
    .map(([id, msg]) => `${labelOf(id)}: ${errorText(id, msg)}`);
  if (!bad.length && !base.gpu) bad.push(`${labelOf('gpu')}: choose a GPU to plan for`);
  return { base, error: bad.length ? `Fix the inputs above first — ${bad.join(' · ')}` : '' };
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
  plan ??= import('./app/plan.js').then(({ initPlan }) => {
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

// ---------- the operators card (app/ops.js, loaded when it comes into view or gets focus) ----------
let ops = null;
function loadOps() {
  if (!ops) {
    ops = import('./app/ops.js').then(({ initOps }) => initOps({ fc, root: $('operators') }));
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
  providers ??= import('./app/providers.js').then(({ initProviders }) => {
    const panel = initProviders({ fc });
    if (lastGood) panel.update(lastGood.req);
    return panel;
  });
  return providers;
}
loadWhenNear($('providers'), $('providers'), loadProviders);

// The first estimate, for the inputs the address gives.
applyQuery(q);
performance.mark('flopcast:setup'); // the form built from the core's tables
await nextTask();
update(true);
// The charts' code loads once the first estimate has been painted (the frame after it).
const afterPaint = (f) => (document.hidden ? setTimeout(f, 0) : requestAnimationFrame(() => setTimeout(f, 0)));
afterPaint(() =>
  import('./charts.js').then(
    ({ createCharts }) => {
      // The charts' data (the series' estimates) is computed in the worker, off the page's thread.
      charts = createCharts({ reportData: (request) => work({ type: 'reportData', request }).then((m) => m.result) });
      if (lastGood) charts.schedule(lastGood.result, lastGood.req);
      if (resultsEl.classList.contains('stale')) charts.stale(true);
      matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => charts.theme());
    },
    (e) => console.warn(`the charts could not load (${e.message}); the numbers are unaffected`),
  ),
);

// Offline once loaded: the service worker (generated at build time) precaches the site.
if ('serviceWorker' in navigator && !import.meta.env.DEV && location.protocol.startsWith('http'))
  navigator.serviceWorker.register('./sw.js').catch((e) => console.warn('offline cache unavailable:', e.message));
