// Types of flopcast's JavaScript API, hand-written part: the request values the core's readers
// parse in code rather than from the request table (configs, GPU specs, calibration entries,
// traces) and the requests of calls that have no table (priceComparison, sweep options).
// tools/gen_dts.mjs includes this file verbatim in build-wasm/wasm/flopcast.d.ts, after the types it
// generates from the core's tables (PrecisionName, ComputeUnit, WeightComponent, Optimizer,
// RecomputePolicy, EngineId, ModelType, CompareRow, RowFieldKey, the request types, ...), which
// it uses by name. Edit it here and rebuild (npm run build:wasm); never edit the built file.
// tests/wasm/types.test.mjs compiles the requests behind its real results against the request types.
// Units are SI base units: FLOPs are counts, memory bytes, time seconds, energy joules.

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
  /** NVIDIA CUDA compute capability, e.g. 8.9: engines below their docs' minimum are not offered. */
  compute_capability?: number;
  /** AMD LLVM target, e.g. "gfx1100": engines that list their targets are offered on those alone. */
  gfx?: string;
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
/** A calibration store as requests take it: the bare entries, or an object with them (calibrate()'s result as is). */
export type CalibrationInput = CalibrationEntry[] | { version?: number; origin?: string; entries: CalibrationEntry[] };

/** One request of a trace to replay. */
export interface TraceRequest {
  arrival_s: number;
  input_tokens: number;
  output_tokens: number;
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
  /**
   * The self-hosted side as a whole throughput request (what throughput() takes; its model defaults
   * to `model`): its figures are throughput()'s for that request. With it, only model and
   * utilization may stand beside it.
   */
  self_hosted?: Record<string, unknown>;
}

export interface SweepOptions {
  /** Points per call into the module (default 20000). */
  chunk?: number;
  onProgress?: (done: number, total: number) => void;
  /** Evaluate only points [offset, offset + count). */
  offset?: number;
  count?: number;
}
