// Types of flopcast's JavaScript API, hand-written part: what estimate(), sweep() and reportData()
// return (the CLI's `estimate --json` object and its details).
// tools/gen_dts.mjs includes this file verbatim in build-wasm/wasm/flopcast.d.ts, after the types it
// generates from the core's tables (PrecisionName, ComputeUnit, WeightComponent, Optimizer,
// RecomputePolicy, EngineId, ModelType, CompareRow, RowFieldKey, the request types, ...), which
// it uses by name. Edit it here and rebuild (npm run build:wasm); never edit the built file.
// These shapes come from the core's C++ JSON writers (code, not a table): tests/wasm/types.test.mjs
// compiles real results of every call against them with tsc --strict and fails on any drift
// (a key missing, extra, typed wrong, or typed loosely).

/** Which roofline limit a phase hits. */
export type Bound = 'compute' | 'memory';

/** Where an efficiency came from: the default, the request, or a stored calibration. */
export type EfficiencyOrigin = 'default' | 'explicit' | 'calibrated' | 'fitted';

/** A low-high range of a figure. */
export type Range = [number, number];

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
  /** The configuration does not fit: the speeds are what it would run at if it fitted (null without a GPU). */
  performance_hypothetical: boolean | null;
  /** Not fitting: the fewest GPUs of this kind that hold it (the planner's); null when it fits or none within the planner's cap. */
  min_gpus_to_fit: number | null;
  /** Not fitting: one sentence on what it would need (GPUs, offload); null when it fits. */
  fit_advice: string | null;
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
  /** One device at its peaks: every FLOP at the compute peak, every byte at the bandwidth, no fixed cost. No figure is faster. */
  speed_of_light_prefill_s: number;
  /** The same for a decode step (mean over the steps); null for encoders. */
  speed_of_light_per_token_s: number | null;
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
  /** The method these figures are for (training_analysis.fine_tuning): qlora for a quantised frozen base. */
  fine_tuning: 'full' | 'lora' | 'qlora';
  /** The LoRA adapters' rank (0: full fine-tuning). */
  lora_rank: number;
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
  model_type: ModelType;
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
  /** Gated DeltaNet layers (Qwen3-Next, Qwen3.5) or Kimi Delta Attention (Kimi Linear); null when the model has none. */
  linear_attention: {
    num_key_heads: number;
    num_value_heads: number;
    key_head_dim: number;
    value_head_dim: number;
    conv_kernel: number;
    /** Kimi Delta Attention's low-rank per-channel decay (f_a/f_b); 0: Gated DeltaNet's per-head decay. */
    decay_rank: number;
    /** Kimi Delta Attention's low-rank output gate (g_a/g_b); 0: Gated DeltaNet's full-width gate. */
    gate_rank: number;
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
  quantization: { method: string; note: string; formats: string } | null;
  /** The checkpoint's own weight formats in words, the default of `precision` ("mxfp4 experts, bf16 rest"; "bf16 (no quantization_config)"). */
  checkpoint_formats: string;
}

export type Architecture = 'decoder' | 'encoder' | 'encoder-decoder';

/** A run of identical layers. */
export interface LayerGroup {
  count: number;
  stack: 'decoder' | 'encoder';
  /** What mixes tokens: softmax attention, Gated DeltaNet, Mamba-1/2, nothing (MLP-only block), LFM2's short conv or an RWKV-6/7 time mix. */
  mixer: 'attention' | 'linear_attention' | 'mamba' | 'mamba2' | 'none' | 'short_conv' | 'rwkv';
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
  /** Attention ranks among the tensor_parallel x expert_parallel GPUs, each its own batch (a divisor of expert_parallel). */
  attention_data_parallel: number;
  /** Busiest expert-parallel rank's routed tokens / the mean. */
  expert_imbalance: number;
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
  /** The weight formats used, in words ("mxfp4 experts, bf16 rest"). */
  weight_formats: string;
  /** "checkpoint": the model's own formats (its quantization_config, the default); "request": others. */
  weight_formats_source: 'checkpoint' | 'request';
  kv_cache_precision: PrecisionName;
  /** The serving engine whose fitted costs and ranges the figures use; null: the plain roofline. */
  engine: string | null;
  /** What the engine's figures rest on (its fit, or "unfitted (plain roofline plus the engine's scheduler defaults)"); null without an engine. */
  engine_basis: string | null;
  /** How the engine was chosen when the request named none (the device class's engine), or "--engine none: ..."; null when the request named one. */
  engine_rule: string | null;
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
  /**
   * A measured kernel curve (data/efficiency/) that covers the row's operation on the estimate's
   * device, read at the row's shape; beside the estimate's own times, which it does not change.
   * null: no GPU, or no curve for the operation, format and device (or its architecture).
   */
  kernel_curve: KernelCurve | null;
}

export interface KernelCurve {
  op:
    | 'gemm'
    | 'grouped_gemm'
    | 'attention_prefill'
    | 'attention_decode'
    | 'all_reduce'
    | 'all_gather'
    | 'all_to_all'
    | 'memory_bandwidth';
  /** The source id: data/efficiency/<source>.json. */
  source: string;
  /** The curve's id in that file. */
  curve: string;
  /** The device the curve was measured on (another than the estimate's when transferred). */
  device: string;
  /**
   * measured: a published point; interpolated: between points (or the nearest published shape);
   * transferred: measured on a device of the same architecture, the efficiency carried over.
   */
  how: 'measured' | 'interpolated' | 'transferred';
  /** The shape lies beyond the curve's ends: the end value is held (no extrapolation). */
  clamped: boolean;
  /** Achieved over the device's datasheet peak of the curve's kind. */
  efficiency: number;
  /**
   * The row's FLOPs at that efficiency of the device's peak: the kernel's time as the curve has it,
   * which for a clamped reading (a shape below the table) can be far below the row's memory_s.
   */
  time_s: number;
  /** How much wider an uncertainty range this reading deserves than a measured point (1). */
  range_widening: number;
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

export interface SweepResult {
  /** Numeric row fields, in order; `values` holds fields.length numbers per point. */
  fields: SweepField[];
  total: number;
  offset: number;
  count: number;
  /** NaN marks a figure that does not apply (no GPU, no decode for encoders); prefill_bound is 1 (compute) or 0 (memory). */
  values: Float64Array;
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
