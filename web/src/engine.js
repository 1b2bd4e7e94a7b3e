// Loads the WebAssembly estimator once for the page (or worker) that imports this.
import createFlopcast from '@flopcast/wasm';
import wasmUrl from '@flopcast/wasm/flopcast_core.wasm?url';

let loading;
/** The flopcast API (see wasm/flopcast.d.ts), loaded on first use. */
export function engine() {
  loading ??= createFlopcast({ locateFile: () => new URL(wasmUrl, import.meta.url).href });
  return loading;
}
export { FlopcastError } from '@flopcast/wasm';
