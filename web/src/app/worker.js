// One background worker for the page's long computations (sweeps, serving simulations), with
// request ids: call() posts a message and resolves with the worker's answer for that id (the
// promise's `id`, which a {type: 'cancel', target: id} message names); progress messages go to
// onProgress(done, total, message).
// The worker starts on the first call; if it fails, pending calls reject and the next call
// starts a fresh one. call.terminate(message) stops it mid-call (a WASM call cannot be told to stop:
// the worker is busy until it returns): pending calls reject with `message` (code 'cancelled') and
// the next call starts a fresh worker.
export function workerClient(createWorker) {
  let worker = null;
  let nextId = 1;
  const pending = new Map();
  call.terminate = (message = 'cancelled') => {
    if (!worker) return;
    worker.terminate();
    worker = null;
    for (const p of pending.values()) p.reject(Object.assign(new Error(message), { code: 'cancelled', pointer: '' }));
    pending.clear();
  };
  return call;
  function call(msg, onProgress) {
    if (!worker) {
      worker = createWorker();
      worker.onmessage = ({ data }) => {
        const p = pending.get(data.id);
        if (!p) return;
        if (data.type === 'progress') return p.onProgress?.(data.done, data.total, data);
        pending.delete(data.id);
        if (data.type === 'error')
          p.reject(Object.assign(new Error(data.message), { pointer: data.pointer, code: data.code }));
        else p.resolve(data);
      };
      worker.onerror = (e) => {
        e.preventDefault?.();
        for (const p of pending.values())
          p.reject(new Error(`The background worker failed: ${e.message ?? 'could not start'}`));
        pending.clear();
        worker.terminate();
        worker = null;
      };
    }
    const id = nextId++;
    const promise = new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject, onProgress });
      worker.postMessage({ ...msg, id });
    });
    promise.id = id;
    return promise;
  }
}
