// The sweep runs here, off the main thread: fc.sweep in chunks, posting progress, then the
// numeric values (transferred, not copied).
import { engine } from './engine.js';

const loading = engine();

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
      postMessage(
        {
          type: 'done',
          id,
          fields: r.fields,
          total: r.total,
          count: r.count,
          ms: performance.now() - t0,
          values: r.values,
        },
        [r.values.buffer],
      );
    }
  } catch (e) {
    postMessage({ type: 'error', id, message: e.message, pointer: e.pointer ?? '', code: e.code ?? '' });
  }
};
