// The memory bar: what the estimate puts on the card (weights, KV cache, activations; training:
// gradients, the fp32 master copy, optimizer moments) against the usable memory the core checks the
// fit with (details.memory.usable_gpu_memory: capacity x utilization - reserve). With a multi-GPU layout
// it shows one GPU (details.parallelism.per_gpu_*). Plain HTML/CSS: a stacked row of segments whose
// widths are bytes / max(usable, total); a marker at the usable bytes, the overflow past it.
import { show } from './fmt.js';

const bytes = (v) => show('bytes', v);

/** A training step's parts (an estimate's details.memory.training or a train() result's memory). */
const trainingParts = (t, weights) => [
  { part: 'weights', label: weights, bytes: t.weights },
  { part: 'gradients', label: 'Gradients', bytes: t.gradients },
  { part: 'master', label: 'fp32 master copy', bytes: t.master_weights },
  { part: 'optimizer', label: 'Optimizer moments', bytes: t.optimizer_moments },
  { part: 'activations', label: 'Activations', bytes: t.activations },
];

/** The bar's segments [{part, label, bytes}] and its usable bytes, from an estimate (or a train() result). */
export function memorySegments(result, train = null) {
  const m = result.details.memory;
  const par = result.details.parallelism;
  const layout = par && par.total_gpus > 1;
  const training = m.training !== null;
  if (train) {
    const t = train.memory;
    const segments = trainingParts(t, 'Weights (frozen base + adapters)');
    return { scope: 'training (LoRA)', usable: t.usable_gpu_memory, total: t.total, segments };
  }
  // The method the estimate's training figures are for (training_analysis.fine_tuning).
  const method = training ? { full: '', lora: 'LoRA', qlora: 'QLoRA' }[m.training.fine_tuning] : '';
  if (layout) {
    const segments = training
      ? [
          { part: 'state', label: 'Weights, gradients, optimizer', bytes: par.per_gpu_training_state },
          { part: 'activations', label: 'Activations', bytes: par.per_gpu_activations },
        ]
      : [
          { part: 'weights', label: 'Weights', bytes: par.per_gpu_weights },
          { part: 'kv', label: 'KV cache', bytes: par.per_gpu_kv_cache },
          { part: 'activations', label: 'Activations', bytes: par.per_gpu_activations },
        ];
    return {
      scope: `per GPU of ${par.total_gpus}${method ? ` (${method})` : ''}`,
      usable: m.usable_gpu_memory,
      total: par.per_gpu_memory_bytes,
      segments,
    };
  }
  if (training) {
    const t = m.training;
    const weights = method ? 'Weights (frozen base + adapters)' : 'Weights';
    const scope = method ? `training (${method})` : 'training';
    return { scope, usable: m.usable_gpu_memory, total: t.total, segments: trainingParts(t, weights) };
  }
  return {
    scope: 'inference',
    usable: m.usable_gpu_memory,
    total: m.total,
    segments: [
      { part: 'weights', label: 'Weights', bytes: m.weights },
      { part: 'kv', label: 'KV cache', bytes: m.kv_cache },
      { part: 'activations', label: 'Activations', bytes: m.activations },
    ],
  };
}

/** Draws the bar into `root` (#membar); hidden without a GPU. */
export function drawMemoryBar(root, result, train = null) {
  const bar = memorySegments(result, train);
  if (bar.usable === null || bar.usable === undefined || !(bar.usable > 0)) {
    root.hidden = true;
    return;
  }
  root.hidden = false;
  const scale = Math.max(bar.usable, bar.total);
  const pct = (b) => `${((100 * b) / scale).toFixed(4)}%`;
  const track = root.querySelector('.membar-track');
  const shown = bar.segments.filter((s) => s.bytes > 0);
  track.replaceChildren(
    ...shown.map((s) => {
      const el = Object.assign(document.createElement('span'), { className: `membar-seg seg-${s.part}` });
      el.style.width = pct(s.bytes);
      el.dataset.part = s.part;
      el.dataset.bytes = String(s.bytes);
      el.title = `${s.label}: ${bytes(s.bytes)}`;
      return el;
    }),
  );
  const over = bar.total > bar.usable;
  const marker = root.querySelector('.membar-marker');
  marker.style.left = pct(bar.usable);
  const overflow = root.querySelector('.membar-over');
  overflow.hidden = !over;
  overflow.style.left = pct(bar.usable);
  overflow.style.width = over ? pct(bar.total - bar.usable) : '0';
  root.dataset.usable = String(bar.usable);
  root.dataset.total = String(bar.total);
  root.dataset.scope = bar.scope;
  root.classList.toggle('over', over);
  const figures = shown.map((s) => `${s.label} ${bytes(s.bytes)}`).join(', ');
  const verdict = over
    ? `does not fit: ${bytes(bar.total - bar.usable)} over`
    : `fits, ${bytes(bar.usable - bar.total)} free`;
  root
    .querySelector('.membar-bar')
    .setAttribute(
      'aria-label',
      `Memory (${bar.scope}): ${bytes(bar.total)} of ${bytes(bar.usable)} usable (${figures}); ${verdict}.`,
    );
  const legend = root.querySelector('.membar-legend');
  legend.replaceChildren(
    ...shown.map((s) => {
      const li = document.createElement('li');
      const sw = Object.assign(document.createElement('span'), { className: `membar-swatch seg-${s.part}` });
      li.append(sw, `${s.label} ${bytes(s.bytes)}`);
      return li;
    }),
  );
  const scope = bar.scope === 'inference' ? '' : `${bar.scope[0].toUpperCase()}${bar.scope.slice(1)}: `;
  root.querySelector('.membar-caption').textContent =
    `${scope}${bytes(bar.total)} of ${bytes(bar.usable)} usable: ${verdict}`;
}
