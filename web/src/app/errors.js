// Errors at the main form's fields: each "<id>-error" element under its row of the form, holding
// the page's own words (a string, shown as is) or a value error shown after the field's label
// ({text, code, pointer}: a core error, in plain words, its code and pointer kept for the data-
// attributes and the title). Which input a core error's JSON pointer names is app/request.js's.
import { FlopcastError } from '../engine.js';
import { plainMessage } from './fmt.js';
import { $ } from './dom.js';

// The main form's error elements by input id (the panels below it show their own: app/inputs.js).
let ERROR_IDS = [];

/** Finds the main form's error elements and puts each under its row of `form`. */
export function initErrors(form) {
  ERROR_IDS = [...document.querySelectorAll('.error[id$="-error"]')]
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
}

export const labelOf = (id) =>
  document.querySelector(`label[for="${id}"]`)?.textContent.trim().replace(/\s+/g, ' ') ?? id;

/** A value error for a field: the words after its label, a core error's code and pointer. */
export const fieldError = (text, code = '', pointer = '') => ({ text, code, pointer });
// In a pasted JSON object (a config.json, a GPU spec), the key inside it: "hidden_size: expected ...".
const IN_OBJECT = new Set(['config', 'gpu-custom']);
/** The error to show at input `id` for `e` (a core error: in plain words; any other: its message). */
export function coreError(e, id = '') {
  if (!(e instanceof FlopcastError)) return e.message;
  let text = plainMessage(e);
  const inner = (e.pointer || '').split('/').slice(2).join('/');
  if (IN_OBJECT.has(id) && inner) text = `${inner}: ${text}`;
  return fieldError(text, e.code, e.pointer);
}
export function errorText(id, err) {
  if (typeof err === 'string') return err;
  return id ? `${labelOf(id)}: ${err.text}` : err.text;
}

/** Shows `errors` (input id → error) at their fields and clears every other field's. */
export function showErrors(errors) {
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
