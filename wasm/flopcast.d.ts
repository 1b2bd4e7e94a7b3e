// Types of flopcast's JavaScript API (hand-written: Emscripten 3.1.6 cannot emit them).
// Units are SI base units: FLOPs are counts, memory bytes, time seconds, energy joules.

/** A number format as results name it (core/src/formats/precision.cpp's table). */
export type PrecisionName =
  | 'fp32'
  | 'tf32'
  | 'fp16'
  | 'bf16'
  | 'fp8'
  | 'int8'
  | 'int4'
  | 'fp8_block'
  | 'mxfp8'
  | 'mxfp6'
  | 'mxfp4'
  | 'nvfp4'
  | 'nf4'
  | 'q8_0'
  | 'q6_k'
  | 'q5_k'
  | 'q5_1'
  | 'q5_0'
  | 'q4_k'
  | 'q4_1'
  | 'q4_0'
  | 'iq4_nl'
  | 'iq4_xs'
  | 'q3_k'
  | 'iq3_s'
  | 'iq3_xxs'
  | 'q2_k'
  | 'iq2_s'
  | 'iq2_xs'
  | 'iq2_xxs'
  | 'iq1_m'
  | 'iq1_s'
  | 'tq2_0'
  | 'tq1_0'
  | 'q2_k_s'
  | 'q3_k_s'
  | 'q3_k_m'
  | 'q3_k_l'
  | 'q4_k_s'
  | 'q4_k_m'
  | 'q5_k_s'
  | 'q5_k_m'
  | 'iq2_m'
  | 'iq3_xs'
  | 'iq3_m'
  | 'mxfp4_moe';
/** The device unit a matmul runs on (a peak in data/gpus.json). */
export type ComputeUnit = 'fp32' | 'tf32' | 'fp16' | 'fp16_acc16' | 'bf16' | 'fp8' | 'fp6' | 'fp4' | 'int8' | 'int4';
/** The parts of a model a precision can be given for. */
export type WeightComponent = 'embedding' | 'attention' | 'mlp' | 'experts' | 'lm_head' | 'mixer' | 'vision';
/** A precision as requests may name it (aliases such as "float16" or "half" are accepted). */
export type Precision = PrecisionName | (string & {});
export type Optimizer = 'adam' | 'adamw' | 'sgd' | 'none';
/** Which roofline limit a phase hits. */
export type Bound = 'compute' | 'memory';
/** Where an efficiency came from: the default, the request, or a stored calibration. */
export type EfficiencyOrigin = 'default' | 'explicit' | 'calibrated' | 'fitted';
/** A low-high range of a figure. */
export type Range = [number, number];

/** A Hugging Face config.json object, as published. */
export type HfConfig = { model_type: string } & Record<string, unknown>;

/** An accelerator in data/gpus.json's record format. */
export interface GpuSpec {
  name: string;
  memory_bytes: number;
  memory_bandwidth_bytes_per_s: number;
  tdp_watts: number;
  /** Dense peak FLOP/s by precision, e.g. {bf16: 989e12}; also fp6, fp4 and fp16_acc16. */
  peak_flops: Partial<Record<Precision, number>>;
  cost_per_hour_usd?: number;
  aliases?: string[];
  vendor?: string;
  kind?: 'gpu' | 'tpu' | 'npu' | 'cpu' | 'soc';
  usable_memory_fraction?: number;
  interconnect?: { name?: string; bandwidth_bytes_per_s?: number; generation?: string; domain_size?: number };
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

/** A precision per part of the model; `default` for the rest. */
export type PrecisionParts = { default?: Precision } & Partial<Record<WeightComponent, Precision>>;

/** Fields named like llm-flops' estimate() parameters. Unset fields take the core's defaults. */
export interface EstimateRequest {
  model: string | HfConfig;
  batch_size?: number;
  sequence_length?: number;
  num_generated_tokens?: number;
  /** A format, or one per part: {default: 'bf16', experts: 'mxfp4'}. Unset: the checkpoint's quantization_config, else bf16. */
  precision?: Precision | PrecisionParts;
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
  /** Bytes kept free on each GPU for the runtime, subtracted in the fit check (default 0). */
  /** Share of each GPU's usable memory the engine takes (default 0.9 for inference, 1 for training). */
  gpu_memory_utilization?: number;
  gpu_memory_reserve_bytes?: number;
  /**
   * Exact bytes of the stored weights (a checkpoint's tensors, e.g. inspectCheckpoint().weight_bytes):
   * the weights' memory and traffic instead of parameters x bytes per weight. One model only.
   */
  weight_bytes?: number;
  /** Include details.flops.layers, a row per layer (default false). */
  layer_table?: boolean;
  /** Include details.operators, the per-operator tables of prefill and one decode step (default false). */
  operator_table?: boolean;
  /** A serving engine (vllm, sglang, tensorrt-llm, llama.cpp, mlx, transformers): its fitted costs and ranges. */
  engine?: string;
  parallelism?: Parallelism;
  /** Calibration entries to apply (e.g. from local storage). */
  calibration?: CalibrationEntry[] | { entries: CalibrationEntry[] };
}

export interface ServingSettings {
  prompt_tokens?: number;
  output_tokens?: number;
  concurrency?: number;
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
  /** Per GPU: each sequence's share of a batch's prefill activations. */
  activation_bytes_per_sequence: number;
  /** More concurrency asked than fits: the figures are at max_concurrent_batch. */
  concurrency_capped: boolean;
  concurrency: number;
  prefill_s: number | null;
  decode_step_s: number | null;
  decode_bound: Bound | null;
  cycle_s: number | null;
  tokens_per_second: number | null;
  total_tokens_per_second: number | null;
  requests_per_second: number | null;
  ttft_s: number | null;
  tpot_s: number | null;
  cost_per_1m_tokens_usd: number | null;
  /** null when it does not fit. */
  ranges: {
    tokens_per_second: Range;
    ttft_s: Range;
    tpot_s: Range;
    source: string;
  } | null;
  /** null without a draft model. */
  speculative: SpeculativeResult | null;
  settings: ServingResultSettings;
}
export interface SpeculativeResult {
  draft_model: string | null;
  speculative_tokens: number;
  acceptance_rate: number;
  expected_tokens_per_step: number;
  draft_step_s: number;
  verify_step_s: number;
  tpot_s: number;
  tokens_per_second: number;
  speedup: number;
}
/** The serving settings a throughput result used, defaults included. */
export interface ServingResultSettings {
  gpu_memory_utilization: number;
  paged: boolean;
  block_size: number;
  /** 0: no chunked prefill. */
  chunked_prefill_tokens: number;
  compute_efficiency: number;
  mem_efficiency: number;
  compute_efficiency_origin: EfficiencyOrigin;
  mem_efficiency_origin: EfficiencyOrigin;
  tensor_parallel: number;
  pipeline_parallel: number;
  data_parallel: number;
  expert_parallel: number;
  /** null: the weights' precision (fp8 for nvfp4, fp16 for weight-only and other sub-8-bit formats). */
  kv_cache_precision: PrecisionName | null;
}
/** One request of a trace to replay. */
export interface TraceRequest {
  arrival_s: number;
  input_tokens: number;
  output_tokens: number;
}
/** The "simulation" part of a simulate() request (the request table's "simulation" fields). */
export interface SimulationSettings {
  /** Default: trace with a trace, closed_loop with concurrency, poisson with request_rate, else batch. */
  arrivals?: 'batch' | 'closed_loop' | 'poisson' | 'trace';
  /** Requests per point (default 1000); a trace gives its own. */
  num_requests?: number;
  /** Closed-loop clients; a list is one simulation per value (the latency-throughput curve). */
  concurrency?: number | number[];
  /** Poisson arrivals, requests/s; a list is one simulation per value. */
  request_rate?: number | number[];
  input_tokens?: number;
  output_tokens?: number;
  /** Uniform lengths on [min, max], instead of input_tokens / output_tokens. */
  input_tokens_range?: [number, number];
  output_tokens_range?: [number, number];
  /** In arrival order. */
  trace?: TraceRequest[];
  seed?: number;
  /** Goodput limits, seconds. */
  slo_ttft_s?: number;
  slo_tpot_s?: number;
  warmup_requests?: number;
  /** Scheduler overrides (default: the engine's, else vLLM-like). */
  max_num_seqs?: number;
  max_num_batched_tokens?: number;
  chunked_prefill?: boolean;
  policy?: 'mixed' | 'prefill_first';
  block_size?: number;
  kv_blocks?: number;
}
export interface SimulationRequest extends EstimateRequest {
  simulation?: SimulationSettings;
}
/** A distribution over the measured requests, seconds. */
export interface SimulationDistribution {
  mean: number;
  p50: number;
  p90: number;
  p99: number;
}
export interface SimulationTimePoint {
  t_s: number;
  running: number;
  waiting: number;
  /** Share of the KV blocks in use. */
  kv_utilization: number;
}
/** One simulated point: a concurrency (closed loop) or a request rate (Poisson), or the one batch / trace run. */
export interface SimulationPoint {
  concurrency: number | null;
  request_rate: number | null;
  requests: number;
  /** Requests counted in the statistics (after the warm-up). */
  measured_requests: number;
  ttft_s: SimulationDistribution;
  /** [low, high] of the mean from a fitted engine's residuals; null without one. */
  ttft_s_range: Range | null;
  tpot_s: SimulationDistribution;
  tpot_s_range: Range | null;
  itl_s: SimulationDistribution;
  itl_s_range: Range | null;
  e2e_s: SimulationDistribution;
  output_tokens_per_s: number;
  output_tokens_per_s_range: Range | null;
  total_tokens_per_s: number;
  total_tokens_per_s_range: Range | null;
  requests_per_s: number;
  requests_per_s_range: Range | null;
  /** Requests/s meeting the SLOs (all of them without SLOs). */
  goodput_requests_per_s: number;
  goodput_requests: number;
  /** goodput_requests / measured_requests. */
  goodput_share: number;
  mean_kv_utilization: number;
  peak_kv_utilization: number;
  /** Time-averaged running batch. */
  mean_running: number;
  /** Time-averaged requests waiting or running. */
  mean_in_system: number;
  preemptions: number;
  steps: number;
  makespan_s: number;
  /** First measured arrival to last measured finish. */
  window_s: number;
  /** At most ~200 evenly thinned points. */
  timeline: SimulationTimePoint[];
}
/** simulate(): the serving simulation, SI units. */
export interface SimulationResult {
  label: 'ESTIMATED';
  /** What the figures are: "simulated: iteration-level continuous batching, plain roofline, no engine", ... */
  method: string;
  model: string;
  gpu: string;
  precision: string;
  /** Tensor-parallel GPUs of the replica. */
  gpus: number;
  engine: string | null;
  engine_fitted: boolean;
  engine_fit_rows: number;
  workload: {
    arrivals: 'batch' | 'closed_loop' | 'poisson' | 'trace';
    num_requests: number;
    /** [min, max] (equal: fixed); null for a trace. */
    input_tokens: Range | null;
    output_tokens: Range | null;
    seed: number;
    warmup_requests: number;
    slo_ttft_s: number | null;
    slo_tpot_s: number | null;
  };
  scheduler: {
    max_num_seqs: number;
    max_num_batched_tokens: number;
    chunked_prefill: boolean;
    policy: 'mixed' | 'prefill_first';
    block_size: number;
    kv_blocks: number;
    /** kv_blocks came from the request (else: from the memory left after weights and activations). */
    kv_blocks_given: boolean;
    gpu_memory_utilization: number;
    /** "engine vllm defaults", "simulator defaults (vLLM-like)", plus the request's overrides. */
    source: string;
  };
  settings: {
    compute_efficiency: number;
    mem_efficiency: number;
    compute_efficiency_origin: EfficiencyOrigin;
    mem_efficiency_origin: EfficiencyOrigin;
    tensor_parallel: number;
    kv_cache_precision: PrecisionName | null;
  };
  /** Where the *_range figures come from, or why there are none. */
  ranges_source: string;
  points: SimulationPoint[];
}
/** The "plan" part of a plan() request (the request table's "plan" fields). */
export interface PlanSettings {
  /** The most GPUs a layout may use (default 64, at most 1024). */
  max_gpus?: number;
  /** Concurrent sequences to serve (the serving closed form); unset: batch_size sequences at once. */
  concurrency?: number;
}

/** plan(): an estimate request without training or layout ranks (the plan chooses them), plus "plan". */
export interface PlanRequest extends Omit<
  EstimateRequest,
  | 'training'
  | 'optimizer'
  | 'gradient_checkpointing'
  | 'layer_table'
  | 'power_utilization'
  | 'carbon_intensity'
  | 'parallelism'
> {
  /** Only the link figures: the ranks are the plan's. */
  parallelism?: Pick<Parallelism, 'interconnect_bandwidth_bytes_per_s' | 'link_latency_s'>;
  plan?: PlanSettings;
}

/** One layout of a plan, SI units. Speed and cost are null where it does not fit. */
export interface PlanLayout {
  tp: number;
  pp: number;
  ep: number;
  dp: number;
  gpus: number;
  /** estimate() at this layout: details.parallelism.per_gpu_memory_bytes. */
  per_gpu_memory_bytes: number;
  weights_per_gpu_bytes: number;
  kv_cache_per_gpu_bytes: number;
  activations_per_gpu_bytes: number;
  /** Per GPU, after the fit reserve (gpu_memory_utilization, gpu_memory_reserve_bytes). */
  usable_bytes: number;
  fits: boolean;
  /** More GPUs than one interconnect domain holds. */
  spans_nodes: boolean;
  ttft_s: number | null;
  tpot_s: number | null;
  /** ttft_s + (num_generated_tokens - 1) x tpot_s: what `fastest` minimises. */
  request_latency_s: number | null;
  /** Output tokens/s of the whole batch or concurrency, all replicas. */
  tokens_per_s: number | null;
  /** All GPUs. */
  cost_per_hour_usd: number;
  /** What `cheapest` minimises. */
  usd_per_million_output_tokens: number | null;
  cheapest: boolean;
  fastest: boolean;
}

/** plan(): how many GPUs the model needs at this format, context and load. */
export interface PlanResult {
  model: string;
  gpu: string;
  precision: Precision;
  /** Parts stored in another format than `precision`. */
  component_precision: Partial<Record<WeightComponent, Precision>>;
  kv_cache_precision: Precision;
  batch_size: number;
  sequence_length: number;
  num_generated_tokens: number;
  concurrency: number | null;
  /** Sequences the layouts hold: the concurrency, else the batch. */
  load: number;
  engine: string | null;
  /** The cap searched (1 when the GPU lists no interconnect). */
  max_gpus: number;
  /** Devices per NVLink / ICI / xGMI domain (1 when unknown): TP x EP stay within it. */
  interconnect_domain_size: number;
  fits: boolean;
  /** The fewest GPUs that fit; null when none within max_gpus. */
  min_gpus: number | null;
  /** By GPU count: every fitting layout at min_gpus, faster ones at larger power-of-two counts. */
  layouts: PlanLayout[];
  /** Indices into layouts. */
  cheapest: number | null;
  fastest: number | null;
  /** Nothing fits: the layout tried with the least memory per GPU. */
  closest: PlanLayout | null;
  /** Layouts evaluated. */
  candidates: number;
  notes: string[];
}

export interface CalibrationRequest extends EstimateRequest {
  measured: { decode_tokens_per_second?: number; time_to_first_token_s?: number };
  all_models?: boolean;
}
/** A calibration store (the format of ~/.config/flopcast/calibration.json): calibrate()'s result. */
export interface CalibrationStore {
  version: number;
  entries: CalibrationEntry[];
}

/** Options of the training-step analysis (train()). */
export interface TrainingAnalysisOptions {
  recompute?: RecomputePolicy;
  gradient_clipping?: boolean;
  fused_optimizer?: boolean;
  /** The token budget (default: 20 tokens per parameter, Chinchilla). */
  tokens?: number;
  /** Model FLOPs utilization for the token budget's time. */
  mfu?: number;
  gpus?: number;
  /** 0: full fine-tuning. */
  lora_rank?: number;
  /** "all" (default), "attention", "mlp", or a list such as "q,v" or "q_proj,v_proj". */
  lora_targets?: string;
  /** The frozen base's precision; int8/int4 make it QLoRA. */
  base_precision?: Precision;
}
export interface TrainRequest extends EstimateRequest {
  training_analysis?: TrainingAnalysisOptions;
}
export type RecomputePolicy = 'none' | 'selective' | 'full';
/** The phases of one training step, in execution order; they partition the step's FLOPs. */
export type TrainingPhase =
  | 'forward'
  | 'backward_input_gradients'
  | 'backward_attention_core'
  | 'backward_weight_gradients'
  | 'recompute'
  | 'gradient_clipping'
  | 'mixed_precision'
  | 'optimizer';
export interface MemoryTraffic {
  read_bytes: number;
  write_bytes: number;
  bytes: number;
  arithmetic_intensity: number;
}
/** One phase's roofline; bound and times are null without a GPU. */
export interface PhaseCost {
  phase: TrainingPhase;
  bound: Bound | null;
  time_s: number | null;
  compute_s: number | null;
  memory_s: number | null;
  flops: number;
  bytes: number;
  arithmetic_intensity: number;
}
/** train(): the CLI's `train --json` object (FLOPs are counts, bytes, seconds). */
export interface TrainResult {
  model: string;
  settings: {
    batch_size: number;
    sequence_length: number;
    precision: PrecisionName;
    gpu: string | null;
    optimizer: Optimizer;
    fused_optimizer: boolean;
    recompute: RecomputePolicy;
    gradient_clipping: boolean;
    causal: boolean;
    flash_attention: boolean;
    compute_efficiency: number;
    mem_efficiency: number;
    mfu: number;
    gpus: number;
    tokens: number;
    lora_rank: number;
    /** null without LoRA. */
    lora_targets: string | null;
    /** null without LoRA. */
    base_precision: PrecisionName | null;
  };
  parameters: { total: number; trainable: number; frozen: number };
  flops: {
    forward: number;
    forward_base: number;
    lora_forward: number;
    backward: {
      total: number;
      weight_gradient: number;
      input_gradient: number;
      attention: {
        qkv_projection: number;
        output_projection: number;
        cross_kv_projection: number;
        dq_dk: number;
        dv_dp: number;
        softmax: number;
        rotary: number;
        total: number;
      };
      mlp: number;
      norm: number;
      embedding: number;
      output_head: number;
      /** Linear-attention and state-space mixers (2 x their forward FLOPs). */
      mixer: number;
      lora_adapters: number;
      ratio_to_forward: number;
    };
    optimizer: number;
    gradient_clipping: number;
    mixed_precision: number;
    recompute: {
      policy: RecomputePolicy;
      layers: number;
      attention_core: number;
      flash_attention_kernel: number;
      total: number;
    };
    total_step: number;
    sum_of_parts: number;
    sum_of_parts_ratio: number;
    within_5_percent: boolean;
    /** Forward + backward: what MFU counts. */
    model_flops: number;
  };
  memory: {
    weights: number;
    gradients: number;
    /** Includes the fp32 master copy (master_weights): optimizer_state = master_weights + optimizer_moments. */
    optimizer_state: number;
    /** The fp32 master copy of the trainable weights under mixed precision (0 for fp32 weights). */
    master_weights: number;
    /** The optimizer's moments (Adam m and v, SGD momentum; 0 for "none"). */
    optimizer_moments: number;
    activations: number;
    total: number;
    gpu_memory: number | null;
    /** What one GPU may hold (the fit rule: usable memory x gpu_memory_utilization - reserve); null without a GPU. */
    usable_gpu_memory: number | null;
    fits_on_gpu: boolean | null;
    bytes_per_trainable_parameter: number;
    activations_by_recompute: Record<RecomputePolicy, number>;
  };
  /** By phase, the three backward phases together, and the whole step. */
  memory_traffic: Record<TrainingPhase | 'backward' | 'total', MemoryTraffic>;
  /** One row per phase, in execution order. */
  bottleneck: PhaseCost[];
  /** null without a GPU. */
  performance: {
    compute_precision: ComputeUnit;
    peak_flops_per_s: number;
    memory_bandwidth_bytes_per_s: number;
    step_time_s: number;
    step_compute_s: number;
    step_memory_s: number;
    tokens_per_second: number;
    model_flops_utilization: number;
    estimate_training_step_s: number;
  } | null;
  recommendations: { action: string; reason: string }[];
  token_budget: {
    tokens: number;
    source: string;
    tokens_per_step: number;
    steps: number;
    total_flops: number;
    model_flops: number;
    mfu: number;
    gpus: number;
    /** The times and cost are null without a GPU. */
    time_s: number | null;
    time_days: number | null;
    gpu_hours: number | null;
    cost_usd: number | null;
    roofline_time_s: number | null;
    flops_6nd: number;
    ratio_total_to_6nd: number;
    ratio_model_to_6nd: number;
  };
  cross_check_6nd: {
    /** What N counts, in words. */
    n: string;
    parameters: number;
    tokens_per_step: number;
    forward_plus_backward: number;
    flops_6nt: number;
    ratio: number;
    within_5_percent: boolean;
    non_embedding_parameters: number;
    flops_6nt_non_embedding: number;
    ratio_non_embedding: number;
  };
  /** null without LoRA. */
  lora: {
    rank: number;
    targets: string;
    base_precision: PrecisionName;
    quantized_base: boolean;
    /** null unless the base is quantized. */
    base_bits_per_quantized_weight: number | null;
    trainable_parameters: number;
    base_parameters: number;
    all_parameters: number;
    trainable_percent: number;
    adapted_matrices: number;
    quantized_parameters: number;
    base_weight_bytes: number;
    adapter_bytes: number;
    forward_flops: number;
    backward_flops: number;
  } | null;
  /** The notes, joined by "; ". */
  note: string;
}

type OneOrMany<T> = T | T[];
/** Like EstimateRequest, but model, gpu, precision and the sizes may be lists (Cartesian product). */
export interface CompareRequest extends Omit<
  EstimateRequest,
  'model' | 'gpu' | 'precision' | 'batch_size' | 'sequence_length' | 'num_generated_tokens'
> {
  model: OneOrMany<string | HfConfig>;
  gpu?: OneOrMany<string | GpuSpec | null>;
  precision?: OneOrMany<Precision> | PrecisionParts;
  batch_size?: OneOrMany<number>;
  sequence_length?: OneOrMany<number>;
  num_generated_tokens?: OneOrMany<number>;
}

export interface FlopsParts {
  embedding: number;
  attention: number;
  mlp: number;
  layernorm: number;
  /** Linear-attention (Gated DeltaNet) and state-space (Mamba) mixers, in their recurrent form. */
  mixer: number;
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
  mixer: number;
  total: number;
}
export interface Performance {
  compute_precision: ComputeUnit;
  /** Weights dequantised to a 16-bit format before the matmuls (weight-only formats). */
  weight_only_path: boolean;
  /** Dequantisation work (2 per weight read), costed at the fp32 rate. */
  dequant_flops_prefill: number;
  dequant_flops_step: number;
  peak_flops_per_s: number;
  memory_bandwidth_bytes_per_s: number;
  prefill_flops: number;
  prefill_bytes: number;
  prefill_compute_s: number;
  prefill_memory_s: number;
  prefill_latency_s: number;
  prefill_bound: Bound;
  decode_steps: number | null;
  decode_first_step_s: number | null;
  decode_first_step_flops: number | null;
  decode_first_step_bytes: number | null;
  decode_bound: Bound | null;
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
  /** One GPU's price. */
  cost_per_hour_usd: number;
  /**
   * GPUs of the configuration. With a layout, the latencies, tokens/s, training step, energy, CO2
   * and cost above (and their ranges) are the layout's, for all its GPUs; the roofline breakdown
   * (FLOPs, bytes, compute and memory times, first step, bounds, ceiling) stays one device's.
   */
  gpus: number;
  /** All the configuration's GPUs. */
  cost_usd: number;
  latency_is_estimate: true;
}
export interface TrainingMemory {
  weights: number;
  gradients: number;
  /** Includes the fp32 master copy: optimizer_state = master_weights + optimizer_moments. */
  optimizer_state: number;
  /** The fp32 master copy of the weights under mixed precision (0 for fp32 weights). */
  master_weights: number;
  /** The optimizer's moments (Adam m and v, SGD momentum; 0 for "none"). */
  optimizer_moments: number;
  activations: number;
  activations_is_estimate: true;
  gradient_checkpointing: boolean;
  total: number;
}
/** The ranges of the performance figures (null where the figure is). */
export interface PerformanceRanges {
  prefill_latency_s: Range;
  decode_latency_per_token_s: Range | null;
  decode_tokens_per_second: Range | null;
  total_request_latency_s: Range;
  training_step_s: Range | null;
  energy_total_joules: Range;
  cost_usd: Range;
  compute_efficiency: Range;
  mem_efficiency: Range;
  source: string;
}
/** The architecture as flopcast read it. */
export interface ModelConfig {
  model_type: string;
  architecture: Architecture;
  hidden_size: number;
  num_layers: number;
  num_encoder_layers: number;
  vocab_size: number;
  num_attention_heads: number;
  num_key_value_heads: number;
  head_dim: number;
  v_head_dim: number;
  intermediate_size: number;
  mlp: 'gated' | 'standard';
  activation: string;
  norm: 'rmsnorm' | 'layernorm';
  position: 'rope' | 'learned' | 'alibi' | 'relative_bias' | 'none';
  parallel_attention: boolean;
  tie_word_embeddings: boolean;
  max_position_embeddings: number;
  /** Multi-head latent attention (DeepSeek-V2/V3); null otherwise. */
  mla: {
    q_lora_rank: number;
    kv_lora_rank: number;
    qk_nope_head_dim: number;
    qk_rope_head_dim: number;
    v_head_dim: number;
  } | null;
  /** null for dense models. */
  moe: {
    num_experts: number;
    experts_per_token: number;
    expert_intermediate_size: number;
    shared_intermediate_size: number;
  } | null;
  layer_groups: LayerGroup[];
  /** Gated DeltaNet layers (Qwen3-Next, Qwen3.5); null when the model has none. */
  linear_attention: {
    num_key_heads: number;
    num_value_heads: number;
    key_head_dim: number;
    value_head_dim: number;
    conv_kernel: number;
  } | null;
  /** Mamba-1 / Mamba-2 mixers; null when the model has none. */
  ssm: {
    inner: number;
    state_size: number;
    conv_kernel: number;
    dt_rank: number;
    num_heads: number;
    n_groups: number;
  } | null;
  /** DeepSeek-V3.2 sparse attention (lightning indexer, top-k keys); null for dense attention. */
  sparse_attention: { index_heads: number; index_head_dim: number; index_topk: number } | null;
  /** gpt-oss: a learned sink logit per head. */
  attention_sinks: boolean;
  /** The wrapper's vision tower type (multimodal configs); null for text models. */
  vision_model_type: string | null;
  /** The longest context the config supports (rope_scaling extensions included); 0: unknown. */
  context_length: number;
  /** The checkpoint's quantization_config, read as the default precision; null for plain checkpoints. */
  quantization: { method: string; note: string } | null;
}
export type Architecture = 'decoder' | 'encoder' | 'encoder-decoder';
/** A run of identical layers. */
export interface LayerGroup {
  count: number;
  stack: 'decoder' | 'encoder';
  /** What mixes tokens: softmax attention, Gated DeltaNet, Mamba-1/2, or nothing (MLP-only block). */
  mixer: 'attention' | 'linear_attention' | 'mamba' | 'mamba2' | 'none';
  /** A Mamba-2 mixer beside the attention (Falcon-H1). */
  parallel_ssm: boolean;
  /** The layer has an MLP (false: mixer-only blocks). */
  mlp: boolean;
  cross_attention: boolean;
  moe: boolean;
  /** null: full attention. */
  sliding_window: number | null;
  /** Chunked local attention's chunk (Llama 4); null otherwise. */
  attention_chunk: number | null;
  /** Attention without positional encoding in these layers. */
  nope: boolean;
}
/** The layout and its per-GPU figures (present whenever there is a GPU, one GPU included). */
export interface ParallelismResult {
  tensor_parallel: number;
  pipeline_parallel: number;
  data_parallel: number;
  expert_parallel: number;
  sequence_parallel: boolean;
  num_microbatches: number;
  total_gpus: number;
  interconnect_bandwidth_bytes_per_s: number;
  link_latency_s: number;
  batch_per_replica: number;
  layers_per_stage: number;
  per_gpu_weights: number;
  per_gpu_kv_cache: number;
  per_gpu_activations: number;
  /** Training only. */
  per_gpu_training_state: number | null;
  per_gpu_memory_bytes: number;
  fits_per_gpu: boolean;
  tp_allreduce_bytes: number;
  tp_comm_s: number;
  /** null for encoders (no decode). */
  tp_comm_decode_step_s: number | null;
  pp_send_s: number;
  pp_send_decode_step_s: number | null;
  /** Training only. */
  pp_bubble_fraction: number | null;
  ep_alltoall_s: number;
  ep_alltoall_decode_step_s: number | null;
  /** Training only. */
  dp_allreduce_s: number | null;
  prefill_latency_s: number;
  decode_latency_per_token_s: number | null;
  decode_tokens_per_second: number | null;
  total_request_latency_s: number;
  training_step_s: number | null;
}
/** The settings every result and the defaults share, by request field name. */
export interface SharedSettings {
  batch_size: number;
  sequence_length: number;
  num_generated_tokens: number;
  precision: PrecisionName;
  training: boolean;
  optimizer: Optimizer;
  gradient_checkpointing: boolean;
  causal: boolean;
  flash_attention: boolean;
  compute_efficiency: number;
  mem_efficiency: number;
  power_utilization: number;
  carbon_intensity: number;
}
/** details.settings: every input of an estimate, defaults included. */
export interface EstimateSettings extends SharedSettings {
  kv_cache_precision: PrecisionName;
  /** The serving engine whose fitted costs and ranges the figures use; null: the plain roofline. */
  engine: string | null;
  compute_efficiency_origin: EfficiencyOrigin;
  mem_efficiency_origin: EfficiencyOrigin;
  /** The applied calibration's source; null when none was. */
  calibration_source: string | null;
  /** Where the applied calibration was read from: a file path (CLI), "request", or null. */
  calibration_store: string | null;
  /** USD per GPU-hour; null without a GPU unless given. */
  cost_per_hour: number | null;
  /** The request's weight_bytes (exact checkpoint bytes); null: parameters x bytes per weight. */
  weight_bytes: number | null;
  /** Where weight_bytes came from (the CLI: "exact bytes from model.gguf (Q4_K_M mix: ...)"); null here. */
  weight_bytes_source: string | null;
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

export interface PriceComparisonRequest {
  /** A registry name or alias, or a provider id. */
  model: string;
  /** Default 'H100'. */
  gpu?: string;
  /** 0 or omitted: the smallest power of two up to 8 whose layout fits. */
  tensor_parallel?: number;
  precision?: PrecisionName;
  /** Share of the paid GPU hours spent serving at full throughput, (0, 1]; default 0.5. */
  utilization?: number;
  prompt_tokens?: number;
  output_tokens?: number;
  /** USD per GPU-hour; default: the GPU's (data/gpus.json). */
  cost_per_hour_usd?: number | null;
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
  /** The whole model's memory (inference, or training state in training mode), all GPUs together. */
  memory: number;
  /** The fullest GPU of the configuration (the layout's; = memory on one GPU); null without a GPU. */
  memory_per_gpu: number | null;
  /** GPUs of the configuration (the layout's total); null without a GPU. */
  gpus: number | null;
  /** Whether every GPU of the configuration holds its share (details.memory.fits_on_gpu). */
  fits: boolean | null;
  kv_cache: number;
  /** Time to first token (prefill), or one training step in training mode, on the configuration's GPUs; null without a GPU. */
  latency: number | null;
  /** Energy of that prefill (training: of the step), all GPUs; null without a GPU. */
  energy: number | null;
  model: string;
  precision: string;
  gpu: string | null;
  batch_size: number;
  sequence_length: number;
  note: string[];
  /** Only when the model was named by a hosted provider's id ("llama-3.3-70b-versatile", "groq:..."): its published figures. */
  provider?: ProviderEntry;
  details: {
    config: ModelConfig;
    parameters: {
      total: number;
      active: number;
      embedding: number;
      attention: number;
      mlp: number;
      norm: number;
      /** Linear-attention and state-space mixers. */
      mixer: number;
      /** Vision tower and projector (multimodal wrappers); in total, not in active. */
      vision: number;
      output_head: number;
    };
    flops: {
      forward: FlopsParts;
      forward_attention_detail: AttentionDetail;
      backward_total: number;
      prefill: FlopsParts;
      prefill_attention_detail: AttentionDetail;
      decode_step: (FlopsParts & { context_tokens: number }) | null;
      /** A row per layer with `layer_table: true`; null otherwise (output size independent of depth). */
      layers: LayerRow[] | null;
    };
    memory: {
      weights: number;
      weights_by_part: Record<WeightComponent, number>;
      weights_precision_by_part: Record<WeightComponent, PrecisionName>;
      weights_bits_per_weight: number;
      /** format: parameters x bits; gguf_plan: a llama.cpp preset tensor by tensor; checkpoint: weight_bytes. */
      weights_source: 'format' | 'gguf_plan' | 'checkpoint';
      kv_cache: number;
      kv_cache_prompt: number;
      kv_cache_per_token: number;
      /** Constant state of linear-attention / state-space layers (part of kv_cache). */
      recurrent_state: number;
      kv_cache_precision: PrecisionName;
      activations: number;
      activations_is_estimate: true;
      total: number;
      inference_total: number;
      gpu_memory: number | null;
      /** What one GPU may hold: the fit rule's share of gpu_memory after the reserve. */
      usable_gpu_memory: number | null;
      /** Whether each GPU of the configuration holds its share (per_gpu <= usable_gpu_memory). */
      fits_on_gpu: boolean | null;
      training: TrainingMemory | null;
    };
    /** null without a GPU. */
    performance: (Performance & { ranges: PerformanceRanges }) | null;
    /** null without a GPU. */
    parallelism: ParallelismResult | null;
    settings: EstimateSettings;
    /** The per-operator tables with `operator_table: true`; null otherwise. */
    operators: Operators | null;
  };
}

/**
 * One operator of a pass (a matmul, an attention part, a norm, a mixer op), summed over the layers
 * of its layer group. bytes = weight_bytes + activation_bytes + kv_bytes; time_s = max(compute_s,
 * memory_s) at the estimate's efficiencies.
 */
export interface OperatorRow {
  /** q_proj, k_proj, v_proj, rotary, attention_scores, softmax, attention_values, o_proj, norms, mlp_gate, ... */
  name: string;
  /** Index into details.config.layer_groups; null: once per model (embedding, final norm, head). */
  group: number | null;
  /** Layers the figures are summed over. */
  layers: number;
  /** The weight format of the part it reads; null: reads no weights. */
  precision: PrecisionName | null;
  flops: number;
  bytes: number;
  /** Its share of the weights the pass reads (MoE experts: those the pass's tokens reach). */
  weight_bytes: number;
  /** ESTIMATE: inputs and outputs read and written once. */
  activation_bytes: number;
  /** KV cache or recurrent state read and written. */
  kv_bytes: number;
  /** FLOP per byte; null when it moves no bytes. */
  intensity: number | null;
  /** null without a GPU. */
  bound: 'compute' | 'memory' | null;
  /**
   * FLOPs at the achieved peak (routed experts' GEMMs at their own tokens on an engine's GEMM
   * curve); the weight-only path's dequantisation is not in the rows. null without a GPU.
   */
  compute_s: number | null;
  /** Bytes at the achieved bandwidth (a decode step's cached K/V reads at the engine's KV-read efficiency). */
  memory_s: number | null;
  time_s: number | null;
  /** Its time over the sum of the pass's operator times; null without a GPU. */
  share: number | null;
}

export interface Operators {
  prefill: OperatorRow[];
  /** null for encoder-only models. */
  decode: OperatorRow[] | null;
  /** The roofs; null without a GPU. */
  device: {
    compute_precision: ComputeUnit;
    peak_flops_per_s: number;
    memory_bandwidth_bytes_per_s: number;
    /** compute_efficiency x the engine's GEMM curve at the pass's tokens. */
    prefill_compute_efficiency: number;
    decode_compute_efficiency: number | null;
    mem_efficiency: number;
  } | null;
}

/** One row of compare(): the CLI's `compare --json` row. */
export interface CompareRow {
  model: string;
  precision: PrecisionName;
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
  prefill_bound: Bound | null;
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
  architecture: Architecture;
  parameters: number;
  active_parameters: number;
  published_parameters: number | null;
  published_significant_digits: number;
  source: string;
}
/** A serving-engine profile (listEngines()): data/engines/, with its fit to the validation table. */
export interface EngineInfo {
  id: string;
  name: string;
  aliases: string[];
  version: string;
  batching: 'continuous' | 'static';
  /** Whether simulate() runs it (continuous batching). */
  simulated: boolean;
  fitted: boolean;
  /** Measurement rows of the fit (the pooled family "all"); 0 when unfitted. */
  fit_rows: number;
  fitted_to: string[];
  held_out: string[];
  costs: { per_step_s: number; per_layer_s: number; gemm_half_tokens: number; kv_read_efficiency: number };
  /** Fitted efficiencies per device family ("nvidia-hbm", "apple-lpddr", "all"). */
  families: Record<string, { compute_efficiency: number; mem_efficiency: number; rows: number }>;
  /** measured/predicted time ratios of the engine's rows, p10 and p90, per figure (rows 0: none). */
  bands: Record<'prefill' | 'decode' | 'throughput' | 'ttft_load', { low: number; high: number; rows: number }>;
}
/** An accelerator of the database (listGpus()). */
export interface GpuInfo {
  name: string;
  aliases: string[];
  vendor: string;
  memory_bytes: number;
  memory_bandwidth_bytes_per_s: number;
  /** Dense peak FLOP/s of each precision the GPU has. */
  peak_flops: Partial<
    Record<'fp32' | 'tf32' | 'fp16' | 'bf16' | 'fp8' | 'int8' | 'int4' | 'fp6' | 'fp4' | 'fp16_acc16', number>
  >;
  kind: 'gpu' | 'tpu' | 'npu' | 'cpu' | 'soc';
  /** Share of memory_bytes a process may use (unified memory); 1 for discrete cards. */
  usable_memory_fraction: number;
  tdp_watts: number;
  interconnect: { name: string; bandwidth_bytes_per_s: number; generation?: string; domain_size?: number };
  cost_per_hour_usd: number;
}
/** bound: compute/memory (1/0 in sweep values). */
export type FieldKind =
  'text' | 'count' | 'flops' | 'bytes' | 'seconds' | 'rate' | 'joules' | 'boolean' | 'number' | 'bound';
export interface RowField {
  key: keyof CompareRow;
  header: string;
  kind: FieldKind;
}
/** One request field of the core's request table (core/src/io/request_fields.cpp). */
export interface RequestField {
  key: string;
  /** Full JSON pointer, e.g. "/parallelism/tensor_parallel". */
  pointer: string;
  /** "" (top level), "parallelism", "serving", "simulation", "training_analysis" or "measured". */
  part: string;
  flag: string;
  short_flag: string;
  /** The page's query name and the widget's attribute; "" for none. */
  attribute: string;
  type:
    | 'integer'
    | 'number'
    | 'boolean'
    | 'precision'
    | 'optimizer'
    | 'recompute'
    | 'lora_targets'
    | 'tokens'
    | 'model'
    | 'gpu'
    | 'engine'
    | 'calibration'
    | 'part'
    | 'choice'
    | 'token_range'
    | 'trace';
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
  commands: ('estimate' | 'compare' | 'throughput' | 'train' | 'calibrate' | 'simulate' | 'report' | 'plan')[];
  help: string;
  /** A choice field's accepted names (e.g. ["mixed", "prefill_first"]); [] otherwise. */
  choices: string[];
}
export interface Defaults {
  version: string;
  /** Every request field: forms and attribute lists are built from it. */
  request_fields: RequestField[];
  settings: SharedSettings & {
    gpu: string;
    /** null: the weights' precision (fp8 for nvfp4, fp16 for weight-only and other sub-8-bit formats). */
    kv_cache_precision: null;
    /** null: the GPU's. */
    cost_per_hour: null;
    /** null: 0.9 for inference (vLLM's default), 1 for training. */
    gpu_memory_utilization: null;
    /** Bytes kept free on each GPU for the runtime (the fit check subtracts them). */
    gpu_memory_reserve_bytes: number;
    /** null: parameters x bytes per weight (set it to a checkpoint's exact bytes). */
    weight_bytes: null;
    /** null: no engine, the plain roofline. */
    engine: null;
    layer_table: boolean;
    operator_table: boolean;
  };
  precisions: {
    name: PrecisionName;
    /** Bits per stored weight, scales included (a preset's: its base type's, a floor). */
    bits: number;
    weight_only: boolean;
    family: 'plain' | 'integer' | 'scaled_float' | 'gguf' | 'gguf_preset';
    kv_cache: boolean;
    /** Device units tried in order. */
    compute_path: ComputeUnit[];
    layout: string;
    source: string;
  }[];
  optimizers: Optimizer[];
  row_fields: RowField[];
  sweep_fields: (keyof CompareRow)[];
  model_types: string[];
  max_compare_rows: number;
  /** The parts a precision object may name besides "default", in the core's order. */
  weight_components: WeightComponent[];
}
/** The config.json a GGUF header's keys imply (llama.cpp's key names mapped back; a type, so it is an HfConfig). */
export type GgufConfig = {
  model_type: string;
  hidden_size: number;
  num_hidden_layers: number;
  num_attention_heads: number;
  num_key_value_heads?: number;
  head_dim?: number;
  intermediate_size?: number;
  max_position_embeddings?: number;
  vocab_size: number;
  tie_word_embeddings: boolean;
  attention_bias?: boolean;
  hidden_act?: string;
  hidden_activation?: string;
  partial_rotary_factor?: number;
  sliding_window?: number;
  sliding_window_pattern?: number;
  num_local_experts?: number;
  num_experts?: number;
  num_experts_per_tok?: number;
  moe_intermediate_size?: number;
  shared_expert_intermediate_size?: number;
  decoder_sparse_step?: number;
  mlp_only_layers?: number[];
  q_lora_rank?: number;
  kv_lora_rank?: number;
  qk_nope_head_dim?: number;
  qk_rope_head_dim?: number;
  v_head_dim?: number;
  n_routed_experts?: number;
  n_shared_experts?: number;
  first_k_dense_replace?: number;
  moe_layer_freq?: number;
  /** general.name */
  _name_or_path?: string;
};
/** Tensors of one dtype (GGML type) or one component, with their exact bytes. */
export interface CheckpointTotal {
  name: string;
  tensors: number;
  elements: number;
  bytes: number;
  bits_per_weight: number;
}
/** inspectCheckpoint(): a checkpoint header's summary and the architecture it implies. */
export interface CheckpointSummary {
  format: 'safetensors' | 'safetensors index' | 'gguf';
  gguf_version: number | null;
  /** GGUF general.architecture. */
  architecture: string | null;
  /** GGUF general.name. */
  name: string | null;
  file_size: number | null;
  header_bytes: number;
  data_start: number;
  tensor_count: number;
  total_elements: number;
  /** Exact bytes of every tensor, from the dtypes / GGML block layouts. */
  total_bytes: number;
  bits_per_weight: number;
  /** The quantization mix: GGUF general.file_type ("Q4_K_M"), else the dtypes by bytes ("BF16 + F32"). */
  mix: string;
  /** The bytes an estimate's weight_bytes takes (null when unknown, e.g. an index without shards). */
  weight_bytes: number | null;
  declared_total_size: number | null;
  /** Sorted by bytes, largest first. */
  by_dtype: CheckpointTotal[];
  /** embedding, attention_q, ..., mlp, experts, norm, lm_head, other. */
  by_component: CheckpointTotal[];
  notes: string[];
  /** The config.json a GGUF's keys imply (estimate it as the request's model); null otherwise. */
  config: GgufConfig | null;
  /** Where the architecture checked came from: the GGUF keys, or the config passed in. */
  config_source: 'gguf' | 'config' | null;
  /** The tensors against flopcast's architecture count; null without an architecture. */
  architecture_check: {
    model_type: string;
    checkpoint_elements: number;
    architecture_parameters: number;
    matches: boolean;
    /** Tensors no architecture component holds (rope_freqs, ...). */
    unaccounted: string[];
    components: { component: string; checkpoint: number; architecture: number }[];
  } | null;
  /** Why there is no architecture (unsupported GGUF architecture, no config for safetensors). */
  architecture_error: string | null;
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

/** A reportData() request: an estimate request, plus what the report adds. */
export interface ReportRequest extends EstimateRequest {
  report?: {
    /** Add the serving curve (a closed-loop simulation over concurrency). */
    serving?: boolean;
  };
}
/** One varied input of a report: the compare rows at `values` (points the core rejects are left out). */
export interface ReportSeries<V> {
  key: 'batch_size' | 'sequence_length' | 'precision';
  values: V[];
  rows: CompareRow[];
}
export interface ReportRooflinePoint {
  phase: 'prefill' | 'decode_first_step';
  /** FLOP per byte moved. */
  intensity: number;
  /** Attained FLOP/s. */
  flops_per_s: number;
}
/** reportData(): everything a report's (and the page's) charts draw, SI units. */
export interface ReportData {
  version: string;
  /** The estimate of the request, with its layer table. */
  estimate: EstimateResult;
  /** The headers and kinds of `row` (the core's row fields). */
  fields: RowField[];
  /** The request's compare row. */
  row: CompareRow;
  series: {
    batch_size: ReportSeries<number>;
    sequence_length: ReportSeries<number>;
    precision: ReportSeries<PrecisionName>;
  };
  /** Null without a GPU. */
  roofline: {
    peak_flops_per_s: number;
    memory_bandwidth_bytes_per_s: number;
    compute_precision: ComputeUnit;
    ridge_intensity: number;
    points: ReportRooflinePoint[];
  } | null;
  /** The serving curve with report.serving, else null. */
  serving: SimulationResult | null;
}

/** A tensor of the profiler's neutral graph (core/include/flopcast/profile/profile.hpp). */
export interface ProfileTensor {
  name: string;
  /** ONNX TensorProto.DataType code (1 float, 7 int64, 10 float16, 16 bfloat16, ...). */
  elem_type?: number;
  /** Sizes, symbolic names, or null for an unknown size. */
  dims?: (number | string | null)[];
  /** Values of small int tensors (shape operands), only. */
  values?: number[];
}
export type ProfileAttribute =
  { i: number } | { f: number } | { s: string } | { ints: number[] } | { floats: number[] } | { t: ProfileTensor };
export interface ProfileNode {
  name?: string;
  op_type: string;
  domain?: string;
  /** Tensor names; "" for an absent optional input. */
  inputs?: string[];
  outputs?: string[];
  attributes?: Record<string, ProfileAttribute>;
}
/** The graph profile() reads: an ONNX graph without its weights. */
export interface ProfileGraph {
  opset?: number;
  inputs?: ProfileTensor[];
  outputs?: ProfileTensor[];
  value_infos?: ProfileTensor[];
  initializers?: ProfileTensor[];
  nodes: ProfileNode[];
  /** Set by the native reader: ONNX shape inference ran. Ignored by the core. */
  shape_inference?: boolean;
}
export interface ProfileOptions {
  /** Symbolic dimension sizes; every symbolic dimension of a graph input needs one. */
  dims?: Record<string, number>;
  /** Device of the roofline (default H100). */
  gpu?: string;
  /** Bytes per element and compute rate; default: each tensor's own type. */
  precision?: string;
  /** Module-scope depth of by_scope (default 1). */
  depth?: number;
}
/** FLOPs (a multiply-add is 2), MACs, parameters, bytes (SI base units) and roofline time. */
export interface ProfileCosts {
  flops: number;
  macs: number;
  parameters: number;
  activation_bytes: number;
  weight_bytes: number;
  roofline_time_s: number;
}
export interface ProfileGroup extends ProfileCosts {
  nodes: number;
  /** Nodes without a rule or without input shapes: their costs are missing. */
  not_costed: number;
}
export interface ProfileNodeCost extends ProfileCosts {
  name: string;
  op_type: string;
  scope: string;
  status: 'ok' | 'unknown_op' | 'unknown_shape';
  arithmetic_intensity: number;
  bound: 'compute' | 'memory';
  /** One shape per output; [] where unknown. */
  output_shapes: number[][];
}
export interface ProfileResult {
  gpu: string;
  compute_precision: string;
  peak_flops_per_s: number;
  memory_bandwidth_bytes_per_s: number;
  total: ProfileGroup;
  /** Op types without a cost rule. */
  unknown_ops: string[];
  by_op_type: (ProfileGroup & { op_type: string })[];
  by_scope: (ProfileGroup & { scope: string })[];
  nodes: ProfileNodeCost[];
}

export interface Flopcast {
  version(): string;
  estimate(request: EstimateRequest | string): EstimateResult;
  compare(request: CompareRequest | string): CompareRow[];
  throughput(request: ThroughputRequest | string): ThroughputResult;
  /** The serving simulation: one point per concurrency or request-rate value (the latency-throughput curve). */
  simulate(request: SimulationRequest | string): SimulationResult;
  /** How many GPUs: the smallest layouts that fit, with memory per GPU, speed and cost, cheapest and fastest marked. */
  plan(request: PlanRequest | string): PlanResult;
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
