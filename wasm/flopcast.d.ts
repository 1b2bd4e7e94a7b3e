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
}

type OneOrMany<T> = T | T[];
/** Like EstimateRequest, but model, gpu, precision and the sizes may be lists (Cartesian product). */
export interface CompareRequest extends Omit<EstimateRequest, 'model' | 'gpu' | 'precision' | 'batch_size' | 'sequence_length' | 'num_generated_tokens'> {
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
    parameters: { total: number; active: number; embedding: number; attention: number; mlp: number; norm: number; output_head: number };
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
    performance: Performance | null;
    settings: Required<Omit<EstimateRequest, 'model' | 'gpu' | 'kv_cache_precision' | 'cost_per_hour'>> & {
      kv_cache_precision: string;
      cost_per_hour: number | null;
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
export type FieldKind = 'text' | 'count' | 'flops' | 'bytes' | 'seconds' | 'rate' | 'joules' | 'boolean' | 'number';
export interface RowField {
  key: keyof CompareRow;
  header: string;
  kind: FieldKind;
}
export interface Defaults {
  version: string;
  settings: Required<Omit<EstimateRequest, 'model' | 'gpu' | 'kv_cache_precision' | 'cost_per_hour'>> & {
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
  /** NaN marks a figure that does not apply (no GPU, no decode for encoders). */
  values: Float64Array;
}

export interface Flopcast {
  version(): string;
  estimate(request: EstimateRequest | string): EstimateResult;
  compare(request: CompareRequest | string): CompareRow[];
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
