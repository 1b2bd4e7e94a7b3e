// The compare & sweep panel. The worker computes every point and keeps them (app/sweep-data.js):
// it sorts, sends the window of MAX_ROWS rows the table shows, a chart's series and the CSV / JSON
// downloads as Blob parts; this thread only renders those, so that a sweep of millions of points
// never blocks the page. Columns: the core's compare row fields, with a picker remembered in
// localStorage; the chart (app/sweep-chart.js, uPlot) loads with the first finished sweep.
import { formatByKind, formatInteger, formatSeconds } from '../format.js';
import { plainMessage, showError } from './fmt.js';
import { SWEPT_INPUTS } from './sweep-data.js';

const MAX_ROWS = 100;
const MAX_POINTS = 2_000_000; // the worker keeps every point in memory (a double per sweep field: 18 today)
const COLUMNS_KEY = 'flopcast.sweep.columns';
/** The columns shown until the reader picks others: the point's identity, fit, speed and cost. */
const DEFAULT_COLUMNS = [
  'model',
  'gpu',
  'precision',
  'batch_size',
  'sequence_length',
  'fits_on_gpu',
  'memory',
  'prefill_latency_s',
  'decode_latency_per_token_s',
  'decode_tokens_per_second',
  'cost_usd',
];
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

  // ---- columns ----
  function loadColumns() {
    try {
      const saved = JSON.parse(localStorage.getItem(COLUMNS_KEY));
      if (Array.isArray(saved) && saved.some((k) => fields.some((f) => f.key === k))) return new Set(saved);
    } catch {
      // no storage or a bad entry: the defaults
    }
    return new Set(DEFAULT_COLUMNS);
  }
  let shown = loadColumns();
  const visible = () => fields.filter((f) => shown.has(f.key));
  function renderPicker() {
    const list = $('sweep-columns-list');
    list.replaceChildren(
      ...fields.map((f) => {
        const label = document.createElement('label');
        const box = Object.assign(document.createElement('input'), { type: 'checkbox', value: f.key });
        box.checked = shown.has(f.key);
        label.append(box, ` ${f.header}`);
        label.title = f.key;
        return label;
      }),
    );
  }
  $('sweep-columns-list').addEventListener('change', (e) => {
    const box = e.target;
    if (box.type !== 'checkbox') return;
    if (box.checked) shown.add(box.value);
    else if (shown.size > 1) shown.delete(box.value);
    else box.checked = true; // keep one column
    try {
      localStorage.setItem(COLUMNS_KEY, JSON.stringify([...shown]));
    } catch {
      // private mode: the choice lasts for this page only
    }
    renderHead();
    renderBody();
  });

  // ---- results ----
  let st = null; // the current sweep: { total, sortKey, dir, offset }
  let runId = 0;
  let active = null; // the running sweep or download (its worker call), for Cancel
  let view = 0; // the latest table window asked for

  function renderHead() {
    const tr = document.createElement('tr');
    for (const f of visible()) {
      const th = document.createElement('th');
      th.scope = 'col';
      th.dataset.key = f.key;
      th.tabIndex = 0;
      th.className = f.kind;
      const dir = st && st.sortKey === f.key ? (st.dir > 0 ? 'ascending' : 'descending') : 'none';
      th.setAttribute('aria-sort', dir);
      th.textContent = f.header;
      th.title = `Sort by ${f.header} (${f.key})`;
      tr.append(th);
    }
    table.tHead.replaceChildren(tr);
  }

  // Renders the window of the current order the worker sends (MAX_ROWS rows from st.offset).
  async function renderBody() {
    if (!st) return;
    const s = st;
    const cols = visible();
    const v = ++view;
    const r = await call({ type: 'sweep-rows', offset: s.offset, count: MAX_ROWS, keys: cols.map((f) => f.key) });
    if (v !== view || s !== st) return;
    const kinds = r.keys.map((k) => fields.find((f) => f.key === k).kind);
    let html = '';
    for (const row of r.rows) {
      html += `<tr data-point="${row.point}">`;
      row.cells.forEach((c, j) => {
        const raw = typeof c === 'number' ? ` data-v="${c}"` : '';
        html += `<td class="${kinds[j]}"${raw}>${esc(formatByKind(kinds[j], c))}</td>`;
      });
      html += '</tr>';
    }
    tbody.innerHTML = html;
    const sorted = s.sortKey
      ? `, sorted by ${fields.find((f) => f.key === s.sortKey).header} (${s.dir > 0 ? 'ascending' : 'descending'})`
      : '';
    const last = Math.min(s.total, s.offset + MAX_ROWS);
    noteEl.textContent =
      s.total > MAX_ROWS
        ? `Showing rows ${s.offset + 1}–${last} of ${s.total} points${sorted}. The CSV and JSON downloads hold all ${s.total}.`
        : `All ${s.total} points${sorted}.`;
    $('sweep-prev').disabled = s.offset === 0;
    $('sweep-next').disabled = last >= s.total;
  }

  async function sortBy(key) {
    if (!st) return;
    const s = st;
    const dir = s.sortKey === key ? -s.dir : 1;
    noteEl.textContent = `Sorting ${s.total} points…`;
    table.setAttribute('aria-busy', 'true');
    try {
      await call({ type: 'sweep-sort', key, dir });
    } finally {
      table.removeAttribute('aria-busy');
    }
    if (s !== st) return;
    Object.assign(s, { sortKey: key, dir, offset: 0 });
    // The header's arrow turns with the rows it describes, not before them.
    await renderBody();
    if (s === st) renderHead();
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
  const page = (step) => {
    if (!st) return;
    st.offset = Math.max(0, Math.min(st.offset + step * MAX_ROWS, Math.floor((st.total - 1) / MAX_ROWS) * MAX_ROWS));
    renderBody();
  };
  $('sweep-prev').addEventListener('click', () => page(-1));
  $('sweep-next').addEventListener('click', () => page(1));

  // ---- cancel: the worker stops at its next chunk ----
  function setActive(p) {
    active = p;
    table.dataset.busy = p ? 'true' : '';
    $('sweep-cancel').hidden = !p;
    $('sweep-csv').disabled = Boolean(p) || !st;
    $('sweep-json').disabled = Boolean(p) || !st;
  }
  function cancel() {
    if (active) call({ type: 'cancel', target: active.id });
  }
  $('sweep-cancel').addEventListener('click', cancel);
  const isCancel = (e) => e?.code === 'cancelled';

  // ---- the chart (loaded with the first finished sweep) ----
  let chart = null;
  let chartRun = 0; // the latest chart asked for
  const chartBox = $('sweep-chart-box');
  const sel = (id) => $(`sweep-chart-${id}`);
  const option = (value, text) => Object.assign(document.createElement('option'), { value, textContent: text });
  const headerOf = (key) => fields.find((f) => f.key === key)?.header ?? key;
  function chartChoices(lists) {
    const varied = SWEPT_INPUTS.filter((k) => (lists[k]?.length ?? 1) > 1);
    const keep = (id, ok, fallback) => (ok.includes(sel(id).value) ? sel(id).value : fallback);
    const numeric = fields
      .filter((f) => f.kind !== 'text' && f.kind !== 'bound' && !SWEPT_INPUTS.includes(f.key))
      .map((f) => f.key);
    const y = keep('y', numeric, 'decode_tokens_per_second');
    const xs = varied.length ? varied : ['batch_size'];
    const x = keep('x', xs, xs.find((k) => k === 'batch_size' || k === 'sequence_length') ?? xs[0]);
    sel('y').replaceChildren(...numeric.map((k) => option(k, headerOf(k))));
    sel('x').replaceChildren(...xs.map((k) => option(k, headerOf(k))));
    sel('y').value = y;
    sel('x').value = x;
    groupChoices(varied);
  }
  function groupChoices(varied) {
    const x = sel('x').value;
    const groups = varied.filter((k) => k !== x);
    const g = groups.includes(sel('group').value) ? sel('group').value : (groups[0] ?? '');
    sel('group').replaceChildren(option('', '(one line)'), ...groups.map((k) => option(k, headerOf(k))));
    sel('group').value = g;
  }
  async function drawChart() {
    if (!st) return;
    const s = st;
    const want = { x: sel('x').value, y: sel('y').value, group: sel('group').value };
    const n = ++chartRun;
    const [mod, data] = await Promise.all([import('./sweep-chart.js'), call({ type: 'sweep-chart', ...want })]);
    if (s !== st || n !== chartRun) return;
    chartBox.hidden = false;
    const kinds = Object.fromEntries(fields.map((f) => [f.key, f.kind]));
    chart = mod.drawSweepChart(chart, $('sweep-chart'), data, { ...want, headerOf, kinds });
    $('sweep-chart-note').textContent = mod.describe(data, { ...want, headerOf, kinds });
  }
  matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => chart && drawChart());
  for (const id of ['x', 'y', 'group'])
    sel(id).addEventListener('change', () => {
      if (id === 'x' && st) groupChoices(st.varied);
      drawChart();
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
    if (active) cancel(); // a new sweep replaces a running one (or stops a download)
    const id = ++runId;
    progress.max = 1;
    progress.value = 0;
    countEl.textContent = 'Running…';
    $('sweep-run').setAttribute('aria-busy', 'true');
    const t0 = performance.now();
    const job = call({ type: 'sweep-sweep', request, labels }, (done, total) => {
      if (id !== runId) return;
      progress.max = total;
      progress.value = done;
      countEl.textContent = `${done} of ${total} points…`;
    });
    setActive(job);
    let r;
    try {
      r = await job;
    } catch (e) {
      if (id !== runId) return;
      if (isCancel(e)) countEl.textContent = 'Sweep cancelled.';
      else showCoreError(e);
      return;
    } finally {
      if (id === runId) {
        $('sweep-run').removeAttribute('aria-busy');
        setActive(null);
      }
    }
    if (id !== runId) return;
    const ms = performance.now() - t0;
    st = {
      total: r.total,
      varied: SWEPT_INPUTS.filter((k) => (request[k]?.length ?? 1) > 1),
      sortKey: null,
      dir: 1,
      offset: 0,
      summary: `${formatInteger(r.total)} points in ${formatSeconds(ms / 1000)}`,
    };
    table.dataset.points = String(r.total);
    table.dataset.request = JSON.stringify(request); // what the worker computed (for tests)
    progress.max = Math.max(1, r.total);
    progress.value = progress.max;
    setActive(null);
    renderHead();
    await renderBody();
    if (id === runId) countEl.textContent = st.summary;
    chartChoices(request);
    drawChart();
  }

  // ---- downloads: every point and column, in the sweep's order, raw SI numbers ----
  function save(name, type, parts) {
    const url = URL.createObjectURL(new Blob(parts, { type }));
    const a = Object.assign(document.createElement('a'), { href: url, download: name });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 60000);
  }
  async function download(kind) {
    if (!st || active) return;
    const parts = [];
    const what = kind.toUpperCase();
    progress.max = Math.max(1, st.total);
    progress.value = 0;
    countEl.textContent = `Writing ${what}…`;
    const job = call({ type: 'sweep-download', format: kind }, (done, total, msg) => {
      parts.push(msg.part);
      progress.max = Math.max(1, total);
      progress.value = done;
      countEl.textContent = `Writing ${what}: ${formatInteger(done)} of ${formatInteger(total)} rows…`;
    });
    setActive(job);
    try {
      await job;
    } catch (e) {
      if (active === job || !active)
        countEl.textContent = isCancel(e) ? 'Download cancelled.' : `Download failed: ${e.message}`;
      return;
    } finally {
      if (active === job) setActive(null);
    }
    countEl.textContent = `${what} written: ${formatInteger(st.total)} rows.`;
    if (kind === 'csv') save('flopcast-sweep.csv', 'text/csv', parts);
    else save('flopcast-sweep.json', 'application/json', parts);
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
  renderPicker();
  renderHead();
}
