// The SLO search's speed (issue 28): the default search (one model, one device, 8 GPUs, every engine
// that runs there) natively (`flopcast plan --json`, minus a trivial run's process start) and in
// WebAssembly (Node). Budgets: 1 s natively, 3 s in the page's worker. Prints figures; asserts
// nothing (npm run bench:wasm).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cli, load, medianMs } from './load.mjs';

const { fc } = await load();
const request = {
  model: 'llama-3-8b',
  gpu: 'H100',
  sequence_length: 1024,
  num_generated_tokens: 256,
  plan: { slo_ttft_s: 0.5, slo_tpot_s: 0.02, gpus: 8 },
};
let last;
fc.plan(request); // warm-up
const wasm = medianMs(() => (last = fc.plan(request)), 5);
const s = last.search;
console.log(
  `wasm plan search llama-3-8b 8xH100: median ${wasm.toFixed(1)} ms (${s.configurations} configurations, ` +
    `${s.closed_form_points} closed-form points, ${s.simulations} simulations)`,
);
if (existsSync(cli)) {
  const args = [
    'plan',
    'llama-3-8b',
    '-g',
    'H100',
    '-s',
    '1024',
    '-n',
    '256',
    '--slo-ttft',
    '0.5',
    '--slo-tpot',
    '0.02',
  ];
  const full = medianMs(() => spawnSync(cli, [...args, '--json']), 5);
  const trivial = medianMs(() => spawnSync(cli, ['plan', 'llama-3-8b', '-g', 'H100', '--json']), 5);
  console.log(
    `native plan search (the same): median ${(full - trivial).toFixed(1)} ms (process ${full.toFixed(1)} ms)`,
  );
}
