// LoRA / QLoRA in the page's training mode. The estimate request carries the method (its
// training_analysis part: fine_tuning, rank, targets, base precision), so the headline is already
// the adapters' step; the training card adds fc.train() of the same request: trainable parameters,
// memory (frozen base at its precision, adapters, state for the adapters only) and step time, the
// same figures as the estimate's. Loaded on first use (not part of a first visit).
import { show } from './fmt.js';

const at = (obj, pointer) =>
  pointer
    .split('/')
    .slice(1)
    .reduce((o, k) => (o === null || o === undefined ? undefined : o[k]), obj);

/** The train() request for an estimate request `req` (with its training_analysis part), keeping only what train takes. */
export function trainRequest(D, req) {
  const takes = new Set(
    D.request_fields.filter((f) => f.part === '' && f.commands.includes('train')).map((f) => f.key),
  );
  return Object.fromEntries(
    Object.entries(req).filter(([k]) => takes.has(k) || k === 'parallelism' || k === 'training_analysis'),
  );
}

/** Fills the LoRA card (#lora-kv) from a train() result; the rows' data-train-field are pointers into it. */
export function renderLora(card, t) {
  for (const el of card.querySelectorAll('[data-train-field]')) {
    let v = at(t, el.dataset.trainField);
    if (v === undefined) v = null;
    el.dataset.value = v === null ? 'null' : String(v);
    el.textContent = show(el.dataset.fmt, v);
  }
  // A part the result puts at zero (no optimizer moments for "none") is not listed.
  for (const row of card.querySelectorAll('.hide-zero')) row.hidden = row.querySelector('dd').dataset.value === '0';
}

/** Runs fc.train() for the inputs; returns {result} or {error} (the core's FlopcastError). */
export function runLora(fc, D, req) {
  try {
    return { result: fc.train(trainRequest(D, req)) };
  } catch (error) {
    return { error };
  }
}
