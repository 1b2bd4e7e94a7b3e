// Inputs generated from the core's request table (fc.defaults().request_fields): the label, unit,
// kind, range, default, choices and help of each come from the table, so a field the core adds
// needs one line here (its part and key) and nothing re-types what the core knows.
// Numbers become number inputs (empty: the core's or the engine's default), choices and booleans
// become selects whose first option is that default.
import { readNumbers } from './inputs.js';

const humanize = (key) => {
  const words = key.replace(/_s$/, '').replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
};
const UNIT_LABEL = { s: 's', 'bytes/s': 'B/s', tokens: 'tokens' };

/**
 * Renders `groups` ([{legend, fields: [[part, key], ...]}]) into `container` as fieldsets; ids
 * are `${prefix}-${part}-${key}` (underscores as dashes). Fields the table does not have are
 * skipped (an older core). Returns {ids, urlKeys, read(errors), idOf(pointer)}: read gives the
 * request parts ({simulation: {...}, disaggregation: {...}}) of the inputs that are set.
 */
export function tableInputs(D, groups, container, prefix) {
  const fields = [];
  for (const group of groups) {
    const set = document.createElement('fieldset');
    set.className = 'group table-inputs';
    set.append(Object.assign(document.createElement('legend'), { textContent: group.legend }));
    const row = document.createElement('div');
    row.className = 'row';
    for (const [part, key] of group.fields) {
      const f = D.request_fields.find((x) => x.part === part && x.key === key);
      if (!f) continue;
      const id = `${prefix}-${part}-${key}`.replace(/_/g, '-');
      const wrap = document.createElement('div');
      wrap.className = 'field';
      const unit = f.unit && f.type !== 'boolean' ? ` (${UNIT_LABEL[f.unit] ?? f.unit})` : '';
      const label = Object.assign(document.createElement('label'), { htmlFor: id, textContent: humanize(key) + unit });
      label.title = f.help;
      let input;
      if (f.type === 'choice' || f.type === 'boolean') {
        input = document.createElement('select');
        const choices = f.type === 'boolean' ? ['on', 'off'] : (f.choices ?? []).map((c) => c.name ?? c);
        const dflt =
          f.default === null || f.default === undefined
            ? 'default'
            : `default (${f.type === 'boolean' ? (f.default ? 'on' : 'off') : f.default})`;
        input.append(new Option(dflt, ''), ...choices.map((c) => new Option(c, c)));
      } else if (f.type !== 'integer' && f.type !== 'number') {
        input = Object.assign(document.createElement('input'), { type: 'text', spellcheck: false });
        input.placeholder = f.default === null || f.default === undefined ? 'none' : String(f.default);
      } else {
        input = Object.assign(document.createElement('input'), {
          type: 'number',
          step: f.type === 'integer' ? '1' : 'any',
          inputMode: f.type === 'integer' ? 'numeric' : 'decimal',
          placeholder: f.default === null || f.default === undefined ? 'default' : String(f.default),
        });
        if (f.min !== undefined && !f.min_open) input.min = String(f.min);
      }
      input.id = id;
      input.setAttribute('aria-describedby', `${id}-error`);
      const err = Object.assign(document.createElement('p'), { id: `${id}-error`, className: 'error' });
      err.setAttribute('aria-live', 'polite');
      const help = Object.assign(document.createElement('small'), { className: 'hint', textContent: f.help });
      wrap.append(label, input, err, help);
      row.append(wrap);
      fields.push({ id, part, key, type: f.type, pointer: f.pointer, q: f.attribute || key.replace(/_/g, '-') });
    }
    set.append(row);
    if (row.children.length) container.append(set);
  }
  const byPointer = Object.fromEntries(fields.map((f) => [f.pointer, f.id]));
  return {
    ids: fields.map((f) => f.id),
    /** query name → input id, for the page's address */
    urlKeys: Object.fromEntries(fields.map((f) => [f.q, f.id])),
    read(errors) {
      const out = {};
      const put = (part, key, v) => ((out[part] ??= {})[key] = v);
      for (const f of fields) {
        const el = document.getElementById(f.id);
        if (f.type === 'boolean') {
          if (el.value) put(f.part, f.key, el.value === 'on');
        } else if (f.type === 'choice') {
          if (el.value) put(f.part, f.key, el.value);
        } else if (f.type !== 'integer' && f.type !== 'number') {
          if (el.value.trim()) put(f.part, f.key, el.value.trim());
        } else {
          const n = readNumbers([{ id: f.id, key: f.key }], errors);
          if (f.key in n) put(f.part, f.key, n[f.key]);
        }
      }
      return out;
    },
    /** The input a core error's pointer names (/simulation/prefix_tokens), if one of these. */
    idOf(pointer) {
      for (let p = pointer; p; p = p.slice(0, p.lastIndexOf('/'))) if (byPointer[p]) return byPointer[p];
      return undefined;
    },
  };
}
