// The page's address holds every input: the request-table fields (FIELDS, by the table's query
// names), the layout (LAYOUT), the model source and GPU, and the panels' inputs (PAGE_INPUTS, by
// query name). A fresh load and a Back/Forward step both go through applyQuery, so they agree;
// every change goes through scheduleUrl (typing) or scheduleUrl(true) (a committed change).
import { FIELDS, LAYOUT, compact, pretty, readRaw, setHubError, urlRaw } from './request.js';
import { gpuName, rememberGpu } from './gpu-select.js';
import { $, setSelect } from './dom.js';

const inputValue = (el) => (el.type === 'checkbox' ? el.checked : el.value);
const here = () => location.pathname + location.search + location.hash;

/** Sets a number input; a value it cannot hold is kept in urlRaw for the core to judge. */
function setNumber(el, v) {
  el.value = v;
  if (el.value === '' && v.trim() !== '') urlRaw.set(el.id, v);
}

let form;
let formats;
let update;
let HUB_DEFAULT = ''; // the Hub address a fresh load shows (left out of the address)
let PAGE_INPUTS = {};
let URL_IDS = [];
let pristine = null; // every URL input's value on a load without a query (set once the page has its defaults)

/**
 * Keeps the address and the inputs in step. `formats` and `trainingCard` name their inputs' query
 * keys (.url); `update(force)` estimates after a Back/Forward step.
 */
export function initUrlState(deps) {
  let trainingCard;
  ({ form, formats, trainingCard, update } = deps);
  HUB_DEFAULT = $('hf-base').value;
  PAGE_INPUTS = {
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
  URL_IDS = [
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

  // Back/Forward: the inputs as the entry's address says, and the estimate for them (no reload).
  addEventListener('popstate', () => {
    clearTimeout(urlTimer);
    urlTimer = 0;
    urlCommit = false;
    committedUrl = null;
    setHubError();
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
}

/**
 * Inputs a panel generates at start-up (query name → input id), kept in the address like the
 * page's own; call before the first applyQuery.
 */
export function addPageInputs(map) {
  Object.assign(PAGE_INPUTS, map);
  URL_IDS.push(...Object.values(map));
}

/** Puts the inputs in the state the query `p` describes: a fresh load's defaults, then p's values. */
export function applyQuery(p) {
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
  rememberGpu();
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
export function scheduleUrl(commit = false) {
  urlCommit ||= commit;
  // A commit writes now, so that a Back pressed right after it finds its entry; typing waits.
  if (commit) flushUrl();
  else urlTimer ||= setTimeout(flushUrl, 0);
}
export function flushUrl() {
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
