// The flopcast page: inputs → fc.estimate → results, charts, URL state. This file loads the core,
// builds the form from its tables and runs the update loop; its parts live in app/: the request
// (request.js), field errors (errors.js), the results (results.js), the address (url-state.js),
// share and export (share.js), a config.json from a file or the Hub (config-source.js), the GPU
// select (gpu-select.js) and the panels below the estimate (panels.js, sweep.js and the lazily loaded
// serve.js, plan.js, ops.js, providers.js). Every number shown comes from the core; the page only
// moves inputs into requests and formats results (data-field = JSON pointer, data-value = raw value).
import { FlopcastError } from './engine.js';
import { NotReady, openEngine } from './first-visit.js';
import { initWorkload } from './app/workload.js';
import { show } from './app/fmt.js';
import { workerClient } from './app/worker.js';
import { initSystem } from './app/system.js';
import { initPicker } from './app/picker.js';
import { initCheckpoint } from './app/checkpoint.js';
import { initFormats } from './app/formats.js';
import { initTrainingCard } from './app/training-card.js';
import { errorText, initErrors, labelOf, coreError, showErrors } from './app/errors.js';
import { $, option, setSelect } from './app/dom.js';
import { fillGpus, gpuName, rememberGpu, syncGpu } from './app/gpu-select.js';
import {
  EXAMPLE_MODEL,
  FIELDS,
  LAYOUT,
  buildRequest,
  checkEach,
  fieldFor,
  initRequest,
  readRaw,
  setHubError,
  syncVisibility,
  urlRaw,
} from './app/request.js';
import { initResults, lastGood, render, setLastGood } from './app/results.js';
import { applyQuery, initUrlState, scheduleUrl } from './app/url-state.js';
import { initShare } from './app/share.js';
import { initConfigSource } from './app/config-source.js';
import { initConfigVet } from './app/config-vet.js';
import { initPanels } from './app/panels.js';

const statusEl = $('status');
const resultsEl = $('results');
const form = $('inputs');

function setStatus(text, kind = '') {
  statusEl.textContent = text;
  statusEl.className = `status ${kind}`;
}

// Yields to the event loop, so that no piece of the start-up is one long main-thread task.
const nextTask = () => new Promise((resolve) => setTimeout(resolve, 0));

// The default page starts from the build's answers (first-visit.js) and loads the module after
// its first paint; any other start waits for the module.
const first = openEngine();
document.body.dataset.first = first.mode;
let full = null; // the module's promise, once asked for
function loadModule() {
  full ??= first.load().then(
    (m) => {
      performance.mark('flopcast:engine'); // the module compiled and instantiated (bench:web reads it)
      document.body.dataset.module = '1';
      markReady();
      return m;
    },
    (e) => {
      setStatus(`Could not load the WebAssembly estimator: ${e.message}. Reload to try again.`, 'bad');
      document.documentElement.dataset.loadError = '1';
      throw e;
    },
  );
  return full;
}
// data-ready: the first estimate is on screen and the module is there, so an input change is
// estimated at once (data-estimate alone: painted from the build's answers, the module on its way).
function markReady() {
  if (document.body.dataset.estimate === '1' && document.body.dataset.module === '1') document.body.dataset.ready = '1';
}
let fc;
if (first.mode === 'answers') fc = await first.fc;
else {
  await loadModule();
  fc = await first.fc;
  await nextTask(); // the instantiation, the core's tables, the form and the first estimate: four tasks
}

const D = fc.defaults();
const S = D.settings;
initWorkload(D);
const precisions = fc.precisions();
const gpus = fc.listGpus();
await nextTask();
// The registry's list (63 KB of JSON) is read when the picker first needs it, not before the first estimate.
const models = () => fc.listModels(); // (NotReady before the module is ready: the picker asks again)
$('version').textContent = `v${fc.version()}`;

initErrors(form);
// Before a first valid estimate the figures are placeholders ("…"): a line above them says why.
const noEstimate = Object.assign(document.createElement('p'), { id: 'no-estimate', className: 'no-estimate' });
noEstimate.hidden = true;
resultsEl.querySelector('.summary').before(noEstimate);

// ---------- the form, from the core's tables ----------
// The model input searches the registry the core bundles (app/picker.js).
const picker = initPicker({
  input: $('model'),
  list: $('model-options'),
  count: $('model-options-count'),
  models,
  onPick: () => {
    update();
    scheduleUrl(true);
  },
});
fillGpus(gpus);
// The precision select grouped by format family, per-part formats and the engine (app/formats.js).
const formats = initFormats({ fc, $ });
const trainingCard = initTrainingCard({ fc, $, D });
const FORM_EXTRA = Object.values({ ...formats.url, ...trainingCard.url }); // inputs outside FIELDS that change the estimate
$('kv-precision').append(option('auto', 'auto'), ...precisions.map((p) => option(p, p)));
$('optimizer').append(...fc.optimizers().map((o) => option(o, o)));
// One worker for the sweeps, the serving simulations, the checkpoint headers, the report and the charts' data (app/worker.js).
const work = first.work(
  workerClient(() => new Worker(new URL('./sweep-worker.js', import.meta.url), { type: 'module' })),
);
// A .gguf / .safetensors file's header (app/checkpoint.js): its exact weight bytes and config.
const checkpoint = initCheckpoint({
  work,
  // An .onnx file: the profiler panel, loaded only now.
  onOnnx: (file) => {
    update(true); // the results column shows the profile (see onnxMode)
    return import('./app/profile-panel.js').then(({ showProfile }) =>
      showProfile({ work, onProfiled: onnxStatus }, file),
    );
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
initRequest(D, { fc, form, formats, checkpoint, trainingCard });

// ---------- initial values: the core's defaults (the query string is applied by applyQuery) ----------
const q = new URLSearchParams(location.search);
for (const f of FIELDS) {
  const el = $(f.id);
  const d = S[f.key];
  // A field with a derived default starts unset (the core derives it: the checkpoint's formats for
  // precision, issue 27 item 4).
  const v = d === null || d === undefined || f.unset !== undefined ? f.unset : d;
  if (f.type === 'bool') el.checked = Boolean(v);
  else if (f.type === 'select') setSelect(el, v);
  else el.value = String(v ?? '');
}
$('compute-eff').placeholder = `default ${S.compute_efficiency}`;
$('mem-eff').placeholder = `default ${S.mem_efficiency}`;
$('model').value = EXAMPLE_MODEL; // a bundled record (data/models/llama-3-8b.json)
setSelect($('gpu'), gpuName(S.gpu));
rememberGpu();
initResults();

// The charts load after the first estimate is on screen (they are not needed for the numbers).
let charts = null;
let lastKey = null;
let ready = false;

initUrlState({ form, formats, trainingCard, update });
initShare({ fc, work });
const configSource = initConfigSource({ query: q, update, setStatus });
initConfigVet({ work, update });

form.addEventListener('submit', (e) => e.preventDefault());
form.addEventListener('input', (e) => {
  urlRaw.delete(e.target.id); // edited: what the field holds now
  if (e.target.id === 'hf-id' || e.target.id === 'hf-base') setHubError();
  if (e.target.id !== 'config-file' && e.target.id !== 'checkpoint-file') update();
});
form.addEventListener('change', (e) => {
  if (e.target.id === 'config-file') configSource.readFile(e.target.files?.[0]);
  else if (e.target.id === 'checkpoint-file') {
    $('source-checkpoint').checked = true;
    checkpoint.load(e.target.files?.[0]);
  } else update();
});

$('model').addEventListener('blur', () => update(true)); // a name left half-typed is judged now
const system = initSystem({ fc, FlopcastError, onCalibrated: () => update(true) });
const panels = initPanels({ fc, D, work, update });

// ---------- an .onnx graph as the checkpoint: its profile is the result ----------
// The results column shows the profile (app/profile-panel.js) instead of the estimate's cards,
// which need a .gguf / .safetensors header or a config.json; nothing is an error meanwhile.
function onnxMode(on) {
  resultsEl.classList.toggle('onnx', on);
  if (!on) return false;
  resultsEl.classList.remove('stale');
  charts?.stale(true); // the charts are the last estimate's, not the graph's
  showErrors(new Map());
  noEstimate.hidden = true;
  onnxStatus(...(onnxLast?.[0] === checkpoint.onnx() ? onnxLast : [checkpoint.onnx(), null, null]));
  return true;
}
let onnxLast = null; // [file, profile, error]: what the status says of the .onnx file
function onnxStatus(file, r, error) {
  if (!file || file !== checkpoint.onnx()) return;
  onnxLast = [file, r, error];
  const where = 'its profile is in the results; the estimate reads a .gguf or .safetensors header or a config.json';
  if (r)
    setStatus(`Profiled ${file.name}: ${r.total.nodes} nodes at ${r.gpu}, ${r.compute_precision} (${where}).`, 'ok');
  else if (error) setStatus(`Read ${file.name}, an ONNX graph: ${error} (${where}).`);
  else setStatus(`Reading ${file.name}, an ONNX graph: ${where}.`);
}

// ---------- the update loop ----------
// Before the module is ready a request the build's answers do not hold throws NotReady: the
// update runs again once the module is there.
let waiting = false;
function update(force = false) {
  try {
    updateNow(force);
  } catch (e) {
    if (!(e instanceof NotReady)) throw e;
    lastKey = null;
    if (ready) resultsEl.classList.add('stale'); // the figures are the previous inputs'
    setStatus(
      ready ? 'Loading the estimator for the new inputs (the figures shown are dimmed)…' : 'Loading the estimator…',
    );
    if (!waiting) {
      waiting = true;
      loadModule().then(
        () => update(true),
        () => {},
      );
    }
  }
}
function updateNow(force) {
  syncGpu();
  const raw = readRaw();
  scheduleUrl();
  const key = JSON.stringify([raw, ...LAYOUT.map((f) => $(f.id).value), ...FORM_EXTRA.map((id) => $(id).value)]);
  if (key === lastKey && !force) return;
  lastKey = key;
  syncVisibility(raw);
  if (onnxMode(raw.source === 'checkpoint' && checkpoint.onnx() !== null)) return;

  const errors = new Map();
  const t0 = performance.now();
  const req = buildRequest(raw, errors);
  let result = null;
  if (errors.size === 0) {
    try {
      result = fc.estimate(req); // the layer chart's per-layer rows come with the charts' data (the worker)
    } catch (e) {
      if (e instanceof NotReady) throw e; // the update runs again once the module is there
      checkEach(req, raw, errors);
      // A problem of the combination (no single field is wrong on its own): where the core points.
      if (errors.size === 0) {
        const id = e instanceof FlopcastError ? fieldFor(e.pointer, raw) : '';
        errors.set(id, coreError(e, id));
      }
    }
  } else checkEach(req, raw, errors); // the page found some; the core judges the rest
  // A model name still being typed, with bundled models to pick from, is not an error yet: the
  // field is judged when it loses the focus (or a model is picked).
  if (
    errors.size &&
    raw.source === 'registry' &&
    picker.pending() &&
    [...errors.keys()].every((id) => id === 'model')
  ) {
    showErrors(new Map());
    const n = picker.matches();
    setStatus(
      `Choose a model: ${n} bundled model${n === 1 ? ' matches' : 's match'} “${raw.model.trim()}” (↓ to pick).`,
    );
    return;
  }
  showErrors(errors);
  panels.changed();
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
    setLastGood(result, req);
    $('export-json').disabled = false;
    $('download-report').disabled = false;
    charts?.schedule(result, req);
    panels.estimated(req);
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
    document.body.dataset.estimate = '1'; // the first estimate is on screen
    markReady();
  }
}

// The first estimate, for the inputs the address gives.
applyQuery(q);
performance.mark('flopcast:setup'); // the form built from the core's tables
await nextTask();
update(true);
// The module (when the build's answers painted the first estimate) and the charts' code load once
// the first estimate has been painted (the frame after it).
const afterPaint = (f) => (document.hidden ? setTimeout(f, 0) : requestAnimationFrame(() => setTimeout(f, 0)));
// The worker (sweeps, simulations, the charts of the next inputs) starts once the page's module is
// there, so that the two compilations do not compete with the first paint.
if (first.mode === 'answers')
  afterPaint(() =>
    loadModule().then(
      async () => {
        await first.warm();
        document.body.dataset.warm = '1';
        await work({ type: 'ready' }).catch(() => {});
      },
      () => {},
    ),
  );
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
