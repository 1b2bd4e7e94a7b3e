// The GPU select: the core's GPU records (each with its memory), then None and Custom; a name or an
// alias from an address; and the Custom GPU's JSON template (the last real GPU chosen).
import { show } from './fmt.js';
import { $, lower, option } from './dom.js';

let gpus = []; // the core's GPU records (fc.listGpus())
let lastGpu = ''; // the Custom GPU's template: the last real GPU chosen

/** Fills the GPU select from the core's records. */
export function fillGpus(list) {
  gpus = list;
  $('gpu').append(
    ...gpus.map((g) => option(g.name, `${g.name} · ${show('bytes', g.memory_bytes)}`)),
    option('none', 'No GPU (counts and memory only)'),
    option('custom', 'Custom GPU (JSON)…'),
  );
}

/** The GPU select's value for a name or an alias (any case); an unknown name stays as typed. */
export function gpuName(text) {
  const t = lower(text);
  if (t === 'none' || t === 'custom') return t;
  return gpus.find((g) => lower(g.name) === t || g.aliases.some((a) => lower(a) === t))?.name ?? text;
}

/** Takes the GPU select's value as the Custom GPU's template (a fresh load, an address applied). */
export function rememberGpu() {
  lastGpu = $('gpu').value;
}

function customTemplate() {
  const rec = gpus.find((g) => g.name === lastGpu) ?? gpus[0];
  const { aliases, interconnect, vendor, ...spec } = rec;
  return JSON.stringify({ ...spec, name: `${rec.name}-custom` }, null, 2);
}

/** Before each estimate: an empty Custom GPU gets the last real GPU's spec to edit; a real GPU is remembered. */
export function syncGpu() {
  if ($('gpu').value === 'custom' && !$('gpu-custom').value.trim()) $('gpu-custom').value = customTemplate();
  if (!['custom', 'none'].includes($('gpu').value)) lastGpu = $('gpu').value;
}
