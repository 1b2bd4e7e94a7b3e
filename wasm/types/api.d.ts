// Types of flopcast's JavaScript API, hand-written part: the wrapper's methods (wasm/flopcast.js),
// its load options and its error class.
// tools/gen_dts.mjs includes this file verbatim in build-wasm/wasm/flopcast.d.ts, after the types it
// generates from the core's tables (PrecisionName, ComputeUnit, WeightComponent, Optimizer,
// RecomputePolicy, EngineId, ModelType, CompareRow, RowFieldKey, the request types, ...), which
// it uses by name. Edit it here and rebuild (npm run build:wasm); never edit the built file.

export interface Flopcast {
  version(): string;
  estimate(request: EstimateRequest | string): EstimateResult;
  compare(request: CompareRequest | string): CompareRow[];
  throughput(request: ThroughputRequest | string): ThroughputResult;
  /** The serving simulation: one point per concurrency or request-rate value (the latency-throughput curve). */
  simulate(request: SimulationRequest | string): SimulationResult;
  /**
   * How many GPUs: the smallest layouts that fit, with memory per GPU, speed and cost, cheapest and fastest marked;
   * with SLOs in `request.plan`, the SLO search (`search`). `onProgress(share)` (0..1) follows the search;
   * returning false cancels it (a FlopcastError with code "limit" at "/plan").
   */
  plan(request: PlanRequest | string, options?: PlanOptions): PlanResult;
  /** The calibration entry a measurement implies, as a store {version, entries: [entry]}. */
  calibrate(request: CalibrationRequest | string): CalibrationStore;
  /** The training-step analysis (`training: true` is implied); `training_analysis` holds its options. */
  train(request: TrainRequest | string): TrainResult;
  /** The graph profiler: costs per node, op type and module scope (see ProfileGraph). */
  profile(graph: ProfileGraph | string, options?: ProfileOptions): ProfileResult;
  /** What a report draws: the estimate, its row, the batch / sequence / precision series, the roofline, the serving curve. */
  reportData(request: ReportRequest | string): ReportData;
  sweep(request: CompareRequest | string, options?: SweepOptions): SweepResult;
  sweepSize(request: CompareRequest | string): number;
  listModels(): ModelInfo[];
  listGpus(): GpuInfo[];
  listEngines(): EngineInfo[];
  /** The engines that run on a device (a registry name or alias, or a GPU object). */
  listEnginesFor(gpu: string | object): EngineInfo[];
  /** Hosted providers' entries serving `model` (a registry name or provider id); omitted: all. */
  providers(model?: string): ProvidersResult;
  /** API price vs self-hosted cost per 1M tokens. */
  priceComparison(request: PriceComparisonRequest | string): PriceComparisonResult;
  defaults(): Defaults;
  precisions(): PrecisionName[];
  optimizers(): Optimizer[];
  rowFields(): RowField[];
  heapUsed(): number;
  /** How many bytes of the file's prefix the header needs; read that many and ask again until it is at most what you have. */
  checkpointHeaderBytes(prefix: Uint8Array | ArrayBuffer | ArrayBufferView): number;
  /** A .gguf / .safetensors header (the file's first bytes); `config`: the config.json of a safetensors file. */
  inspectCheckpoint(
    bytes: Uint8Array | ArrayBuffer | ArrayBufferView,
    fileSize?: number,
    config?: HfConfig | string,
  ): CheckpointSummary;
  /** Reads only the header of a File or Blob (File.slice) and inspects it. */
  inspectCheckpointFile(file: Blob, config?: HfConfig | string): Promise<CheckpointSummary>;
}

export interface PlanOptions {
  /** The SLO search's progress, the share done (0..1); return false to cancel. Never called without a search. */
  onProgress?: (share: number) => boolean | void;
}

export interface LoadOptions {
  /** The bytes of flopcast_core.wasm (Node, or a bundler that inlines it). */
  wasmBinary?: ArrayBuffer | Uint8Array;
  /** Where to fetch flopcast_core.wasm from. */
  locateFile?: (path: string, prefix: string) => string;
}

export class FlopcastError extends Error {
  /** Stable code, e.g. "config.missing", "unknown_model", "invalid_argument". */
  code: string;
  /** JSON pointer of the offending field ("/batch_size", "/model/hidden_size"); may be empty. */
  pointer: string;
  constructor(message: string);
}

export function createFlopcast(options?: LoadOptions): Promise<Flopcast>;

export default createFlopcast;
