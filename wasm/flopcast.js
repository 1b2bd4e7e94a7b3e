// flopcast in JavaScript: a thin wrapper over the WebAssembly module. Every number comes
// from the C++ core; this file only moves JSON across and turns failures into Errors.

/** An error from flopcast: the core's message, its stable code and the field's JSON pointer. */
export class FlopcastError extends Error {
  constructor(message) {
    super(message);
    this.name = 'FlopcastError';
    const m = /^\[flopcast\.([\w.]+)\](?: \(([^)]*)\))? /.exec(message);
    this.code = m ? m[1] : 'internal';
    this.pointer = m && m[2] !== undefined ? m[2] : '';
  }
}

// JSON.stringify would turn NaN and Infinity into null, which the core reads as "not set":
// refuse them here with the core's message shape, naming the field. Nesting is bounded as the
// core bounds it (128 levels), so a hostile object cannot overflow the JS stack either.
const MAX_DEPTH = 128;
function checkValue(value, pointer, depth) {
  if (typeof value === 'number' && !Number.isFinite(value))
    throw new FlopcastError(`[flopcast.invalid_argument] (${pointer}) expected a finite number, but got ${value}`);
  if (value === null || typeof value !== 'object') return;
  if (depth >= MAX_DEPTH)
    throw new FlopcastError(`[flopcast.limit] the request is nested deeper than ${MAX_DEPTH} levels`);
  if (Array.isArray(value)) value.forEach((v, i) => checkValue(v, `${pointer}/${i}`, depth + 1));
  else for (const [k, v] of Object.entries(value)) checkValue(v, `${pointer}/${k}`, depth + 1);
}

function requestText(request) {
  if (typeof request === 'string') return request;
  if (request === null || typeof request !== 'object' || Array.isArray(request))
    throw new FlopcastError('[flopcast.invalid_argument] expected a request object such as {model: "llama-3-8b"}');
  checkValue(request, '', 0);
  return JSON.stringify(request);
}

// Header bytes as a Uint8Array (embind copies a Uint8Array into the core's std::string as is).
function bytesOf(value, what) {
  if (value instanceof Uint8Array) return value;
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  if (ArrayBuffer.isView(value)) return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  throw new FlopcastError(`[flopcast.invalid_argument] expected ${what} as a Uint8Array or an ArrayBuffer`);
}
function configText(config) {
  if (config === undefined || config === null || config === '') return '';
  if (typeof config === 'string') return config;
  checkValue(config, '/config', 0);
  return JSON.stringify(config);
}
const FIRST_READ = 1 << 20; // most headers fit in 1 MiB; GGUF tokenizer arrays may need more

// An own, enumerable property computed by `read()` on first read (then a plain data property):
// JSON.stringify, spreading and structured cloning see the value.
const DETAILS_KEY = ',"details":'.length;
function lazyField(object, key, read) {
  const settle = (value) => {
    Object.defineProperty(object, key, { value, writable: true, enumerable: true, configurable: true });
    return value;
  };
  Object.defineProperty(object, key, {
    enumerable: true,
    configurable: true,
    get: () => settle(read()),
    set: settle,
  });
  return object;
}

function unwrap(status) {
  if (!status.ok) throw new FlopcastError(status.text);
  return status;
}

/**
 * Loads the module. In Node pass {wasmBinary} (the bytes of flopcast_core.wasm); in a
 * browser or worker the .wasm beside this file is fetched, or pass {locateFile}.
 */
export async function createFlopcast(options = {}) {
  // The Emscripten glue is imported here, not at the top: a page that only needs FlopcastError
  // (or paints before it needs the module, web/src/first-visit.js) does not load or run it yet.
  const { default: createFlopcastModule } = await import('./flopcast_core.js');
  const mod = await createFlopcastModule(options);
  // A call's result JSON stays in the module; it is decoded off a view of its memory (a copy
  // through embind's std::string conversion is a JS loop over every byte).
  const decoder = new TextDecoder();
  const result = (status) => (unwrap(status), JSON.parse(decoder.decode(mod.resultView())));
  let models, gpus, engines, defaults;
  const api = {
    version: () => mod.version(),
    /**
     * The estimate of one configuration. Its `details` are parsed when first read (most of the
     * result's bytes; a caller that reads only the headline figures does not pay for them).
     */
    estimate(request) {
      const at = unwrap(mod.estimate(requestText(request))).count;
      const bytes = mod.resultView();
      if (!(at > 0)) return JSON.parse(decoder.decode(bytes));
      const head = JSON.parse(`${decoder.decode(bytes.subarray(0, at))}}`);
      // a copy of the details' bytes (the module's buffer is reused), decoded when first read
      const rest = bytes.slice(at + DETAILS_KEY, bytes.length - 1);
      return lazyField(head, 'details', () => JSON.parse(decoder.decode(rest)));
    },
    compare: (request) => result(mod.compare(requestText(request))),
    throughput: (request) => result(mod.throughput(requestText(request))),
    /**
     * The serving simulation (iteration-level continuous batching): per concurrency or request-rate
     * point, TTFT / TPOT / ITL distributions, tokens/s, goodput, KV use and a timeline.
     */
    simulate: (request) => result(mod.simulate(requestText(request))),
    /**
     * How many GPUs: the smallest layouts that fit, memory per GPU, speed and cost, cheapest and
     * fastest marked; with SLOs in `request.plan`, the SLO search too (`search`). `onProgress(share)`
     * (share done, 0..1) is called as the search goes; returning false cancels it (an Error with
     * code "limit" at /plan). An exception it throws cancels the search and is rethrown.
     */
    plan(request, { onProgress } = {}) {
      const text = requestText(request);
      if (typeof onProgress !== 'function') return result(mod.plan(text));
      let thrown = null;
      const status = mod.planProgress(text, (share) => {
        try {
          return onProgress(share) !== false;
        } catch (e) {
          thrown = e;
          return false; // never throw through the core's frames: cancel, rethrow below
        }
      });
      if (thrown) throw thrown;
      return result(status);
    },
    /** The training-step analysis (backward decomposition, optimizer, bottlenecks, 6ND). */
    train: (request) => result(mod.train(requestText(request))),
    /**
     * Profiles a graph in the neutral form of core/include/flopcast/profile/profile.hpp (object or JSON
     * text): FLOPs, MACs, parameters, bytes and roofline time per node, op type and scope.
     * options: {dims: {batch: 8}, gpu, precision, depth}.
     */
    profile: (graph, options = {}) =>
      result(mod.profile(typeof graph === 'string' ? graph : JSON.stringify(graph), JSON.stringify(options))),
    /** What a report draws: the estimate, its row, the series of its charts, the roofline, the serving curve. */
    reportData: (request) => result(mod.reportData(requestText(request))),
    /** The calibration entry a measurement implies, as a store {entries: [entry]}. */
    calibrate: (request) => result(mod.calibrate(requestText(request))),
    listModels: () => (models ??= result(mod.listModels())),
    listGpus: () => (gpus ??= result(mod.listGpus())),
    listEngines: () => (engines ??= result(mod.listEngines())),
    /** The engines that run on `gpu` (a registry name, or a GPU object): each profile's runs_on, from its docs. */
    listEnginesFor: (gpu) => result(mod.listEnginesFor(typeof gpu === 'string' ? gpu : JSON.stringify(gpu))),
    /** Hosted providers' entries (data/providers/) serving `model` (a registry name or provider id; omitted: all). */
    providers: (model = '') => result(mod.providers(String(model))),
    /** API price vs self-hosted cost per 1M tokens of request.model on request.gpu at request.utilization. */
    priceComparison: (request) => result(mod.priceComparison(requestText(request))),
    defaults: () => (defaults ??= result(mod.defaults())),
    precisions: () => api.defaults().precisions.map((p) => p.name),
    optimizers: () => api.defaults().optimizers,
    rowFields: () => api.defaults().row_fields,
    sweepSize: (request) => unwrap(mod.sweepSize(requestText(request))).count,
    /**
     * Estimates every combination of a request whose model, gpu, precision and sizes may
     * be lists, numerically: `values` holds `fields.length` numbers per point (NaN where a
     * figure does not apply), points in compare order. Runs in chunks, reporting progress.
     */
    sweep(request, { chunk = 20000, onProgress, offset = 0, count } = {}) {
      const text = requestText(request);
      const total = unwrap(mod.sweepSize(text)).count;
      const end = Math.min(total, count === undefined ? total : offset + count);
      const fields = api.defaults().sweep_fields;
      const values = new Float64Array(Math.max(0, end - offset) * fields.length);
      let done = 0;
      for (let at = offset; at < end; at += chunk) {
        const n = unwrap(mod.sweepChunk(text, at, Math.min(chunk, end - at))).count;
        values.set(mod.sweepValues(), done * fields.length);
        done += n;
        if (onProgress) onProgress(done, end - offset);
      }
      return { fields, total, offset, count: done, values };
    },
    /** How many bytes of a checkpoint's prefix its header needs (read more and ask again until <= what you have). */
    checkpointHeaderBytes: (prefix) => unwrap(mod.checkpointHeaderBytes(bytesOf(prefix, 'the header bytes'))).count,
    /** A .gguf / .safetensors header's summary, the config it implies (or `config`), and its exact weight bytes. */
    inspectCheckpoint: (bytes, fileSize = -1, config) =>
      result(mod.inspectCheckpoint(bytesOf(bytes, 'the header bytes'), fileSize, configText(config))),
    /**
     * Reads only the header of a File or Blob (File.slice, growing until checkpointHeaderBytes is
     * satisfied) and inspects it; the tensor data is never read.
     */
    async inspectCheckpointFile(blob, config) {
      const size = blob.size;
      let head = new Uint8Array(await blob.slice(0, Math.min(size, FIRST_READ)).arrayBuffer());
      for (;;) {
        const need = api.checkpointHeaderBytes(head);
        if (need <= head.length || head.length >= size) break;
        const want = Math.min(size, Math.max(need, 2 * head.length));
        head = new Uint8Array(await blob.slice(0, want).arrayBuffer());
      }
      return api.inspectCheckpoint(head, size, config);
    },
    /** Bytes the module's allocator holds now (for leak checks). */
    heapUsed: () => mod.heapUsed(),
  };
  return api;
}

export default createFlopcast;
