// Types of flopcast's JavaScript API (hand-written: Emscripten 3.1.6 cannot emit them).
// Units are SI base units: FLOPs are counts, memory bytes, time seconds, energy joules.

export type Precision = 'fp32' | 'tf32' | 'fp16' | 'bf16' | 'fp8' | 'int8' | 'int4' | (string & {});
export type Optimizer = 'adam' | 'adamw' | 'sgd' | 'none';

/** A Hugging Face config.json object, as published. */
export type HfConfig = { model_type: string } & Record<string, unknown>;

/** An accelerator in data/gpus.json's record format. */
export interface GpuSpec {
  name: string;
  memory_bytes: number;
  memory_bandwidth_bytes_per_s: number;
  tdp_watts: number;
  /** Dense peak FLOP/s by precision, e.g. {bf16: 989e12}. */
  peak_flops: Partial<Record<Precision, number>>;
  cost_per_hour_usd?: number;
  aliases?: string[];
  vendor?: string;
  interconnect?: { name?: string; bandwidth_bytes_per_s?: number };
}

/** A multi-GPU layout (every field defaults to 1 / off). */
export interface Parallelism {
  tensor_parallel?: number;
  pipeline_parallel?: number;
  data_parallel?: number;
  expert_parallel?: number;
  sequence_parallel?: boolean;
  num_microbatches?: number;
  /** Per direction; default: half the GPU's listed (bidirectional) interconnect. */
  interconnect_bandwidth_bytes_per_s?: number;
  link_latency_s?: number;
}

/** A stored calibration: applied where efficiencies are not given explicitly. */
export interface CalibrationEntry {
  model: string;
  gpu: string;
  precision: string;
  compute_efficiency: number | null;
  mem_efficiency: number | null;
  source: string;
}

/** Fields named like llm-flops' estimate() parameters. Unset fields take the core's defaults. */
export interface EstimateRequest {
  model: string | HfConfig;
  batch_size?: number;
  sequence_length?: number;
  num_generated_tokens?: number;
  precision?: Precision;
  kv_cache_precision?: Precision;
  /** A name or alias, a spec, or null / "none" for no GPU (no latency or energy). */
  gpu?: string | GpuSpec | null;
  training?: boolean;
  optimizer?: Optimizer;
  gradient_checkpointing?: boolean;
  causal?: boolean;
  flash_attention?: boolean;
  compute_efficiency?: number;
  mem_efficiency?: number;
  power_utilization?: number;
  /** g CO2 per kWh. */
  carbon_intensity?: number;
  /** USD per GPU-hour (default: the GPU's). */
  cost_per_hour?: number;
  parallelism?: Parallelism;
  /** Calibration entries to apply (e.g. from local storage). */
  calibration?: CalibrationEntry[] | { entries: CalibrationEntry[] };
}

export interface ServingSettings {
  prompt_tokens?: number;
  output_tokens?: number;
  concurrency?: number;
  gpu_memory_utilization?: number;
  paged?: boolean;
  block_size?: number;
  chunked_prefill_tokens?: number;
  draft?: string | HfConfig;
  speculative_tokens?: number;
  acceptance_rate?: number;
}
export interface ThroughputRequest extends EstimateRequest {
  serving?: ServingSettings;
}
export interface ThroughputResult {
  model: string;
  gpu: string;
  precision: string;
  gpus: number;
  prompt_tokens: number;
  output_tokens: number;
  fits: boolean;
  kv_budget_bytes: number;
  kv_bytes_per_sequence: number;
  max_concurrent_batch: number;
  concurrency: number;
  prefill_s: number | null;
  decode_step_s: number | null;
  decode_bound: 'compute' | 'memory' | null;
  cycle_s: number | null;
  tokens_per_second: number | null;
  total_tokens_per_second: number | null;
  requests_per_second: number | null;
  ttft_s: number | null;
  tpot_s: number | null;
  cost_per_1m_tokens_usd: number | null;
  ranges: {
    tokens_per_second: [number, number];
    ttft_s: [number, number];
    tpot_s: [number, number];
    source: string;
  } | null;
  speculative: {
    draft_model: string;
    speculative_tokens: number;
    acceptance_rate: number;
    expected_tokens_per_step: number;
    draft_step_s: number;
    verify_step_s: number;
    tpot_s: number;
    tokens_per_second: number;
    speedup: number;
  } | null;
  settings: Record<string, unknown>;
}
export interface CalibrationRequest extends EstimateRequest {
  measured: { decode_tokens_per_second?: number; time_to_first_token_s?: number };
  all_models?: boolean;
}

type OneOrMany<T> = T | T[];
/** Like EstimateRequest, but model, gpu, precision and the sizes may be lists (Cartesian product). */
export interface CompareRequest extends Omit<
  EstimateRequest,
  'model' | 'gpu' | 'precision' | 'batch_size' | 'sequence_length' | 'num_generated_tokens'
> {
  model: OneOrMany<string | HfConfig>;
  gpu?: OneOrMany<string | GpuSpec | null>;
  precision?: OneOrMany<Precision>;
  batch_size?: OneOrMany<number>;
  sequence_length?: OneOrMany<number>;
  num_generated_tokens?: OneOrMany<number>;
}

export interface FlopsParts {
  embedding: number;
  attention: number;
  mlp: number;
  layernorm: number;
  output_head: number;
  total: number;
}
export interface AttentionDetail {
  qkv_projection: number;
  rotary: number;
  attention_scores: number;
  softmax: number;
  attention_values: number;
  output_projection: number;
  cross_kv_projection: number;
}
export interface LayerRow {
  layer: number;
  stack: 'decoder' | 'encoder';
  parameters: number;
  attention: number;
  mlp: number;
  layernorm: number;
  total: number;
}
export interface Performance {
  compute_precision: string;
  peak_flops_per_s: number;
  memory_bandwidth_bytes_per_s: number;
  prefill_flops: number;
  prefill_bytes: number;
  prefill_compute_s: number;
  prefill_memory_s: number;
  prefill_latency_s: number;
  prefill_bound: 'compute' | 'memory';
  decode_steps: number | null;
  decode_first_step_s: number | null;
  decode_first_step_flops: number | null;
  decode_first_step_bytes: number | null;
  decode_bound: 'compute' | 'memory' | null;
  decode_total_s: number | null;
  decode_latency_per_token_s: number | null;
  decode_tokens_per_second: number | null;
  decode_ceiling_tokens_per_second: number | null;
  total_request_latency_s: number;
  training_step_s: number | null;
  energy_prefill_joules: number;
  energy_total_joules: number;
  energy_total_wh: number;
  energy_total_kwh: number;
  co2_grams: number;
  cost_per_hour_usd: number;
  cost_usd: number;
  latency_is_estimate: true;
}
export interface TrainingMemory {
  weights: number;
  gradients: number;
  optimizer_state: number;
  activations: number;
  activations_is_estimate: true;
  gradient_checkpointing: boolean;
  total: number;
}
export interface EstimateResult {
  parameters: number;
  active_parameters: number;
  forward_flops: number;
  backward_flops: number;
  attention_flops: number;
  mlp_flops: number;
  embedding_flops: number;
  layernorm_flops: number;
  output_head_flops: number;
  memory: number;
  kv_cache: number;
  /** Time to first token (prefill), or one training step in training mode; null without a GPU. */
  latency: number | null;
  energy: number | null;
  model: string;
  precision: string;
  gpu: string | null;
  batch_size: number;
  sequence_length: number;
  note: string[];
  details: {
    config: Record<string, unknown>;
    parameters: {
      total: number;
      active: number;
      embedding: number;
      attention: number;
      mlp: number;
      norm: number;
      output_head: number;
    };
    flops: {
      forward: FlopsParts;
      forward_attention_detail: AttentionDetail;
      backward_total: number;
      prefill: FlopsParts;
      prefill_attention_detail: AttentionDetail;
      decode_step: (FlopsParts & { context_tokens: number }) | null;
      layers: LayerRow[];
    };
    memory: {
      weights: number;
      kv_cache: number;
      kv_cache_prompt: number;
      kv_cache_per_token: number;
      kv_cache_precision: string;
      activations: number;
      activations_is_estimate: true;
      total: number;
      inference_total: number;
      gpu_memory: number | null;
      fits_on_gpu: boolean | null;
      training: TrainingMemory | null;
    };
    performance:
      | (Performance & {
          ranges: {
            prefill_latency_s: [number, number];
            decode_latency_per_token_s: [number, number] | null;
            decode_tokens_per_second: [number, number] | null;
            total_request_latency_s: [number, number];
            training_step_s: [number, number] | null;
            energy_total_joules: [number, number];
            cost_usd: [number, number];
            compute_efficiency: [number, number];
            mem_efficiency: [number, number];
            source: string;
          };
        })
      | null;
    parallelism: Record<string, number | boolean | null> | null;
    settings: Required<
      Omit<EstimateRequest, 'model' | 'gpu' | 'kv_cache_precision' | 'cost_per_hour' | 'parallelism' | 'calibration'>
    > & {
      kv_cache_precision: string;
      cost_per_hour: number | null;
      compute_efficiency_origin: 'default' | 'explicit' | 'calibrated';
      mem_efficiency_origin: 'default' | 'explicit' | 'calibrated';
      calibration_source: string | null;
    };
  };
}

/** One row of compare(): the CLI's `compare --json` row. */
export interface CompareRow {
  model: string;
  precision: string;
  gpu: string | null;
  batch_size: number;
  sequence_length: number;
  num_generated_tokens: number;
  parameters: number;
  active_parameters: number;
  forward_flops: number;
  memory: number;
  weights: number;
  kv_cache: number;
  activations: number;
  fits_on_gpu: boolean | null;
  prefill_latency_s: number | null;
  prefill_bound: 'compute' | 'memory' | null;
  decode_latency_per_token_s: number | null;
  decode_tokens_per_second: number | null;
  total_request_latency_s: number | null;
  energy_total_joules: number | null;
  cost_usd: number | null;
}

export interface ModelInfo {
  id: string;
  aliases: string[];
  family: string;
  model_type: string;
  architecture: 'decoder' | 'encoder' | 'encoder-decoder';
  parameters: number;
  active_parameters: number;
  published_parameters: number | null;
  published_significant_digits: number;
  source: string;
}
export interface GpuInfo extends Required<Omit<GpuSpec, 'interconnect'>> {
  interconnect: { name: string; bandwidth_bytes_per_s: number };
}
/** bound: compute/memory (1/0 in sweep values). */
export type FieldKind =
  'text' | 'count' | 'flops' | 'bytes' | 'seconds' | 'rate' | 'joules' | 'boolean' | 'number' | 'bound';
export interface RowField {
  key: keyof CompareRow;
  header: string;
  kind: FieldKind;
}
export interface Defaults {
  version: string;
  settings: Required<
    Omit<EstimateRequest, 'model' | 'gpu' | 'kv_cache_precision' | 'cost_per_hour' | 'parallelism' | 'calibration'>
  > & {
    gpu: string;
    kv_cache_precision: null;
    cost_per_hour: null;
  };
  precisions: { name: string; bits: number; weight_only: boolean }[];
  optimizers: Optimizer[];
  row_fields: RowField[];
  sweep_fields: (keyof CompareRow)[];
  model_types: string[];
  max_compare_rows: number;
}
export interface SweepOptions {
  /** Points per call into the module (default 20000). */
  chunk?: number;
  onProgress?: (done: number, total: number) => void;
  /** Evaluate only points [offset, offset + count). */
  offset?: number;
  count?: number;
}
export interface SweepResult {
  /** Numeric row fields, in order; `values` holds fields.length numbers per point. */
  fields: (keyof CompareRow)[];
  total: number;
  offset: number;
  count: number;
  /** NaN marks a figure that does not apply (no GPU, no decode for encoders); prefill_bound is 1 (compute) or 0 (memory). */
  values: Float64Array;
}

export interface Flopcast {
  version(): string;
  estimate(request: EstimateRequest | string): EstimateResult;
  compare(request: CompareRequest | string): CompareRow[];
  throughput(request: ThroughputRequest | string): ThroughputResult;
  calibrate(request: CalibrationRequest | string): { version: number; entries: CalibrationEntry[] };
  /** The training-step analysis; `training_analysis` holds its options. */
  train(request: (EstimateRequest & { training_analysis?: Record<string, unknown> }) | string): Record<string, unknown>;
  sweep(request: CompareRequest | string, options?: SweepOptions): SweepResult;
  sweepSize(request: CompareRequest | string): number;
  listModels(): ModelInfo[];
  listGpus(): GpuInfo[];
  defaults(): Defaults;
  precisions(): string[];
  optimizers(): Optimizer[];
  rowFields(): RowField[];
  heapUsed(): number;
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
