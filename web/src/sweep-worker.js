// The page's background worker (app/worker.js talks to it): sweeps run here in chunks, posting
// progress, and stay here (app/sweep-data.js: sorting, windows of rows, chart series, streamed
// downloads, cancel); serving simulations run here whole (fc.simulate), and checkpoint headers are
// read and parsed here (fc.inspectCheckpointFile), so that nothing long runs on the page's thread.
import { engine } from './engine.js';
import { sweepHandlers } from './app/sweep-data.js';

const loading = engine();
let sweeps = null;
const graphs = new Map(); // the ONNX graph the profile panel shows, by the id of the message that read it

self.onmessage = async ({ data: msg }) => {
  const { id } = msg;
  try {
    const fc = await loading;
    sweeps ??= sweepHandlers(fc);
    if (msg.type === 'ready') {
      postMessage({ type: 'done', id }); // started and its module loaded (the page warms it up)
    } else if (msg.type === 'cancel') {
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
    } else if (msg.type === 'inspect-checkpoint') {
      // A checkpoint file's header (megabytes of JSON for a large safetensors model), read and
      // parsed here rather than on the page's thread.
      const t0 = performance.now();
      const result = await fc.inspectCheckpointFile(msg.file, msg.config);
      postMessage({ type: 'done', id, result, ms: performance.now() - t0 });
    } else if (msg.type === 'vet-config') {
      // A long config text (app/config-vet.js), judged here: JSON, an object, and the core's
      // reading of it as a model; the page parses it only after this found nothing wrong.
      let config;
      try {
        config = JSON.parse(msg.text);
      } catch (e) {
        throw new Error(`Not valid JSON: ${e.message}`);
      }
      if (config === null || typeof config !== 'object' || Array.isArray(config))
        throw new Error('Not a JSON object: a config.json is {"model_type": …}.');
      try {
        fc.estimate({ model: config });
      } catch (e) {
        if ((e.pointer ?? '').startsWith('/model')) throw e; // the config's own error
      }
      postMessage({ type: 'done', id });
    } else if (msg.type === 'onnx-read') {
      // An .onnx file read without its weights; the graph stays here, the page gets its key.
      const { readOnnx, symbols } = await import('./app/onnx-reader.js');
      const graph = await readOnnx(msg.file);
      graphs.clear(); // the panel shows one graph at a time
      graphs.set(id, graph);
      postMessage({ type: 'done', id, graph: id, symbols: symbols(graph) });
    } else if (msg.type === 'onnx-profile') {
      const graph = graphs.get(msg.graph);
      if (!graph) throw new Error('that ONNX graph is no longer loaded: choose the file again');
      postMessage({ type: 'done', id, result: fc.profile(graph, msg.options) });
    } else if (msg.type === 'plan' || msg.type === 'reportData') {
      const t0 = performance.now();
      const result = fc[msg.type](msg.request);
      postMessage({ type: 'done', id, result, ms: performance.now() - t0 });
    } else throw new Error(`unknown worker message type ${JSON.stringify(msg.type)}`);
  } catch (e) {
    postMessage({ type: 'error', id, message: e.message, pointer: e.pointer ?? '', code: e.code ?? '' });
  }
};
