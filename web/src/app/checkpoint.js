// A dropped or chosen .gguf / .safetensors file: only its header is read, in the page's worker
// (File.slice, grown until the core's checkpointHeaderBytes is satisfied: fc.inspectCheckpointFile), the core summarises it
// (by type, by component, bits per weight, tensors no architecture holds) and, for GGUF, says which
// config its keys imply. The page then estimates that model with the file's exact weight bytes.
import { isOnnx, onFileDrop } from './drop.js';
import { formatNumber } from '../format.js';
import { show } from './fmt.js';
import { CONFIG_MAX_BYTES } from './hub.js';
import { VET_CHARS } from './config-vet.js';

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

export function initCheckpoint({ work, onLoaded, onOnnx }) {
  let state = null; // {file, summary, configKey}
  let failure = ''; // why the last file could not be read
  let onnx = null; // the .onnx file chosen last (profiled, not estimated), until another file

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

  // The header is read and parsed in the worker (a safetensors header of a large model is
  // megabytes of JSON): the page's thread only draws the summary it returns.
  const inspect = (file, config) =>
    work({ type: 'inspect-checkpoint', file, config: isObjectText(config) ? config : undefined }).then((m) => m.result);
  let loading = 0; // the newest load or re-check: an older answer is dropped

  async function load(file) {
    failure = '';
    if (!file) return;
    const mine = ++loading;
    onnx = null;
    if (isOnnx(file)) {
      // Profiled (app/profile-panel.js), its profile shown as the result; not an error.
      state = null;
      render(null);
      onnx = file;
      return onOnnx(file);
    }
    try {
      const config = $('config').value.trim();
      const summary = await inspect(file, config);
      if (mine !== loading) return;
      // A GGUF names its architecture: its config replaces whatever the text area held.
      if (summary.format === 'gguf' && summary.config) $('config').value = JSON.stringify(summary.config, null, 2);
      state = { file, summary, configKey: $('config').value };
      render(summary);
      onLoaded(summary, file);
    } catch (e) {
      if (mine !== loading) return;
      state = null;
      render(null);
      failure = `Could not read ${file.name}: ${e.code ? e.message : `${e.name}: ${e.message}`}`;
      onLoaded(null, file);
    }
  }

  // Whether `t` is a JSON object's text (a config the core can check the header against). A long
  // text is not parsed here: the worker's core judges it (over the page's limit: not sent at all).
  const isObjectText = (t) => {
    if (t.length > CONFIG_MAX_BYTES) return false;
    if (t.length > VET_CHARS) return t.trimStart().startsWith('{');
    try {
      const v = JSON.parse(t);
      return v !== null && typeof v === 'object' && !Array.isArray(v);
    } catch {
      return false;
    }
  };

  /**
   * The summary for the current config text. A safetensors file is re-checked against a changed
   * config in the worker; until its answer arrives the last summary stands, then `onLoaded` runs.
   */
  function current(configText) {
    if (!state) return null;
    if (state.summary.format !== 'gguf' && configText !== state.configKey) {
      state.configKey = configText;
      const mine = ++loading;
      const was = state;
      inspect(state.file, configText).then(
        (summary) => {
          if (mine !== loading || state !== was) return;
          state.summary = summary;
          render(summary);
          onLoaded(null, null);
        },
        () => {
          // the header was read before: only the config can be wrong, and the estimate reports that
        },
      );
    }
    return state.summary;
  }

  onFileDrop($('checkpoint-drop'), (file) => {
    if (file) {
      $('source-checkpoint').checked = true;
      load(file);
    }
  });
  return { load, current, file: () => state?.file ?? null, failure: () => failure, onnx: () => onnx };
}
