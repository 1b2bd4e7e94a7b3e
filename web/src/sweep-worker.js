// The page's background worker (app/worker.js talks to it): sweeps run here in chunks, posting
// progress, then the numeric values (transferred, not copied); serving simulations run here
// whole (fc.simulate), so that nothing long runs on the page's thread.
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
    } else if (msg.type === 'simulate') {
      if (typeof fc.simulate !== 'function') throw new Error('This build of the core has no serving simulator.');
      const t0 = performance.now();
      const result = fc.simulate(msg.request);
      postMessage({ type: 'done', id, result, ms: performance.now() - t0 });
    } else if (msg.type === 'plan') {
      const t0 = performance.now();
      const result = fc.plan(msg.request);
      postMessage({ type: 'done', id, result, ms: performance.now() - t0 });
    } else throw new Error(`unknown worker message type ${JSON.stringify(msg.type)}`);
  } catch (e) {
    postMessage({ type: 'error', id, message: e.message, pointer: e.pointer ?? '', code: e.code ?? '' });
  }
};
