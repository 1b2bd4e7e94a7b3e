// The ONNX profile panel, loaded only when an .onnx file arrives (dropped or chosen): the file is
// read without its weights (onnx-reader.js) and profiled by the core (fc.profile), both in the
// page's worker (a graph can hold hundreds of thousands of nodes), at the page's GPU
// and precision, and the panel shows the totals, the per op type and per scope tables (scope depth
// adjustable), ops without a cost rule, and an input for each symbolic dimension of the graph.
import { formatBytes, formatCount, formatFlops, formatSeconds } from '../format.js';
import { plainMessage, showError } from './fmt.js';

const $ = (id) => document.getElementById(id);
const COLUMNS = [
  ['flops', formatFlops],
  ['macs', formatCount],
  ['parameters', formatCount],
  ['activation_bytes', formatBytes],
  ['weight_bytes', formatBytes],
  ['roofline_time_s', formatSeconds],
];

function el(tag, attrs = {}, text) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

function panel() {
  let box = $('onnx-profile');
  if (box) return box;
  box = el('section', { id: 'onnx-profile', class: 'checkpoint onnx-profile', 'aria-label': 'ONNX profile' });
  box.innerHTML = `<h3 id="onnx-name"></h3>
    <div id="onnx-dims"></div>
    <label for="onnx-depth">Scope depth <input id="onnx-depth" type="number" min="1" max="16" value="2" /></label>
    <p id="onnx-error" class="error" aria-live="polite"></p>
    <dl id="onnx-total"></dl>
    <p id="onnx-unknown"></p>
    <table><caption>By op type</caption><thead></thead><tbody id="onnx-by-op"></tbody></table>
    <table><caption>By scope</caption><thead></thead><tbody id="onnx-by-scope"></tbody></table>`;
  for (const head of box.querySelectorAll('thead')) {
    const tr = el('tr');
    for (const h of ['', 'nodes', ...COLUMNS.map(([k]) => k.replace(/_/g, ' '))]) tr.append(el('th', {}, h));
    head.append(tr);
  }
  // The profile is the result: it takes the results column (its tables need the width), where
  // the estimate's cards stand aside while an .onnx file is the model source (app.js, onnxMode).
  $('results').prepend(box);
  return box;
}

function row(name, shown, group) {
  const tr = el('tr');
  tr.append(el('td', { 'data-value': name }, shown));
  tr.append(el('td', { 'data-value': String(group.nodes) }, String(group.nodes)));
  for (const [k, fmt] of COLUMNS) tr.append(el('td', { 'data-value': String(group[k]) }, fmt(group[k])));
  return tr;
}

let current = null; // {file, graph: the worker's key for the graph it read}
let asked = 0; // the newest profile asked of the worker: older answers are dropped

async function render(ctx) {
  const { work } = ctx;
  const { graph } = current;
  const dims = {};
  for (const input of $('onnx-dims').querySelectorAll('input'))
    if (input.value !== '') dims[input.dataset.dim] = Number(input.value);
  const gpu = $('gpu').value;
  const options = {
    dims,
    depth: Number($('onnx-depth').value) || 1,
    precision: $('precision').value === 'auto' ? undefined : $('precision').value,
  };
  if (gpu && gpu !== 'custom') options.gpu = gpu;
  const error = $('onnx-error');
  let r;
  const mine = ++asked;
  try {
    r = (await work({ type: 'onnx-profile', graph, options })).result;
    if (mine !== asked) return;
  } catch (e) {
    if (mine !== asked) return;
    const text = e.code ? dimError(e) : `${e.name}: ${e.message}`;
    showError(error, text, e);
    for (const id of ['onnx-total', 'onnx-by-op', 'onnx-by-scope', 'onnx-unknown']) $(id).replaceChildren();
    ctx.onProfiled?.(current.file, null, text);
    return;
  }
  showError(error, '');
  for (const input of $('onnx-dims').querySelectorAll('input')) input.removeAttribute('aria-invalid');
  const total = $('onnx-total');
  total.replaceChildren();
  for (const [k, fmt] of [['nodes', String], ['not_costed', String], ...COLUMNS]) {
    total.append(
      el('dt', {}, k.replace(/_/g, ' ')),
      el('dd', { 'data-onnx': k, 'data-value': String(r.total[k]) }, fmt(r.total[k])),
    );
  }
  total.append(el('dt', {}, 'at'), el('dd', { 'data-onnx': 'gpu' }, `${r.gpu}, ${r.compute_precision}`));
  $('onnx-by-op').replaceChildren(...r.by_op_type.map((g) => row(g.op_type, g.op_type, g)));
  $('onnx-by-scope').replaceChildren(...r.by_scope.map((g) => row(g.scope, g.scope || '(root)', g)));
  const unknown = $('onnx-unknown');
  unknown.dataset.value = r.unknown_ops.join(',');
  unknown.textContent = r.unknown_ops.length
    ? `Ops without a cost rule (not counted): ${r.unknown_ops.join(', ')}`
    : '';
  ctx.onProfiled?.(current.file, r, null);
}

// The core names the size of a symbolic dimension by the field "--dim" (the CLI's flag, whose
// words its message uses); on the page that field is the boxes above the tables: the message says
// so, naming the boxes still empty, and marks them.
const DIM_FIELD = '--dim';
function dimError(e) {
  if (e.pointer !== DIM_FIELD) return plainMessage(e);
  const empty = [...$('onnx-dims').querySelectorAll('input')].filter((input) => input.value === '');
  for (const input of empty) input.setAttribute('aria-invalid', 'true');
  if (!empty.length) return plainMessage(e).replaceAll(DIM_FIELD, 'the dimension boxes');
  const names = empty.map((input) => `“${input.dataset.dim}”`).join(', ');
  return `The graph's inputs have symbolic dimensions: enter a size in the ${names} box${empty.length > 1 ? 'es' : ''} of this profile.`;
}

/** Reads `file` (an .onnx) and shows its profile; later GPU, precision, dims or depth edits re-run it. */
export async function showProfile(ctx, file) {
  const box = panel();
  const error = $('onnx-error');
  $('onnx-name').textContent = file.name;
  let read;
  try {
    read = await ctx.work({ type: 'onnx-read', file });
    current = { file, graph: read.graph };
  } catch (e) {
    current = null;
    showError(error, `Could not read ${file.name}: ${e.message}`, e);
    ctx.onProfiled?.(file, null, `could not read it: ${e.message}`);
    return;
  }
  const dims = $('onnx-dims');
  dims.replaceChildren(
    ...read.symbols.map((name) => {
      const label = el('label', {}, `${name} `);
      label.append(el('input', { type: 'number', min: '1', step: '1', 'data-dim': name, id: `onnx-dim-${name}` }));
      return label;
    }),
  );
  if (!box.dataset.wired) {
    box.dataset.wired = '1';
    const again = () => current && render(ctx);
    box.addEventListener('input', again);
    $('gpu').addEventListener('change', again);
    $('precision').addEventListener('change', again);
  }
  await render(ctx);
}
