// Loads the built WebAssembly package (build-wasm/wasm) in Node, the way a user would.
import { performance } from 'node:perf_hooks';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const root = resolve(import.meta.dirname, '../..');
export const wasmDir = join(root, 'build-wasm/wasm');
export const cli = join(root, 'build/flopcast');

export async function load() {
  const { createFlopcast, FlopcastError } = await import(join(wasmDir, 'flopcast.js'));
  const fc = await createFlopcast({ wasmBinary: readFileSync(join(wasmDir, 'flopcast_core.wasm')) });
  return { fc, FlopcastError };
}

/** The median wall time of n calls of f, in ms (the benchmarks' figure). */
export function medianMs(f, n) {
  const t = [];
  for (let i = 0; i < n; ++i) {
    const t0 = performance.now();
    f();
    t.push(performance.now() - t0);
  }
  t.sort((a, b) => a - b);
  return t[Math.floor(t.length / 2)];
}
