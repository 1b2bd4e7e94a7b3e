// Serving throughput, the training-step analysis and calibration: each panel asks the core
// (fc.throughput, fc.train, fc.calibrate) for the same request as the estimate above.
import { formatPercent } from '../format.js';
import { show, plainMessage, showError } from './fmt.js';
import { placeholder, servingRequest, showWorkload, takes, workloadOf } from './workload.js';

const $ = (id) => document.getElementById(id);
const STORE = 'flopcast.calibration';
const at = (obj, pointer) =>
  pointer
    .split('/')
    .slice(1)
    .reduce((o, k) => (o === null || o === undefined ? undefined : o[k]), obj);

/** Calibration entries stored in this browser (the core's store format, entries only). */
export function loadCalibration() {
  try {
    const v = JSON.parse(localStorage.getItem(STORE) ?? '[]');
    return Array.isArray(v) ? v : [];
  } catch {
    return [];
  }
}
function saveCalibration(entries) {
  localStorage.setItem(STORE, JSON.stringify(entries));
}

function fill(attr, result) {
  for (const el of document.querySelectorAll(`[${attr}]`)) {
    let v = result ? at(result, el.getAttribute(attr)) : null;
    if (v === undefined) v = null;
    el.dataset.value = v === null ? 'null' : String(v);
    el.textContent = show(el.dataset.fmt, v);
  }
}

export function initSystem({ fc, FlopcastError, onCalibrated }) {
  let last = null;
  // The part of the page's estimate request the training analysis takes, from the core's request table.
  const TRAIN = takes('train');
  const only = (keys, req) => Object.fromEntries(Object.entries(req).filter(([k]) => keys.has(k)));

  function serving(req) {
    const err = $('serving-error');
    err.textContent = '';
    if (!req.gpu) {
      fill('data-serving', null);
      err.textContent = 'Choose a GPU to estimate serving throughput.';
      return;
    }
    // The workload's lengths and concurrency unless the card overrides one (its inputs, empty by default).
    const w = workloadOf(req);
    placeholder('srv-prompt', w.prompt);
    placeholder('srv-output', w.output);
    placeholder('srv-concurrency', w.concurrency);
    const s = {};
    for (const [id, key] of [
      ['srv-prompt', 'prompt_tokens'],
      ['srv-output', 'output_tokens'],
      ['srv-concurrency', 'concurrency'],
      ['srv-chunk', 'chunked_prefill_tokens'],
    ]) {
      const v = $(id).value.trim();
      if (v !== '') s[key] = Number(v);
    }
    const overrides = { ...s };
    delete overrides.chunked_prefill_tokens; // a setting of the card, not the workload's
    showWorkload('serving-workload', w, overrides);
    try {
      const request = servingRequest(req, s);
      $('serving-results').dataset.request = JSON.stringify(request); // what was sent (tests, inspection)
      const r = fc.throughput(request);
      fill('data-serving', r);
      if (!r.fits)
        err.textContent =
          'Does not fit: weights leave no room for one sequence’s KV cache (try tensor parallel or a lower precision).';
    } catch (e) {
      fill('data-serving', null);
      showError(err, plainMessage(e), e instanceof FlopcastError ? e : null);
    }
  }

  function training(req, result) {
    const err = $('train-error');
    err.textContent = '';
    const list = $('train-recommendations');
    if (!result.details.memory.training || typeof fc.train !== 'function') {
      fill('data-train', null);
      list.replaceChildren();
      return;
    }
    try {
      // With the page's fine-tuning method (training_analysis): the analysis of the same step.
      const part = req.training_analysis ? { training_analysis: req.training_analysis } : {};
      const request = { ...only(TRAIN, req), ...part };
      $('train-results').dataset.request = JSON.stringify(request); // what was sent (tests, inspection)
      const r = fc.train(request);
      fill('data-train', r);
      list.replaceChildren(
        ...(r.recommendations ?? []).map((x) =>
          Object.assign(document.createElement('li'), { textContent: `${x.action} — ${x.reason}` }),
        ),
      );
    } catch (e) {
      fill('data-train', null);
      list.replaceChildren();
      showError(err, plainMessage(e), e instanceof FlopcastError ? e : null);
    }
  }

  function renderEntries() {
    const entries = loadCalibration();
    $('cal-entries').replaceChildren(
      ...entries.map((e) =>
        Object.assign(document.createElement('li'), {
          textContent: `${e.model} on ${e.gpu} (${e.precision}): compute ${formatPercent(e.compute_efficiency)}, memory ${formatPercent(e.mem_efficiency)} — ${e.source}`,
        }),
      ),
    );
  }

  $('serving-form').addEventListener('submit', (e) => e.preventDefault());
  $('serving-form').addEventListener('input', () => last && serving(last.req));
  $('cal-form').addEventListener('submit', (e) => {
    e.preventDefault();
    const err = $('cal-error');
    err.textContent = '';
    if (!last) return;
    const measured = {};
    const tps = $('cal-decode').value.trim(),
      ttft = $('cal-ttft').value.trim();
    if (tps !== '') measured.decode_tokens_per_second = Number(tps);
    if (ttft !== '') measured.time_to_first_token_s = Number(ttft);
    const { calibration, compute_efficiency, mem_efficiency, parallelism, ...req } = last.req;
    try {
      const { entries } = fc.calibrate({ ...req, measured });
      const stored = loadCalibration().filter(
        (x) => !entries.some((e) => e.model === x.model && e.gpu === x.gpu && e.precision === x.precision),
      );
      saveCalibration([...stored, ...entries]);
      renderEntries();
      onCalibrated();
    } catch (ex) {
      showError(err, plainMessage(ex), ex instanceof FlopcastError ? ex : null);
    }
  });
  $('cal-reset').addEventListener('click', () => {
    localStorage.removeItem(STORE);
    renderEntries();
    onCalibrated();
  });
  renderEntries();

  return {
    update(req, result) {
      last = { req, result };
      serving(req);
      training(req, result);
    },
  };
}
