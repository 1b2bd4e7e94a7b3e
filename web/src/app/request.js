// The main form → the core's estimate request, and back: which input a core error's JSON pointer
// names. The core's request table (fc.defaults().request_fields) says which inputs map one-to-one
// onto request fields, their query names and kinds; nothing here re-types it.
import { FlopcastError } from '../engine.js';
import { loadCalibration } from './system.js';
import { coreError, fieldError } from './errors.js';
import { $ } from './dom.js';
import { CONFIG_MAX_BYTES } from './hub.js';
import { configVerdict } from './config-vet.js';

export const EXAMPLE_MODEL = 'llama-3-8b'; // the first model shown; any registry name works

// Inputs that map one-to-one onto top-level request fields. The core's request table says which
// (each input carries data-request="<JSON pointer>"), the query name (the field's attribute, as the
// widget spells it), the kind, and whether it may be left unset (a derived default).
export let FIELDS = [];
let POINTER_FIELD = {};
// The parallel layout's numeric inputs: the request table's parallelism fields whose query name is
// an input's id (tp, pp, dp, ep).
export let LAYOUT = [];

// URL values that a number input cannot hold ("seq=abc" leaves it empty): kept to hand to the core
// as typed (its error names them) and to keep in the URL, until the field is edited.
export const urlRaw = new Map();

let hubError = ''; // the last Hub fetch's failure, shown at the id (or, for the address, at hf-base)
let hubBaseError = '';
/** The Hub fetch's failure: at the model id, or at the Hub address (none: both cleared). */
export function setHubError(idError = '', baseError = '') {
  hubError = idError;
  hubBaseError = baseError;
}

let fc;
let form;
let formats;
let checkpoint;
let trainingCard;

/** Finds the request table's (D.request_fields) inputs in the page; `formats` and `checkpoint` add their parts. */
export function initRequest(D, deps) {
  ({ fc, form, formats, checkpoint, trainingCard } = deps);
  const fields = D.request_fields;
  FIELDS = fields.flatMap((f) => {
    const el = f.part === '' ? document.querySelector(`[data-request="${f.pointer}"]`) : null;
    if (!el) return [];
    const type = f.type === 'boolean' ? 'bool' : el.tagName === 'SELECT' ? 'select' : 'num';
    const unset = f.derived === null ? undefined : type === 'select' ? 'auto' : '';
    return [{ id: el.id, q: f.attribute, key: f.key, type, unset }];
  });
  POINTER_FIELD = Object.fromEntries(FIELDS.map((f) => [f.key, f.id]));
  LAYOUT = fields.flatMap((f) =>
    f.part === 'parallelism' && f.attribute && $(f.attribute)?.type === 'number'
      ? [{ id: f.attribute, q: f.attribute, key: f.key }]
      : [],
  );
}

/** A JSON text area's text, indented (text that is not JSON, or over the page's limit: as is). */
export function pretty(text) {
  if (text.length > CONFIG_MAX_BYTES) return text;
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}
/** A JSON text area's text on one line, for the address (text that is not JSON, or over the page's limit: as is). */
export function compact(text) {
  if (text.length > CONFIG_MAX_BYTES) return text;
  try {
    return JSON.stringify(JSON.parse(text));
  } catch {
    return text;
  }
}

/** The main form's inputs as typed. */
export function readRaw() {
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

/** Shows the form's parts for the inputs `raw`: the model source's, the custom GPU's, training's. */
export function syncVisibility(raw) {
  for (const el of form.querySelectorAll('[data-source]'))
    el.hidden = !el.dataset.source.split(' ').includes(raw.source);
  $('gpu-custom-field').hidden = raw.gpu !== 'custom';
  for (const r of form.querySelectorAll('input[name="model-source"]'))
    r.parentElement.classList.toggle('on', r.checked);
  form.classList.toggle('no-training', !raw.training);
}

function parseJson(text, id, errors, what) {
  if (!text.trim()) {
    errors.set(id, `Paste ${what} (a JSON object).`);
    return undefined;
  }
  // Checked before parsing: a text this long is no config (and parsing it would hold the page).
  // A long one is judged in the worker first (app/config-vet.js).
  const bytes = text.length > CONFIG_MAX_BYTES / 3 ? new Blob([text]).size : text.length;
  if (bytes > CONFIG_MAX_BYTES) {
    errors.set(
      id,
      `${what} is ${bytes} bytes: the page takes at most ${CONFIG_MAX_BYTES / 1024 / 1024} MiB (real ones are a few KiB; the CLI reads up to 16 MiB).`,
    );
    return undefined;
  }
  const verdict = id === 'config' ? configVerdict(text) : null;
  if (verdict?.state === 'pending') {
    errors.set(id, `Checking the ${Math.round(text.length / 1024)} KiB ${what} in the background…`);
    return undefined;
  }
  if (verdict?.state === 'error') {
    const e = verdict.error;
    errors.set(id, e instanceof FlopcastError ? coreError(e, id) : e.message);
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
export function buildRequest(raw, errors) {
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
  trainingCard?.apply(req, errors); // the fine-tuning method (LoRA/QLoRA): part of every panel's request
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
export function fieldFor(pointer, raw) {
  const seg = (pointer || '').split('/')[1] ?? '';
  if (seg === 'model') return raw.source === 'registry' ? 'model' : 'config';
  if (seg === 'weight_bytes') return 'checkpoint-file';
  if (seg === 'training_analysis') {
    const key = (pointer || '').split('/')[2];
    return { lora_rank: 'lora-rank', lora_targets: 'lora-targets', base_precision: 'lora-base' }[key] ?? 'lora-mode';
  }
  if (seg === 'engine') return 'engine-fit';
  if (seg === 'gpu') return raw.gpu === 'custom' ? 'gpu-custom' : 'gpu';
  if (seg === 'parallelism') {
    const sub = (pointer || '').split('/')[2] ?? '';
    return LAYOUT.find((f) => f.key === sub)?.id ?? '';
  }
  return POINTER_FIELD[seg] ?? '';
}

// Every bad value at once: each field of `req` is tried on its own through the core, on top of a
// request made of the values already found good (a known model when the model itself is bad), so
// an error names its own field and a URL with several bad values shows them all.
export function checkEach(req, raw, errors) {
  const fails = (r) => {
    try {
      fc.estimate(r);
      return null;
    } catch (e) {
      if (e?.name === 'NotReady') throw e; // the module has not loaded yet: the update waits for it
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
