// The model picker: the model input filters the bundled registry (fc.listModels(): ids, aliases,
// family, model_type, parameter count) as you type, in an ARIA combobox with a listbox popup.
// Keys: ArrowDown/ArrowUp move (opening the list), Enter picks, Escape closes; a click picks too.
import { formatCount } from '../format.js';

const MAX_SHOWN = 40;

/** "8b", "500m": the rounded size people type ("llama 70b"). */
function sizeWords(n) {
  if (n >= 1e9) return [`${Math.round(n / 1e9)}b`, `${(n / 1e9).toFixed(1)}b`];
  return [`${Math.round(n / 1e6)}m`];
}

/** `models`: fc.listModels's list, or a function answering it (read on the first search). */
export function initPicker({ input, list, count, models, onPick }) {
  let entries = null;
  /** The list, or none yet while the estimator is still loading (asked again on the next search). */
  const list0 = () => {
    try {
      return typeof models === 'function' ? models() : models;
    } catch (e) {
      if (e?.name === 'NotReady') return null;
      throw e;
    }
  };
  const all = () => entries ?? ((entries = list0()?.map(entry) ?? null) || []);
  const entry = (m) => {
    const value = m.aliases[0] ?? m.id;
    const names = [m.id, ...m.aliases].map((s) => s.toLowerCase());
    const hay = [...names, m.family, m.model_type, formatCount(m.parameters), ...sizeWords(m.parameters)]
      .join(' ')
      .toLowerCase();
    return { m, value, names, hay };
  };
  let shown = [];
  let active = -1;

  /** Models matching every word of `text`: exact names first, then name prefixes, then the rest. */
  function filter(text) {
    const q = text.trim().toLowerCase();
    const words = q.split(/\s+/).filter(Boolean);
    const hits = all().filter((e) => words.every((w) => e.hay.includes(w)));
    const rank = (e) =>
      e.names.includes(q) ? 0 : e.names.some((n) => n.startsWith(q) || n.split('/').pop().startsWith(q)) ? 1 : 2;
    return hits
      .map((e, i) => [rank(e), i, e])
      .sort((a, b) => a[0] - b[0] || a[1] - b[1])
      .map(([, , e]) => e);
  }

  function setActive(i) {
    const items = list.children;
    if (active >= 0 && items[active]) items[active].setAttribute('aria-selected', 'false');
    active = i;
    if (active >= 0 && items[active]) {
      items[active].setAttribute('aria-selected', 'true');
      input.setAttribute('aria-activedescendant', items[active].id);
      items[active].scrollIntoView({ block: 'nearest' });
    } else input.removeAttribute('aria-activedescendant');
  }

  function close() {
    list.hidden = true;
    input.setAttribute('aria-expanded', 'false');
    setActive(-1);
  }

  function open(text = input.value) {
    const hits = filter(text);
    shown = hits.slice(0, MAX_SHOWN);
    list.replaceChildren(
      ...shown.map((e, i) => {
        const li = document.createElement('li');
        li.id = `model-option-${i}`;
        li.setAttribute('role', 'option');
        li.setAttribute('aria-selected', 'false');
        li.dataset.value = e.value;
        const name = document.createElement('span');
        name.className = 'opt-name';
        name.textContent = e.value;
        const meta = document.createElement('span');
        meta.className = 'opt-meta';
        meta.textContent = `${formatCount(e.m.parameters)} params · ${e.m.family}${e.value === e.m.id ? '' : ` · ${e.m.id}`}`;
        li.append(name, meta);
        return li;
      }),
    );
    count.textContent =
      hits.length === 0
        ? 'No bundled model matches.'
        : `${hits.length} model${hits.length === 1 ? '' : 's'} match${hits.length === 1 ? 'es' : ''}` +
          (hits.length > shown.length ? `, the first ${shown.length} shown.` : '.');
    list.hidden = shown.length === 0;
    input.setAttribute('aria-expanded', String(!list.hidden));
    setActive(-1);
  }

  function pick(i) {
    const e = shown[i];
    if (!e) return;
    input.value = e.value;
    close();
    onPick(e.value);
  }

  // Read the list once the input has the focus, before the first key (not during the page's load).
  input.addEventListener('focus', () => setTimeout(all, 0), { once: true });
  input.addEventListener('input', () => {
    // A complete name needs no list (and leaves the rest of the form uncovered).
    const q = input.value.trim().toLowerCase();
    if (all().some((e) => e.names.includes(q))) close();
    else open();
  });
  input.addEventListener('keydown', (ev) => {
    const openNow = !list.hidden;
    if (ev.key === 'ArrowDown' || ev.key === 'ArrowUp') {
      ev.preventDefault();
      if (!openNow) {
        // On a complete name the list shows every model (to browse from it).
        const q = input.value.trim().toLowerCase();
        open(all().some((e) => e.names.includes(q)) ? '' : input.value);
      }
      const n = shown.length;
      if (n === 0) return;
      setActive(ev.key === 'ArrowDown' ? (active + 1) % n : active <= 0 ? n - 1 : active - 1);
    } else if (ev.key === 'Enter' && openNow && active >= 0) {
      ev.preventDefault();
      pick(active);
    } else if (ev.key === 'Escape' && openNow) {
      ev.preventDefault();
      close();
    } else if (ev.key === 'Tab') close();
  });
  // mousedown, not click: the input keeps the focus.
  list.addEventListener('mousedown', (ev) => {
    const li = ev.target.closest('[role="option"]');
    if (!li) return;
    ev.preventDefault();
    pick([...list.children].indexOf(li));
  });
  input.addEventListener('blur', close);
  return {
    open,
    close,
    filter: (text) => filter(text).map((e) => e.value),
    /** Whether a name is being typed: the input has the focus and its list offers matches to pick from. */
    pending: () => document.activeElement === input && !list.hidden,
    /** How many models the list offers now. */
    matches: () => (list.hidden ? 0 : shown.length),
  };
}
