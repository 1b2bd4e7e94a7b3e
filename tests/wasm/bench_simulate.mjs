// The serving simulator's speed in WebAssembly (Node), the workload of
// tests/bench/bench_simulator.cpp: 10,000 requests of 1k input / 1k output tokens from 256
// closed-loop clients (max_num_seqs 256, 8192 tokens per step), Llama 3 8B on one H100. The
// budget is 3x the native time (about 100 ms natively); the native figure, when the native CLI
// is built, is the same request through `flopcast serve --json` minus a trivial run's time
// (process start and JSON). Prints figures; asserts nothing (npm run bench:wasm).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cli, load, medianMs } from './load.mjs';

const { fc } = await load();
const request = {
  model: 'llama-3-8b',
  gpu: 'H100',
  simulation: {
    arrivals: 'closed_loop',
    concurrency: [256],
    num_requests: 10000,
    input_tokens: 1024,
    output_tokens: 1024,
    max_num_seqs: 256,
    max_num_batched_tokens: 8192,
  },
};
fc.simulate(request); // warm-up (compiles the hot paths)
const wasm = medianMs(() => fc.simulate(request), 5);
console.log(`wasm simulate 10k req 1k/1k c=256: median ${wasm.toFixed(1)} ms`);
if (existsSync(cli)) {
  const argv = (n) => [
    'serve',
    'llama-3-8b',
    '--gpu',
    'H100',
    '--concurrency',
    '256',
    '--num-requests',
    String(n),
    '--isl',
    '1024',
    '--osl',
    '1024',
    '--max-num-seqs',
    '256',
    '--max-num-batched-tokens',
    '8192',
    '--json',
  ];
  const run = (n) => medianMs(() => spawnSync(cli, argv(n), { encoding: 'utf8' }), 5);
  const native = run(10000) - run(256);
  console.log(`native flopcast serve, same run: about ${native.toFixed(1)} ms (process start subtracted)`);
  console.log(`wasm / native: ${(wasm / native).toFixed(2)}x (budget 3x)`);
}
