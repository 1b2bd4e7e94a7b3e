// The results panel: every element with data-field="<JSON pointer>" shows that value of the core's
// estimate (data-value = the raw value, the text formatted by data-fmt), then the badges, the
// labels for the configuration asked for (inference or training, one GPU or a layout) and the notes.
import { show } from './fmt.js';
import { $ } from './dom.js';

const at = (obj, pointer) =>
  pointer
    .split('/')
    .slice(1)
    .reduce((o, k) => (o === null || o === undefined ? undefined : o[k]), obj);

/** The last valid estimate, {result, req} (null before the first): the JSON export, the report and the
 * panels that load later start from it. */
export let lastGood = null;
export function setLastGood(result, req) {
  lastGood = { result, req };
}

let resultsEl;
let fieldEls = [];
let modeLabels = [];
let perLabels = [];

/** Finds the elements that show the estimate. */
export function initResults() {
  resultsEl = $('results');
  fieldEls = [...resultsEl.querySelectorAll('[data-field]')];
  modeLabels = [...document.querySelectorAll('.mode-label')];
  perLabels = [...document.querySelectorAll('.per-label')];
}

/** Shows the estimate `r` (fc.estimate's result); the figures are no longer stale. */
export function render(r) {
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
  // Not fitting: the core marks the speeds hypothetical and says what it would need (fit_advice).
  resultsEl.classList.toggle('hypothetical', r.performance_hypothetical === true);
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
