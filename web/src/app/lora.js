// LoRA / QLoRA in the page's training mode. The estimate's training path is full fine-tuning; the
// adapters exist in the core's training analysis (flopcast train), so with LoRA on the training
// card shows fc.train() of the same request plus its training_analysis part (rank, targets, QLoRA,
// base precision): trainable parameters, memory (frozen base at its precision, adapters, state for
// the adapters only) and step time. Loaded on first use (not part of a first visit).
import { show } from './fmt.js';

const at = (obj, pointer) =>
  pointer
    .split('/')
    .slice(1)
    .reduce((o, k) => (o === null || o === undefined ? undefined : o[k]), obj);

/** The train() request for an estimate request `req` and the LoRA inputs, keeping only what train takes. */
export function trainRequest(D, req, lora) {
  const takes = new Set(
    D.request_fields.filter((f) => f.part === '' && f.commands.includes('train')).map((f) => f.key),
  );
  const out = Object.fromEntries(Object.entries(req).filter(([k]) => takes.has(k) || k === 'parallelism'));
  const part = {};
  if (lora.rank !== undefined) part.lora_rank = lora.rank;
  if (lora.targets) part.lora_targets = lora.targets;
  if (lora.qlora) part.qlora = true;
  if (lora.base) part.base_precision = lora.base;
  out.training_analysis = part;
  return out;
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
export function runLora(fc, D, req, lora) {
  try {
    return { result: fc.train(trainRequest(D, req, lora)) };
  } catch (error) {
    return { error };
  }
}
