// DOM helpers for the page's eagerly loaded modules: an element by id, an <option>, and setting a
// select's value (a value the list lacks is added, so that the core can judge it).
export const $ = (id) => document.getElementById(id);

export function option(value, text, label) {
  const o = document.createElement('option');
  o.value = value;
  if (text !== undefined) o.textContent = text;
  if (label !== undefined) o.label = label;
  return o;
}

export const lower = (s) => String(s).toLowerCase();

/** Selects `value`; a value the list lacks is added so that the core can judge it. */
export function setSelect(el, value) {
  const v = String(value);
  const hit = [...el.options].find((o) => lower(o.value) === lower(v));
  if (hit) el.value = hit.value;
  else {
    el.append(option(v, v));
    el.value = v;
  }
}
