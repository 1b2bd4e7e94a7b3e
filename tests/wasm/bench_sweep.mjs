// WASM speed in Node (a benchmark that prints figures beside their goals, asserts nothing):
// - the page's 1,000,000-point sweep (the request of tests/browser/bench.mjs) through fc.sweep:
//   ms, points/s and the process RSS before and after (flat memory: no growth beyond the output)
// - fc.estimate() per call (JSON in, JSON out)
// - module load + first estimate
// Run after the WASM build:  node --expose-gc tests/wasm/bench_sweep.mjs
// (FLOPCAST_WASM_DIR=<dir> measures another build's package, e.g. a baseline.)
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { wasmDir as builtDir } from './load.mjs';
import { sweep1m } from './sweep_request.mjs';

const wasmDir = resolve(process.env.FLOPCAST_WASM_DIR ?? builtDir);
const mib = (bytes) => (bytes / 1048576).toFixed(1);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

// Module load + first estimate (the binary read from disk counts as part of the load).
const t0 = performance.now();
const { createFlopcast } = await import(join(wasmDir, 'flopcast.js'));
const fc = await createFlopcast({ wasmBinary: readFileSync(join(wasmDir, 'flopcast_core.wasm')) });
const first = fc.estimate({ model: 'llama-3-8b', batch_size: 4, gpu: 'A100' });
const loadMs = performance.now() - t0;
if (!(first.parameters > 0)) throw new Error('the first estimate has no parameters');
console.log(`module load + first estimate: ${loadMs.toFixed(1)} ms (goal <= 50 ms)`);

// fc.estimate() per call.
const request = { model: 'llama-3-8b', batch_size: 4, gpu: 'A100' };
for (let i = 0; i < 200; i++) fc.estimate(request);
const calls = 2000;
let t = performance.now();
for (let i = 0; i < calls; i++) fc.estimate(request);
const perCallUs = ((performance.now() - t) * 1000) / calls;
console.log(`fc.estimate() per call: ${perCallUs.toFixed(1)} us (goal <= 30 us)`);

// The 1M-point sweep (tests/browser/bench.mjs's request), in the worker's chunks.
const sweepRequest = sweep1m;
fc.sweep(sweepRequest, { chunk: 20000, count: 40000 }); // warm-up
const fields = fc.defaults().sweep_fields.length;
const heap = () => (typeof fc.heapUsed === 'function' ? fc.heapUsed() : NaN);
const rssBefore = process.memoryUsage().rss;
const heapBefore = heap();
const runs = [];
const cpu = [];
let count = 0;
for (let i = 0; i < 3; i++) {
  t = performance.now();
  const c0 = process.cpuUsage();
  const r = fc.sweep(sweepRequest, { chunk: 20000 });
  runs.push(performance.now() - t);
  const c = process.cpuUsage(c0);
  cpu.push((c.user + c.system) / 1000);
  count = r.count;
}
globalThis.gc?.(); // with --expose-gc: the dropped results collected before the RSS is read
const rssAfter = process.memoryUsage().rss;
const ms = median(runs);
const output = count * fields * 8;
console.log(
  `sweep in node: ${count} points, median ${ms.toFixed(0)} ms, ${(((count / ms) * 1000) / 1e6).toFixed(2)}M points/s, ` +
    `${((ms * 1e6) / count).toFixed(0)} ns/point (runs: ${runs.map((x) => x.toFixed(0)).join(', ')}; CPU ` +
    `${median(cpu).toFixed(0)} ms; goal <= 500 ms)`,
);
console.log(
  `sweep memory: RSS ${mib(rssBefore)} MiB before, ${mib(rssAfter)} MiB after 3 sweeps${globalThis.gc ? ' and a GC' : ''} (each returns ` +
    `${mib(output)} MiB of values); wasm heap in use ${mib(heapBefore)} -> ${mib(heap())} MiB (goal: flat)`,
);

// Flat memory over the point count: the same points in windows the caller drops must not grow the
// RSS beyond one window's output.
const rssWindowsBefore = process.memoryUsage().rss;
for (let offset = 0; offset < count; offset += 250000) fc.sweep(sweepRequest, { offset, count: 250000 });
globalThis.gc?.();
console.log(
  `sweep in 250k-point windows: RSS ${mib(rssWindowsBefore)} -> ${mib(process.memoryUsage().rss)} MiB, wasm heap ` +
    `${mib(heap())} MiB (goal: flat)`,
);
