// Types of flopcast's JavaScript API, hand-written part: what train() and calibrate() return.
// tools/gen_dts.mjs includes this file verbatim in build-wasm/wasm/flopcast.d.ts, after the types it
// generates from the core's tables (PrecisionName, ComputeUnit, WeightComponent, Optimizer,
// RecomputePolicy, EngineId, ModelType, CompareRow, RowFieldKey, the request types, ...), which
// it uses by name. Edit it here and rebuild (npm run build:wasm); never edit the built file.
// These shapes come from the core's C++ JSON writers (code, not a table): tests/wasm/types.test.mjs
// compiles real results of every call against them with tsc --strict and fails on any drift
// (a key missing, extra, typed wrong, or typed loosely).

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
    /** Model chunks per pipeline GPU (interleaved 1F1B); 1 without. */
    virtual_pipeline: number;
    /** Context-parallel ranks; they multiply the layout's GPUs. */
    context_parallel: number;
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

/** A calibration store (the format of ~/.config/flopcast/calibration.json): calibrate()'s result. */
export interface CalibrationStore {
  version: number;
  entries: CalibrationEntry[];
}
