// A dropped or chosen .gguf / .safetensors file: only its header is read (File.slice, grown until
// the core's checkpointHeaderBytes is satisfied: fc.inspectCheckpointFile), the core summarises it
// (by type, by component, bits per weight, tensors no architecture holds) and, for GGUF, says which
// config its keys imply. The page then estimates that model with the file's exact weight bytes.
import { isOnnx, onFileDrop } from './drop.js';
import { formatNumber } from '../format.js';
import { show } from './fmt.js';

const $ = (id) => document.getElementById(id);

function row(cells) {
  const tr = document.createElement('tr');
  for (const [text, value] of cells) {
    const td = document.createElement('td');
    td.textContent = text;
    if (value !== undefined) td.dataset.value = String(value);
    tr.append(td);
  }
  return tr;
}

export function initCheckpoint({ fc, FlopcastError, onLoaded, onOnnx }) {
  let state = null; // {file, head, summary, configKey}
  let failure = ''; // why the last file could not be read

  function render(s) {
    const box = $('checkpoint-summary');
    box.hidden = !s;
    if (!s) return;
    const values = {
      '/name': s.name ?? state.file.name,
      '/format': s.format === 'gguf' ? `GGUF v${s.gguf_version}` : s.format,
      '/architecture': s.architecture ? `(${s.architecture})` : '',
      '/tensor_count': s.tensor_count,
      '/total_bytes': s.total_bytes,
      '/total_elements': s.total_elements,
      '/bits_per_weight': s.bits_per_weight,
      '/mix': s.mix || '–',
    };
    for (const el of box.querySelectorAll('[data-ck]')) {
      const v = values[el.dataset.ck];
      el.dataset.value = String(v);
      el.textContent = el.dataset.fmt ? show(el.dataset.fmt, v) : String(v);
    }
    const totals = (id, list) =>
      $(id).replaceChildren(
        ...list.map((t) =>
          row([
            [t.name, t.name],
            [String(t.tensors), t.tensors],
            [show('bytes', t.bytes), t.bytes],
            [formatNumber(t.bits_per_weight), t.bits_per_weight],
          ]),
        ),
      );
    totals('ck-dtypes', s.by_dtype);
    totals('ck-components', s.by_component);
    const k = s.architecture_check;
    const check = $('ck-check');
    if (k) {
      const diff = k.checkpoint_elements - k.architecture_parameters;
      check.textContent = k.matches
        ? `Architecture (${k.model_type}, from ${s.config_source === 'gguf' ? 'the GGUF keys' : 'config.json'}): ${show('count', k.architecture_parameters)} parameters — matches the checkpoint.`
        : `Architecture (${k.model_type}): ${show('count', k.architecture_parameters)} parameters — the checkpoint holds ${diff > 0 ? diff : -diff} ${diff > 0 ? 'more' : 'fewer'} elements.`;
      check.dataset.matches = String(k.matches);
    } else {
      check.textContent = `Not compared: ${s.architecture_error}`;
      check.dataset.matches = 'null';
    }
    const un = k?.unaccounted ?? [];
    const unEl = $('ck-unaccounted');
    unEl.dataset.value = un.join(',');
    unEl.textContent = un.length
      ? `Not in the architecture model (${un.length}): ${un.slice(0, 8).join(', ')}${un.length > 8 ? ', …' : ''}`
      : '';
    for (const n of s.notes) unEl.textContent += ` Note: ${n}`;
  }

  async function load(file) {
    failure = '';
    if (!file) return;
    if (isOnnx(file)) {
      // Profiled in its own panel; the estimate still needs a checkpoint header or a config.
      state = null;
      failure = `${file.name} is an ONNX graph: its profile is shown below. The estimate reads a .gguf or .safetensors header.`;
      return onOnnx(file);
    }
    try {
      const config = $('config').value.trim();
      // The header only: File.slice(0, n), n from the core (never the tensor data).
      const head = await readHeader(file);
      let summary = fc.inspectCheckpoint(head, file.size, isObjectText(config) ? config : undefined);
      // A GGUF names its architecture: its config replaces whatever the text area held.
      if (summary.format === 'gguf' && summary.config) $('config').value = JSON.stringify(summary.config, null, 2);
      state = { file, head, summary, configKey: $('config').value };
      render(summary);
      onLoaded(summary, file);
    } catch (e) {
      state = null;
      render(null);
      failure = `Could not read ${file.name}: ${e instanceof FlopcastError ? e.message : `${e.name}: ${e.message}`}`;
      onLoaded(null, file);
    }
  }

  async function readHeader(file) {
    let head = new Uint8Array(await file.slice(0, Math.min(file.size, 1 << 20)).arrayBuffer());
    for (;;) {
      const need = fc.checkpointHeaderBytes(head);
      if (need <= head.length || head.length >= file.size) return head;
      head = new Uint8Array(await file.slice(0, Math.min(file.size, Math.max(need, 2 * head.length))).arrayBuffer());
    }
  }

  const isObjectText = (t) => {
    try {
      const v = JSON.parse(t);
      return v !== null && typeof v === 'object' && !Array.isArray(v);
    } catch {
      return false;
    }
  };

  /** The summary for the current config text (a safetensors file is re-checked against it). */
  function current(configText) {
    if (!state) return null;
    if (state.summary.format !== 'gguf' && configText !== state.configKey) {
      state.configKey = configText;
      try {
        state.summary = fc.inspectCheckpoint(
          state.head,
          state.file.size,
          isObjectText(configText) ? configText : undefined,
        );
      } catch {
        // the header was read before: only the config can be wrong, and the estimate reports that
      }
      render(state.summary);
    }
    return state.summary;
  }

  onFileDrop($('checkpoint-drop'), (file) => {
    if (file) {
      $('source-checkpoint').checked = true;
      load(file);
    }
  });
  return { load, current, file: () => state?.file ?? null, failure: () => failure };
}
