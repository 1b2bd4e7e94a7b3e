// The sweep runs here, off the main thread: fc.sweep in chunks, posting progress, then the
// numeric values (transferred, not copied). It also answers the one text field the numeric
// sweep lacks (prefill_bound) for the points the page asks about, via fc.compare.
import { engine } from './engine.js';

const loading = engine();

// Index of a point in the Cartesian order of compare.hpp: model, precision, gpu, batch, sequence, generated.
const DIMS = ['model', 'precision', 'gpu', 'batch_size', 'sequence_length', 'num_generated_tokens'];
const BOUND = { compute: 1, memory: 2 };

function pointRequest(request, index) {
  const r = { ...request };
  for (let d = DIMS.length - 1; d >= 0; d--) {
    const list = request[DIMS[d]];
    r[DIMS[d]] = list[index % list.length];
    index = Math.floor(index / list.length);
  }
  return r;
}

function bounds(fc, msg) {
  const { id, request, indices } = msg;
  const out = new Uint8Array(indices ? indices.length : msg.total);
  const code = (row) => BOUND[row.prefill_bound] ?? 3;
  if (indices) {
    indices.forEach((i, k) => (out[k] = code(fc.compare(pointRequest(request, i))[0])));
  } else {
    // Whole blocks: one compare per (model, precision, gpu, batch) over the inner lists.
    const inner = request.sequence_length.length * request.num_generated_tokens.length;
    const blocks = out.length / inner;
    for (let b = 0; b < blocks; b++) {
      const r = pointRequest(request, b * inner);
      r.sequence_length = request.sequence_length;
      r.num_generated_tokens = request.num_generated_tokens;
      fc.compare(r).forEach((row, k) => (out[b * inner + k] = code(row)));
      if (b % 200 === 199) postMessage({ type: 'progress', id, done: (b + 1) * inner, total: out.length });
    }
  }
  postMessage({ type: 'bounds', id, indices, bounds: out }, [out.buffer]);
}

self.onmessage = async ({ data: msg }) => {
  const { id } = msg;
  try {
    const fc = await loading;
    if (msg.type === 'sweep') {
      const t0 = performance.now();
      const r = fc.sweep(msg.request, {
        chunk: 20000,
        onProgress: (done, total) => postMessage({ type: 'progress', id, done, total }),
      });
      postMessage({ type: 'done', id, fields: r.fields, total: r.total, count: r.count, ms: performance.now() - t0, values: r.values },
        [r.values.buffer]);
    } else if (msg.type === 'bounds') {
      bounds(fc, msg);
    }
  } catch (e) {
    postMessage({ type: 'error', id, message: e.message, pointer: e.pointer ?? '', code: e.code ?? '' });
  }
};
