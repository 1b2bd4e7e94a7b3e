// Loads the built WebAssembly package (build-wasm/wasm) in Node, the way a user would.
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
