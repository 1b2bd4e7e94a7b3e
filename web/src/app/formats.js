// The weight formats and the engine in the main form: the precision select grouped by the core's
// format families, one select per model part (the core's weight_components) that turns the
// request's `precision` into its object form, and the serving engine whose fitted costs and ranges
// the estimate uses. Every name comes from the core (fc.defaults(), fc.listEngines()).
import { option } from './dom.js';

// Family names (the core's format_family) → the group label in the select.
const FAMILY_LABELS = {
  plain: 'Float',
  scaled_float: 'FP8, MX and FP4 (scaled)',
  integer: 'Integer (AWQ, GPTQ, NF4)',
  gguf: 'GGUF types (llama.cpp)',
  gguf_preset: 'GGUF presets (llama-quantize)',
};
const PART_LABELS = { lm_head: 'LM head', mlp: 'MLP' };
const partLabel = (c) => PART_LABELS[c] ?? c[0].toUpperCase() + c.slice(1);

/** The precisions as <optgroup>s by family, in the core's order. */
function groupedOptions(precisions) {
  const groups = new Map();
  for (const p of precisions) {
    if (!groups.has(p.family)) {
      const g = document.createElement('optgroup');
      g.label = FAMILY_LABELS[p.family] ?? p.family;
      groups.set(p.family, g);
    }
    const bits = Number.isFinite(p.bits) ? ` · ${Number(p.bits.toPrecision(4))} bits` : '';
    groups.get(p.family).append(option(p.name, `${p.name}${bits}`));
  }
  return [...groups.values()];
}

/** The device the main form names: a registry name, or the custom GPU's JSON text. */
export const chosenDevice = ($) => ($('gpu').value === 'custom' ? $('gpu-custom').value : $('gpu').value);

/** The engines that run on `gpu` (the core's listEnginesFor, from each profile's runs_on); null when it cannot say. */
export function enginesOn(fc, gpu) {
  if (typeof fc.listEnginesFor !== 'function' || !gpu || gpu === 'none') return null;
  try {
    return fc.listEnginesFor(gpu);
  } catch {
    return null; // a custom device the core cannot read yet: its error shows at the GPU field
  }
}

/**
 * Fills the precision, per-part and engine selects. Returns {url: {query key: input id}, apply(req),
 * note(result)}: apply() puts the parts and the engine into an estimate request, note() writes which
 * engine's fit produced the ranges.
 */
export function initFormats({ fc, $ }) {
  const D = fc.defaults();
  const precisions = D.precisions;
  // First and selected: the checkpoint's own formats (the request leaves `precision` unset; the
  // core reads the checkpoint's quantization_config). note() names them from the estimate
  // (details.config.checkpoint_formats).
  const precisionField = D.request_fields.find((f) => f.part === '' && f.key === 'precision');
  const checkpointOption = option('auto', 'checkpoint format');
  if (precisionField?.derived) checkpointOption.title = `Default: ${precisionField.derived}`;
  $('precision').replaceChildren(checkpointOption, ...groupedOptions(precisions));
  $('precision').value = 'auto';
  const parts = D.weight_components ?? [];
  const grid = $('precision-parts-grid');
  const url = {};
  for (const c of parts) {
    const id = `precision-${c}`;
    const field = Object.assign(document.createElement('div'), { className: 'field' });
    const label = Object.assign(document.createElement('label'), { htmlFor: id, textContent: partLabel(c) });
    const sel = Object.assign(document.createElement('select'), { id });
    sel.dataset.part = c;
    sel.append(option('', 'as weights'), ...groupedOptions(precisions));
    field.append(label, sel);
    grid.append(field);
    url[`p-${c}`] = id;
  }
  // The engine: the core's engine table (fc.listEngines(); the request table's field says what unset means).
  const engineField = D.request_fields.find((f) => f.part === '' && f.key === 'engine');
  // The engine table is read after the first estimate is painted (or at once where needed: the
  // select used, an engine in the address), not on the way to the first figures.
  // Only the engines that run on the chosen device (the core's fc.listEnginesFor, from each
  // profile's runs_on); an engine chosen before (or from the address) that does not run there stays
  // listed, marked, so the core's error at /engine says why.
  let engines = null;
  let enginesFor = null;
  const fillEngines = () => {
    const gpu = chosenDevice($);
    if (engines && enginesFor === gpu) return;
    const here = enginesOn(fc, gpu);
    const all = typeof fc.listEngines === 'function' ? fc.listEngines() : [];
    engines = here ?? all;
    enginesFor = gpu;
    const sel = $('engine-fit');
    const chosen = sel.value;
    const label = (e) => `${e.name} · ${e.fitted ? `fitted to ${e.fit_rows} measurements` : e.basis}`;
    const options = engines.map((e) => option(e.id, label(e)));
    const missing = chosen && !engines.some((e) => e.id === chosen) ? all.find((e) => e.id === chosen) : null;
    if (missing) options.push(option(missing.id, `${missing.name} · does not run on this device`));
    sel.replaceChildren(sel.options[0], sel.options[1], ...options);
    sel.value = chosen;
    sel.dataset.device = gpu;
  };
  for (const id of ['gpu', 'gpu-custom']) $(id).addEventListener('change', () => engines && fillEngines());
  // Unset: the core picks the device class's engine (the field's derived text says which); "none":
  // the plain roofline.
  $('engine-fit').append(
    option('', `Default for the device (${engineField?.derived?.replace(/ \(none: .*\)$/, '') ?? 'device class'})`),
    option('none', 'None (the plain roofline)'),
  );
  for (const ev of ['focus', 'pointerdown', 'keydown']) $('engine-fit').addEventListener(ev, fillEngines);
  requestAnimationFrame(() => setTimeout(fillEngines, 0));
  if (document.hidden) setTimeout(fillEngines, 0);
  if (engineField?.help) $('engine-fit').title = engineField.help;
  url.eng = 'engine-fit';
  // The frozen base of LoRA training (the request table's training_analysis.base_precision).
  const base = D.request_fields.find((f) => f.part === 'training_analysis' && f.key === 'base_precision');
  $('lora-base').append(
    option('', `default: ${base?.derived ?? 'the training precision'}`),
    ...groupedOptions(precisions),
  );

  const partSelects = () => parts.map((c) => $(`precision-${c}`));
  const syncOpen = () => {
    const n = partSelects().filter((s) => s.value).length;
    $('precision-parts-count').textContent = n ? `(${n} set)` : '';
    if (n) $('precision-parts').open = true;
  };
  grid.addEventListener('change', syncOpen);

  return {
    url,
    /** Fills the engine select now (before a value from the address is put in it). */
    fillEngines,
    /** Adds the per-part formats (the object form of `precision`) and the engine to `req`. */
    apply(req) {
      syncOpen();
      const set = partSelects().filter((s) => s.value);
      if (set.length)
        req.precision = {
          ...(typeof req.precision === 'string' ? { default: req.precision } : {}),
          ...Object.fromEntries(set.map((s) => [s.dataset.part, s.value])),
        };
      const engine = $('engine-fit').value;
      if (engine) req.engine = engine;
      return req;
    },
    /** The latency card's note: whose fit and which spread the ranges come from. */
    note(result) {
      const formats = result.details.config?.checkpoint_formats;
      const label = formats ? `checkpoint (${formats})` : 'checkpoint format';
      if (checkpointOption.textContent !== label) checkpointOption.textContent = label;
      const perf = result.details.performance;
      const engine = result.details.settings.engine;
      const el = $('range-source');
      el.hidden = !perf;
      if (!perf) return;
      if (engine) fillEngines();
      const who = engine
        ? `Engine ${(engines ?? []).find((e) => e.id === engine)?.name ?? engine}: ${result.details.settings.engine_basis}.`
        : 'No engine: the plain roofline.';
      const rule = result.details.settings.engine_rule;
      const text = `${who}${rule ? ` (${rule})` : ''} Ranges: ${perf.ranges.source}.`;
      if (el.textContent !== text) el.textContent = text;
      el.dataset.engine = engine ?? '';
    },
  };
}
