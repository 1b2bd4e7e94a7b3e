// What the lazily loaded panels (app/serve.js, app/plan.js) share about their own inputs: an
// error under a field (its "<id>-error" element, aria-invalid on the input) and reading numeric
// inputs into a request part.
import { showError } from './fmt.js';

const $ = (id) => document.getElementById(id);

/** Shows `msg` under the input `id` (a core error `e` keeps its code and pointer); '' clears it. */
export function setFieldError(id, msg, e = null) {
  showError($(`${id}-error`), msg, e);
  if (msg) $(id).setAttribute('aria-invalid', 'true');
  else $(id).removeAttribute('aria-invalid');
}

/** The numbers of `inputs` ([{id, key}]) by key; empty inputs are left out, bad ones go to `errors`. */
export function readNumbers(inputs, errors) {
  const out = {};
  for (const { id, key } of inputs) {
    const el = $(id);
    const v = el.value.trim();
    if (v === '') {
      if (el.validity?.badInput) errors.set(id, 'Not a number: enter a number.');
      continue;
    }
    const n = Number(v);
    if (Number.isFinite(n)) out[key] = n;
    else errors.set(id, `Not a number: "${v}".`);
  }
  return out;
}
