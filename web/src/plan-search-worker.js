// The SLO planner's worker (app/slo-plan.js): one fc.plan search at a time, its progress posted as
// it goes. A WASM call cannot read a message until it returns, so the card cancels a search by
// terminating this worker (app/worker.js: call.terminate) and starts a fresh one for the next.
import { engine } from './engine.js';

const loading = engine();

self.onmessage = async ({ data: msg }) => {
  const { id } = msg;
  try {
    const fc = await loading;
    if (msg.type === 'ready') {
      postMessage({ type: 'done', id }); // started and its module loaded (the card warms it up)
    } else if (msg.type === 'plan') {
      const t0 = performance.now();
      const result = fc.plan(msg.request, {
        onProgress: (share) => postMessage({ type: 'progress', id, done: share, total: 1 }),
      });
      postMessage({ type: 'done', id, result, ms: performance.now() - t0 });
    } else throw new Error(`unknown worker message type ${JSON.stringify(msg.type)}`);
  } catch (e) {
    postMessage({ type: 'error', id, message: e.message, pointer: e.pointer ?? '', code: e.code ?? '' });
  }
};
