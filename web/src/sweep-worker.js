// The page's background worker (app/worker.js talks to it): sweeps run here in chunks, posting
// progress, and stay here (app/sweep-data.js: sorting, windows of rows, chart series, streamed
// downloads, cancel); serving simulations run here whole (fc.simulate), so that nothing long runs
// on the page's thread.
import { engine } from './engine.js';
import { sweepHandlers } from './app/sweep-data.js';

const loading = engine();
let sweeps = null;

self.onmessage = async ({ data: msg }) => {
  const { id } = msg;
  try {
    const fc = await loading;
    sweeps ??= sweepHandlers(fc);
    if (msg.type === 'cancel') {
      postMessage({ type: 'done', id, ...sweeps.cancel(msg.target) });
    } else if (msg.type.startsWith('sweep-')) {
      const run = sweeps.handlers[msg.type.slice(6)];
      if (!run) throw new Error(`unknown worker message type ${JSON.stringify(msg.type)}`);
      const job = { cancelled: false };
      sweeps.jobs.set(id, job);
      try {
        const r = await run(msg, job, (p) => postMessage({ type: 'progress', id, ...p }));
        postMessage({ type: 'done', id, ...r });
      } finally {
        sweeps.jobs.delete(id);
      }
    } else if (msg.type === 'sweep') {
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
    } else if (msg.type === 'plan' || msg.type === 'reportData') {
      const t0 = performance.now();
      const result = fc[msg.type](msg.request);
      postMessage({ type: 'done', id, result, ms: performance.now() - t0 });
    } else throw new Error(`unknown worker message type ${JSON.stringify(msg.type)}`);
  } catch (e) {
    postMessage({ type: 'error', id, message: e.message, pointer: e.pointer ?? '', code: e.code ?? '' });
  }
};
