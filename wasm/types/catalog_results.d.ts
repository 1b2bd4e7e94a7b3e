// Types of flopcast's JavaScript API, hand-written part: the lists (listModels, listGpus,
// listEngines), defaults() and the hosted providers' documents (providers, priceComparison).
// tools/gen_dts.mjs includes this file verbatim in build-wasm/wasm/flopcast.d.ts, after the types it
// generates from the core's tables (PrecisionName, ComputeUnit, WeightComponent, Optimizer,
// RecomputePolicy, EngineId, ModelType, CompareRow, RowFieldKey, the request types, ...), which
// it uses by name. Edit it here and rebuild (npm run build:wasm); never edit the built file.
// These shapes come from the core's C++ JSON writers (code, not a table): tests/wasm/types.test.mjs
// compiles real results of every call against them with tsc --strict and fails on any drift
// (a key missing, extra, typed wrong, or typed loosely).

export interface ModelInfo {
  id: string;
  aliases: string[];
  family: string;
  model_type: ModelType;
  architecture: Architecture;
  parameters: number;
  active_parameters: number;
  published_parameters: number | null;
  published_significant_digits: number;
  /** What the published figure counts: the whole checkpoint, the language model alone, or all but the input embedding. */
  published_scope: 'all' | 'text' | 'non_embedding';
  source: string;
  /** The flopcast release that first bundled the model ("0.3.0"); null: bundled before 0.3.0. */
  added: string | null;
}

/** A serving-engine profile (listEngines()): data/engines/, with its fit to the validation table. */
export interface EngineInfo {
  id: EngineId;
  name: string;
  aliases: string[];
  version: string;
  batching: 'continuous' | 'static';
  /** Whether simulate() runs it (continuous batching). */
  simulated: boolean;
  fitted: boolean;
  /** Measurement rows of the fit (the pooled family "all"); 0 when unfitted. */
  fit_rows: number;
  /** What the engine's figures rest on: "fitted to N measurements (...)" or "unfitted (plain roofline plus the engine's scheduler defaults)". */
  basis: string;
  /** Where the engine runs (from its docs): vendors ("*": any) and device kinds. */
  runs_on: { vendor: string; kinds: Array<'gpu' | 'tpu' | 'npu' | 'cpu' | 'soc'> }[];
  runs_on_text: string;
  /** The engine's docs page that lists where it runs. */
  runs_on_source: string;
  fitted_to: string[];
  held_out: string[];
  costs: { per_step_s: number; per_layer_s: number; gemm_half_tokens: number; kv_read_efficiency: number };
  /** Fitted efficiencies per device family ("nvidia-hbm", "apple-lpddr", "all"). */
  families: Record<string, { compute_efficiency: number; mem_efficiency: number; rows: number }>;
  /** measured/predicted time ratios of the engine's rows, p10 and p90, per figure (rows 0: none). */
  bands: Record<
    'prefill' | 'decode' | 'throughput' | 'ttft_load',
    { low: number; median: number; high: number; rows: number }
  >;
}

/** An accelerator of the database (listGpus()). */
export interface GpuInfo {
  name: string;
  aliases: string[];
  vendor: string;
  memory_bytes: number;
  memory_bandwidth_bytes_per_s: number;
  /** Dense peak FLOP/s of each precision the GPU has. */
  peak_flops: Partial<Record<ComputeUnit, number>>;
  kind: 'gpu' | 'tpu' | 'npu' | 'cpu' | 'soc';
  /** Share of memory_bytes a process may use (unified memory); 1 for discrete cards. */
  usable_memory_fraction: number;
  tdp_watts: number;
  interconnect: { name: string; bandwidth_bytes_per_s: number; generation?: string; domain_size?: number };
  cost_per_hour_usd: number;
  /** The flopcast release that first bundled the device ("0.3.0"); null: bundled before 0.3.0. */
  added: string | null;
  /** NVIDIA CUDA compute capability (8.9); absent when the record does not state it. */
  compute_capability?: number;
  /** AMD LLVM target ("gfx1100"); absent when the record does not state it. */
  gfx?: string;
}

/** One field of the flat result row (core/src/io/fields.cpp): CompareRow's keys, in order. */
export interface RowField {
  key: RowFieldKey;
  header: string;
  kind: FieldKind;
}
/** One request field of the core's request table (core/src/io/request_fields.cpp). */
export interface RequestField {
  /** The JSON key within its part. */
  key: RequestFieldKey;
  /** Full JSON pointer, e.g. "/parallelism/tensor_parallel". */
  pointer: RequestPointer;
  /** "" (top level), or the nested part's key ("parallelism", "serving", ...). */
  part: RequestPart;
  flag: string;
  short_flag: string;
  /** The page's query name and the widget's attribute; "" for none. */
  attribute: string;
  type: RequestFieldType;
  unit: string;
  /** Bounds of numeric fields (null: unbounded). */
  min: number | null;
  max: number | null;
  min_open: boolean;
  listable: boolean;
  /** The default as the settings structs initialise it (null: derived or none). */
  default: number | string | boolean | null;
  /** How a derived default is found, e.g. "the GPU's"; null when the default is plain. */
  derived: string | null;
  /** What a valid value is, as error messages say it. */
  expected: string;
  commands: RequestCommand[];
  help: string;
  /** A choice field's accepted names (e.g. ["mixed", "prefill_first"]); [] otherwise. */
  choices: string[];
}
/** One number format of the core's precision table (core/src/formats/precision.cpp). */
export interface PrecisionInfo {
  name: PrecisionName;
  /** Bits per stored weight, scales included (a preset's: its base type's, a floor). */
  bits: number;
  weight_only: boolean;
  family: PrecisionFamily;
  kv_cache: boolean;
  /** Device units tried in order. */
  compute_path: ComputeUnit[];
  layout: string;
  source: string;
}
export interface Defaults {
  version: string;
  /** Every request field: forms and attribute lists are built from it. */
  request_fields: RequestField[];
  /** The estimate's top-level settings at their defaults (null: derived from others, or none). */
  settings: DefaultSettings;
  precisions: PrecisionInfo[];
  optimizers: Optimizer[];
  row_fields: RowField[];
  sweep_fields: SweepField[];
  model_types: ModelType[];
  max_compare_rows: number;
  /** The parts a precision object may name besides "default", in the core's order. */
  weight_components: WeightComponent[];
}
/** A hosted provider's entry (data/providers/): its model id and the figures it publishes, dated; null: not found. */
export interface ProviderEntry {
  /** The provider's key (its file name): 'groq', 'together', ... */
  provider: string;
  name: string;
  /** The model id as the provider's API takes it. */
  id: string;
  /** The registry model it serves. */
  model: string;
  precision: string | null;
  context_length: number | null;
  output_tokens_per_second: number | null;
  input_usd_per_million: number | null;
  output_usd_per_million: number | null;
  /** When the figures were seen (YYYY-MM-DD); prices change. */
  date: string;
  /** The price's source URL (else the speed's); null when neither was found. */
  source: string | null;
  speed_source: string | null;
  note: string;
  label: 'PUBLISHED';
}

export interface ProvidersResult {
  providers: ProviderEntry[];
}

export interface PriceComparisonProvider extends ProviderEntry {
  /** prompt_tokens x input price + output_tokens x output price; null when unpriced. */
  usd_per_request: number | null;
  /** Self-hosted cost per request over the API's; null when unpriced. */
  self_hosted_to_api_cost: number | null;
}

/** API price vs self-hosted cost per 1M tokens (priceComparison()). */
export interface PriceComparisonResult {
  model: string;
  gpu: string;
  gpus: number;
  tensor_parallel: number;
  precision: string;
  utilization: number;
  prompt_tokens: number;
  output_tokens: number;
  concurrency: number;
  fits: boolean;
  /** One GPU's. */
  gpu_cost_per_hour_usd: number;
  /** Serving throughput while busy (ESTIMATED). */
  output_tokens_per_second: number;
  requests_per_second: number;
  self_hosted: {
    usd_per_million_output_tokens: number | null;
    usd_per_million_input_tokens: number | null;
    usd_per_request: number | null;
    label: 'ESTIMATED';
  };
  providers: PriceComparisonProvider[];
  /** What the figures mean, in words. */
  meaning: string;
}
