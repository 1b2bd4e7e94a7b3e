// The compare & sweep panel: the worker computes every point (fc.sweep); this thread keeps
// the numbers as they came, derives the text columns from the point index (compare.hpp's
// Cartesian order: model, precision, gpu, batch, sequence, generated tokens), sorts indices
// and renders the top MAX_ROWS (200) rows. Downloads hold every point.
import { formatByKind } from '../format.js';
import { plainMessage, showError } from './fmt.js';

const MAX_ROWS = 200;
const MAX_POINTS = 2_000_000; // the page keeps every point in memory (a double per sweep field: 18 today)
const LISTS = [
  { id: 'sweep-models', key: 'model', type: 'text' },
  { id: 'sweep-precision', key: 'precision', type: 'text' },
  { id: 'sweep-gpu', key: 'gpu', type: 'text' },
  { id: 'sweep-batch', key: 'batch_size', type: 'num' },
  { id: 'sweep-seq', key: 'sequence_length', type: 'num' },
];
const esc = (s) => s.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);

export function initSweep({ fc, sweepBase, call, onInput }) {
  const $ = (id) => document.getElementById(id);
  const fields = fc.defaults().row_fields;
  const table = $('sweep-table');
  const tbody = table.tBodies[0];
  const progress = $('sweep-progress');
  const countEl = $('sweep-count');
  const noteEl = $('sweep-note');
  const errorEl = $('sweep-error');

  /** For benchmarks: a sweep of any size through the same worker; resolves {count, ms}. */
  window.flopcastSweep = async (request) => {
    const t0 = performance.now();
    const r = await call({ type: 'sweep', request: typeof request === 'string' ? JSON.parse(request) : request });
    return { count: r.count, ms: performance.now() - t0 };
  };

  // ---- inputs ----
  function setError(id, msg, e = null) {
    showError($(`${id}-error`), msg, e);
    if (msg) $(id).setAttribute('aria-invalid', 'true');
    else $(id).removeAttribute('aria-invalid');
  }
  function clearErrors() {
    for (const l of LISTS) setError(l.id, '');
    showError(errorEl, '');
  }
  function parseLists() {
    const out = {};
    let ok = true;
    for (const l of LISTS) {
      const items = $(l.id)
        .value.split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      if (!items.length) {
        setError(l.id, 'Enter at least one value (comma-separated).');
        ok = false;
        continue;
      }
      if (l.type === 'num') {
        const bad = items.find((s) => !Number.isFinite(Number(s)));
        if (bad !== undefined) {
          setError(l.id, `Not a number: "${bad}".`);
          ok = false;
          continue;
        }
        out[l.key] = items.map(Number);
      } else out[l.key] = items;
    }
    return ok ? out : null;
  }
  /** Puts a core error at the list it names (pointer like /model/1), else under the panel. */
  function showCoreError(e) {
    const seg = (e.pointer || '').split('/')[1];
    const list = LISTS.find((l) => l.key === seg);
    const label = (id) => document.querySelector(`label[for="${id}"]`)?.textContent.trim().replace(/\s+/g, ' ') ?? id;
    if (list) {
      setError(list.id, `${label(list.id)}: ${plainMessage(e)}`, e);
    } else showError(errorEl, plainMessage(e), e);
    countEl.textContent = 'Sweep failed.';
  }

  // ---- results ----
  let st = null; // the current sweep
  let runId = 0;

  function value(i, f) {
    const j = st.index[f.key];
    if (j !== undefined) {
      const v = st.values[i * st.stride + j];
      if (Number.isNaN(v)) return null;
      if (f.kind === 'boolean') return v !== 0;
      if (f.kind === 'bound') return v ? 'compute' : 'memory';
      return v;
    }
    const label = st.labels[Math.floor(i / st.inner)];
    return label && f.key in label ? label[f.key] : null;
  }

  function renderHead() {
    const tr = document.createElement('tr');
    for (const f of fields) {
      const th = document.createElement('th');
      th.scope = 'col';
      th.dataset.key = f.key;
      th.tabIndex = 0;
      th.className = f.kind;
      th.setAttribute('aria-sort', 'none');
      th.textContent = f.header;
      th.title = `Sort by ${f.header} (${f.key})`;
      tr.append(th);
    }
    table.tHead.replaceChildren(tr);
  }

  // Renders the top rows of the current order.
  function renderBody() {
    if (!st) return Promise.resolve();
    const s = st;
    const n = Math.min(MAX_ROWS, s.total);
    const top = s.order ? s.order.subarray(0, n) : Uint32Array.from({ length: n }, (_, i) => i);
    let html = '';
    for (const i of top) {
      html += '<tr>';
      for (const f of fields) {
        const v = value(i, f);
        html += `<td class="${f.kind}">${v === undefined ? '…' : esc(formatByKind(f.kind, v))}</td>`;
      }
      html += '</tr>';
    }
    tbody.innerHTML = html;
    const sorted = s.sortKey
      ? `, sorted by ${fields.find((f) => f.key === s.sortKey).header} (${s.dir > 0 ? 'ascending' : 'descending'})`
      : '';
    noteEl.textContent =
      s.total > MAX_ROWS
        ? `Showing the top ${MAX_ROWS} of ${s.total} points${sorted}. The CSV and JSON downloads hold all ${s.total}.`
        : `All ${s.total} points${sorted}.`;
    return Promise.resolve();
  }

  function sortIndices(key, dir) {
    const col = new Float64Array(st.total);
    if (st.index[key] !== undefined) {
      const j = st.index[key];
      for (let i = 0; i < st.total; i++) col[i] = st.values[i * st.stride + j];
    } else {
      // Text columns come from the label of each (model, precision, gpu) block: rank them once.
      const names = st.labels.map((l) => (l[key] === null || l[key] === undefined ? null : String(l[key])));
      const uniq = [...new Set(names.filter((x) => x !== null))].sort((a, b) => a.localeCompare(b));
      const rank = names.map((x) => (x === null ? NaN : uniq.indexOf(x)));
      for (let i = 0; i < st.total; i++) col[i] = rank[Math.floor(i / st.inner)];
    }
    // A plain array: V8 sorts it (TimSort) far faster than a typed array with a comparator.
    const order = new Array(st.total);
    for (let i = 0; i < st.total; i++) order[i] = i;
    order.sort((a, b) => {
      const x = col[a];
      const y = col[b];
      if (x !== x) return y !== y ? a - b : 1; // not applicable: always last
      if (y !== y) return -1;
      return dir * (x - y) || a - b;
    });
    return Uint32Array.from(order);
  }

  async function sortBy(key) {
    if (!st) return;
    const dir = st.sortKey === key ? -st.dir : 1;
    st.sortKey = key;
    st.dir = dir;
    st.order = sortIndices(key, dir);
    for (const th of table.tHead.rows[0].cells)
      th.setAttribute('aria-sort', th.dataset.key === key ? (dir > 0 ? 'ascending' : 'descending') : 'none');
    renderBody();
  }

  table.tHead.addEventListener('click', (e) => {
    const th = e.target.closest('th[data-key]');
    if (th) sortBy(th.dataset.key);
  });
  table.tHead.addEventListener('keydown', (e) => {
    const th = e.target.closest('th[data-key]');
    if (th && (e.key === 'Enter' || e.key === ' ')) {
      e.preventDefault();
      sortBy(th.dataset.key);
    }
  });

  // ---- running ----
  async function run() {
    clearErrors();
    const lists = parseLists();
    if (!lists) {
      countEl.textContent = 'Fix the highlighted lists.';
      return;
    }
    const { base, error } = sweepBase();
    if (error) {
      errorEl.textContent = error;
      return;
    }
    const request = { ...base, ...lists, num_generated_tokens: [base.num_generated_tokens] };
    let size;
    try {
      size = fc.sweepSize(request);
    } catch (e) {
      return showCoreError(e);
    }
    if (size > MAX_POINTS) {
      errorEl.textContent = `${size} points is more than this page keeps in memory (${MAX_POINTS}): shorten a list.`;
      return;
    }
    // The names each (model, precision, gpu) block shows, exactly as compare rows spell them;
    // this also validates the names before the worker starts.
    let labels;
    try {
      labels = fc
        .compare({ ...request, batch_size: [lists.batch_size[0]], sequence_length: [lists.sequence_length[0]] })
        .map((r) => ({ model: r.model, precision: r.precision, gpu: r.gpu }));
    } catch (e) {
      return showCoreError(e);
    }
    const id = ++runId;
    progress.max = 1;
    progress.value = 0;
    countEl.textContent = 'Running…';
    $('sweep-run').setAttribute('aria-busy', 'true');
    const t0 = performance.now();
    let r;
    try {
      r = await call({ type: 'sweep', request }, (done, total) => {
        if (id !== runId) return;
        progress.max = total;
        progress.value = done;
        countEl.textContent = `${done} of ${total} points…`;
      });
    } catch (e) {
      if (id === runId) showCoreError(e);
      return;
    } finally {
      if (id === runId) $('sweep-run').removeAttribute('aria-busy');
    }
    if (id !== runId) return;
    const ms = performance.now() - t0;
    st = {
      request,
      labels,
      total: r.total,
      values: r.values,
      stride: r.fields.length,
      index: Object.fromEntries(r.fields.map((k, j) => [k, j])),
      inner: lists.batch_size.length * lists.sequence_length.length,
      order: null,
      sortKey: null,
      dir: 1,
      summary: `${r.total} points in ${ms.toFixed(0)} ms`,
    };
    progress.max = Math.max(1, r.total);
    progress.value = progress.max;
    $('sweep-csv').disabled = false;
    $('sweep-json').disabled = false;
    for (const th of table.tHead.rows[0].cells) th.setAttribute('aria-sort', 'none');
    await renderBody();
    if (id === runId) countEl.textContent = st.summary;
  }

  // ---- downloads: every point, in the sweep's order, raw SI numbers ----
  function save(name, type, text) {
    const url = URL.createObjectURL(new Blob([text], { type }));
    const a = Object.assign(document.createElement('a'), { href: url, download: name });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10000);
  }
  async function download(kind) {
    if (!st) return;
    const parts = [];
    if (kind === 'csv') {
      const cell = (v) => {
        if (v === null || v === undefined) return '';
        const s = String(v);
        return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
      };
      parts.push(fields.map((f) => f.key).join(','));
      for (let i = 0; i < st.total; i++) parts.push(fields.map((f) => cell(value(i, f))).join(','));
      save('flopcast-sweep.csv', 'text/csv', `${parts.join('\n')}\n`);
    } else {
      for (let i = 0; i < st.total; i++) {
        const row = {};
        for (const f of fields) row[f.key] = value(i, f) ?? null;
        parts.push(JSON.stringify(row));
      }
      save('flopcast-sweep.json', 'application/json', `[\n${parts.join(',\n')}\n]\n`);
    }
  }

  $('sweep-form').addEventListener('submit', (e) => {
    e.preventDefault();
    run();
  });
  $('sweep-form').addEventListener('input', (e) => {
    if (e.target.id) setError(e.target.id, '');
    onInput();
  });
  $('sweep-csv').addEventListener('click', () => download('csv'));
  $('sweep-json').addEventListener('click', () => download('json'));
  renderHead();
}
