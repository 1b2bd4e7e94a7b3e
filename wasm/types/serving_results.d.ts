// Types of flopcast's JavaScript API, hand-written part: what throughput(), simulate() and plan()
// return.
// tools/gen_dts.mjs includes this file verbatim in build-wasm/wasm/flopcast.d.ts, after the types it
// generates from the core's tables (PrecisionName, ComputeUnit, WeightComponent, Optimizer,
// RecomputePolicy, EngineId, ModelType, CompareRow, RowFieldKey, the request types, ...), which
// it uses by name. Edit it here and rebuild (npm run build:wasm); never edit the built file.
// These shapes come from the core's C++ JSON writers (code, not a table): tests/wasm/types.test.mjs
// compiles real results of every call against them with tsc --strict and fails on any drift
// (a key missing, extra, typed wrong, or typed loosely).

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
    /** null, or which figures are the model's x a fitted band's median (the band excludes the model's figure). */
    point_correction: string | null;
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
  attention_data_parallel: number;
  /** null: the weights' precision (fp8 for nvfp4, fp16 for weight-only and other sub-8-bit formats). */
  kv_cache_precision: PrecisionName | null;
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
  /** Prompt tokens served by the prefix cache / prompt tokens, from the start to this step. */
  cache_hit_rate: number;
}

/** One simulated point: a concurrency (closed loop) or a request rate (Poisson), or the one batch / trace run. */
export interface SimulationPoint {
  concurrency: number | null;
  request_rate: number | null;
  requests: number;
  /** Requests counted in the statistics (after the warm-up). */
  measured_requests: number;
  /** The harness's figures (its ITL definition, its client term on TTFT and end-to-end); null without a harness. */
  harness: {
    ttft_mean_s: number;
    tpot_mean_s: number;
    itl_mean_s: number;
    e2e_mean_s: number;
  } | null;
  /** Speculative decoding: tokens emitted per verification step, measured (0 without speculation). */
  tokens_per_decode_step: number;
  ttft_s: SimulationDistribution;
  /** [low, high] of the mean from a fitted engine's residuals; null without one. */
  ttft_s_range: Range | null;
  /** Open-loop (request-rate) points: the run repeated with every step faster and slower; null for closed loops and batches. */
  saturation: SaturationCheck | null;
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
  /** The prefix cache the run used ("off" also for models with recurrent state). */
  prefix_cache: SimulationPrefixCache;
  /** cached_prompt_tokens / prompt_tokens. */
  cache_hit_rate: number;
  /** Prompt tokens over every admission (a preempted request's readmission too): cached + computed. */
  prompt_tokens: number;
  /** Prompt tokens the prefix cache served (their prefill skipped). */
  cached_prompt_tokens: number;
  /** Prompt tokens prefilled. */
  computed_prompt_tokens: number;
  /** Cached blocks evicted to make room. */
  evicted_blocks: number;
  steps: number;
  /** Bytes per GPU of one attention rank (the step model's). */
  weights_per_gpu: number;
  kv_bytes_per_token_per_gpu: number;
  /** Mean over the steps: TP all-reduces + EP all-to-alls (one attention rank's). */
  communication_s_per_step: number;
  /** Mean over the steps: one rank's EP dispatch + combine bytes (0 without expert parallelism). */
  alltoall_bytes_per_step: number;
  makespan_s: number;
  /** First measured arrival to last measured finish. */
  window_s: number;
  /** At most ~200 evenly thinned points. */
  timeline: SimulationTimePoint[];
  /** Disaggregated serving only (request "disaggregation"): the pools, the transfer, the bottleneck. */
  disaggregation?: DisaggregatedPoint;
}

/** One pool of a disaggregated simulation at one point. */
export interface DisaggregatedPool {
  workers: number;
  tensor_parallel: number;
  /** Busy step time over each worker's span (first arrival to last finish), mean over the workers. */
  utilization: number;
  /** Mean wait in the pool's queue per request, seconds (Little's law on the waiting requests). */
  mean_queue_s: number;
  /** Time-averaged waiting and running requests, summed over the workers. */
  mean_waiting: number;
  mean_running: number;
  kv_blocks: number;
  steps: number;
  preemptions: number;
}

/** A disaggregated point: where it queues and what the KV transfer costs. */
export interface DisaggregatedPoint {
  /** The pool whose one more worker shortens the mean E2E more per GPU added; none: neither by 1%. */
  bottleneck: 'prefill' | 'decode' | 'none';
  /** Mean end-to-end latency of the same requests with one more prefill worker, seconds. */
  e2e_mean_plus_prefill_worker_s: number;
  /** Mean end-to-end latency of the same requests with one more decode worker, seconds. */
  e2e_mean_plus_decode_worker_s: number;
  /** prefill workers x prefill TP + decode workers x decode TP. */
  gpus: number;
  output_tokens_per_s_per_gpu: number;
  transfer_s: SimulationDistribution;
  mean_transfer_bytes: number;
  /** Closed loop: passes over both pools until the arrivals repeat; false: stopped at the limit. */
  passes: number;
  converged: boolean;
  prefill: DisaggregatedPool;
  decode: DisaggregatedPool;
}

/** The layout of a disaggregated simulation. */
export interface DisaggregatedLayout {
  prefill_workers: number;
  prefill_tensor_parallel: number;
  prefill_expert_parallel: number;
  prefill_attention_data_parallel: number;
  /** tensor_parallel x expert_parallel */
  prefill_gpus_per_worker: number;
  prefill_max_num_seqs: number;
  prefill_max_num_batched_tokens: number;
  decode_workers: number;
  decode_tensor_parallel: number;
  decode_expert_parallel: number;
  decode_attention_data_parallel: number;
  /** tensor_parallel x expert_parallel */
  decode_gpus_per_worker: number;
  decode_max_num_seqs: number;
  decode_max_num_batched_tokens: number;
  transfer_bandwidth_bytes_per_s: number;
  transfer_latency_s: number;
  gpus: number;
  /** Which worker emits the first token, and how. */
  first_token: string;
  /** How requests are dealt to the workers. */
  dealing: string;
}

/** The prefix cache of a simulation: off, hashed blocks (vLLM, TensorRT-LLM) or a radix tree (SGLang). */
export type SimulationPrefixCache = 'off' | 'block' | 'radix';

/** simulate(): the serving simulation, SI units. */
export interface SimulationResult {
  label: 'ESTIMATED';
  /** What the figures are: "simulated: iteration-level continuous batching, plain roofline, no engine", ... */
  method: string;
  model: string;
  gpu: string;
  precision: string;
  /** GPUs of the replica: tensor_parallel x expert_parallel (disaggregated: of every worker). */
  gpus: number;
  engine: string | null;
  engine_fitted: boolean;
  engine_fit_rows: number;
  workload: {
    arrivals: SimulationArrivals;
    num_requests: number;
    /** [min, max] (equal: fixed); null for a trace. */
    input_tokens: Range | null;
    output_tokens: Range | null;
    seed: number;
    warmup_requests: number;
    slo_ttft_s: number | null;
    slo_tpot_s: number | null;
    /** Tokens of the shared system prompt at the start of every prompt. */
    prefix_tokens: number;
    /** Distinct prompts the requests cycle through (0: all unique). */
    prompt_pool: number;
    /** Turns per session (1: single requests). */
    turns: number;
    think_time_s: number;
    /** A length preset (data/workloads.json), or null. */
    dataset: string | null;
  };
  scheduler: {
    max_num_seqs: number;
    max_num_batched_tokens: number;
    chunked_prefill: boolean;
    policy: SimulationPolicy;
    block_size: number;
    /** off, block (vLLM, TensorRT-LLM: hashed blocks) or radix (SGLang). */
    prefix_caching: SimulationPrefixCache;
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
    expert_parallel: number;
    /** Attention ranks, each its own batch; a divisor of expert_parallel (no extra GPUs). */
    attention_data_parallel: number;
    /** Busiest EP rank's routed tokens / the mean. */
    expert_imbalance: number;
    kv_cache_precision: PrecisionName | null;
  };
  /** Where the *_range figures come from, or why there are none. */
  ranges_source: string;
  /** null, or which points are the simulator's x a fitted band's median (the band excludes the simulator's figure). */
  point_correction: string | null;
  /** Disaggregated serving only. */
  disaggregation?: DisaggregatedLayout;
  /** Speculative decoding as simulated (the method's defaults filled in); null when off. */
  speculative: {
    label: 'ESTIMATED';
    method: 'draft_model' | 'mtp' | 'eagle3';
    draft: string | null;
    speculative_tokens: number;
    /** Acceptance at each draft position given the earlier ones (the last repeats). */
    acceptance_rate: number[];
    expected_tokens_per_step: number;
  } | null;
  /** The benchmark client whose conventions the points' `harness` figures follow (data/harnesses.json); null: none. */
  harness: {
    id: string;
    name: string;
    itl: 'chunk_gaps' | 'request_mean';
    warmup_requests: number;
    default_requests: number;
    client_overhead_s: number;
    client_overhead_label: 'ESTIMATED';
    source: string;
  } | null;
  points: SimulationPoint[];
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
  /** Interconnect domains (nodes) the layout's GPUs fill: ceil(gpus / interconnect_domain_size). */
  nodes: number;
  /** Nodes > 1: the GPU-to-GPU rate per direction the traffic crossing nodes is charged at; else null. */
  inter_node_bandwidth_bytes_per_s: number | null;
  /** Nodes > 1: which traffic crosses nodes and at which link, in words; else "". */
  inter_node: string;
  /** Null in training. */
  ttft_s: number | null;
  /** Null in training. */
  tpot_s: number | null;
  /** Training: one optimizer step of the batch (the estimate's, with its fine-tuning method); else null. */
  training_step_s: number | null;
  /** ttft_s + (num_generated_tokens - 1) x tpot_s (training: the step): what `fastest` minimises. */
  request_latency_s: number | null;
  /** Output tokens/s of the whole batch or concurrency, all replicas (training: trained tokens/s). */
  tokens_per_s: number | null;
  /** All GPUs. */
  cost_per_hour_usd: number;
  /** What `cheapest` minimises (training: per million trained tokens). */
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
  /** Layouts for a training step (training: true) rather than serving. */
  training: boolean;
  /** The training step's method (training_analysis.fine_tuning); null for serving. */
  fine_tuning: 'full' | 'lora' | 'qlora' | null;
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
  /** The SLO search (issue 28): present when the request gives an SLO, an objective or a request rate. */
  search?: PlanSearch;
}

/** One configuration of the SLO search at one load, as `flopcast serve` shows it (seconds, tokens/s, USD). */
export interface PlanSearchPoint {
  /** The device (a request's "gpu" may list several to compare). */
  gpu: string;
  engine: string;
  precision: Precision;
  kv_cache_precision: Precision;
  tp: number;
  ep: number;
  attention_dp: number;
  replicas: number;
  gpus: number;
  max_num_seqs: number;
  max_num_batched_tokens: number;
  chunked_prefill: boolean;
  /** MTP draft tokens; 0: off. */
  speculative_tokens: number;
  /** The whole deployment's traffic (one of the two; null otherwise). */
  concurrency: number | null;
  request_rate: number | null;
  /** Clients per replica in a closed loop; 0 with a request rate. */
  replica_concurrency: number;
  /** At the SLO percentile. */
  ttft_s: number;
  tpot_s: number;
  e2e_s: number;
  /** The fitted engine's residual bands around the simulator's figures; null without a fit. */
  ttft_range: [number, number] | null;
  tpot_range: [number, number] | null;
  output_tokens_per_s: number;
  output_tokens_per_s_per_gpu: number;
  /** Prompt and output tokens per second, per GPU. */
  total_tokens_per_s_per_gpu: number;
  tokens_per_s_per_user: number;
  goodput_requests_per_s: number;
  cost_per_hour_usd: number;
  usd_per_million_output_tokens: number;
  keeps_up: boolean;
  meets: boolean;
  /** limit / figure - 1 per SLO given (negative: missed); null where no limit. */
  ttft_margin: number | null;
  tpot_margin: number | null;
  e2e_margin: number | null;
  /** The SLO with the least margin ("ttft", "tpot", "e2e"), or "throughput" (an open loop that falls behind). */
  binding: string | null;
  /** The `flopcast serve` arguments that run this point's replica (or its disaggregated pools). */
  serve_args: string[];
  /**
   * Disaggregated serving: prefill_workers of prefill_tp GPUs and decode_workers of decode_tp x ep
   * GPUs (tp, ep and attention_dp above are the decode pool's; replicas 1); null: aggregated.
   */
  disaggregated: {
    prefill_workers: number;
    prefill_tp: number;
    decode_workers: number;
    decode_tp: number;
  } | null;
  /**
   * Ranked points: the engine's own launch command for one replica, or a disaggregated
   * configuration's decode worker (flags from data/engines' launch tables).
   */
  launch: PlanLaunchCommand | null;
  /** Ranked disaggregated points: a prefill worker's command; null otherwise. */
  prefill_launch: PlanLaunchCommand | null;
}

export interface PlanLaunchCommand {
  command: string;
  args: string[];
  /** The config file the command names (TensorRT-LLM's --extra_llm_api_options), and its lines. */
  yaml_file: string | null;
  yaml: string[];
  /** Settings the engine takes no flag for, with why. */
  left_out: string[];
  docs_version: string;
}

export interface PlanSearch {
  label: 'ESTIMATED';
  method: string;
  question: {
    /** The GPUs searched: the request's "gpu", or each of its list. */
    devices: string[];
    gpus: number;
    budget_usd_per_hour: number | null;
    concurrency: number | null;
    request_rate: number | null;
    input_tokens: number;
    output_tokens: number;
    /** The workload (the request's "simulation" part): uniform length ranges, a dataset, a shared prefix, sessions. */
    input_tokens_range: [number, number] | null;
    output_tokens_range: [number, number] | null;
    dataset: string | null;
    prefix_tokens: number;
    prompt_pool: number;
    turns: number;
    think_time_s: number;
    seed: number;
    slo_ttft_s: number | null;
    slo_tpot_s: number | null;
    slo_e2e_s: number | null;
    slo_percentile: number;
    optimize: 'goodput' | 'cost' | 'gpus';
  };
  configurations: number;
  fitting: number;
  closed_form_points: number;
  simulations: number;
  /** Why the first beats the next, and what binds it. */
  why: string;
  /** Meeting every SLO, best first, one per configuration. */
  ranked: PlanSearchPoint[];
  /** Simulated points not dominated in (output tokens/s per GPU, tokens/s per user), by per-user speed. */
  pareto: PlanSearchPoint[];
  /** Simulated points that miss an SLO. */
  rejected: PlanSearchPoint[];
  notes: string[];
}

/** Saturation is a range, not a cliff: whether the queue stays bounded with faster and slower steps. */
export interface SaturationCheck {
  /** The step-time multipliers of the fast and slow reruns (the engine's throughput band, at least 0.8 and 1.25). */
  step_time_scales: [number, number];
  fast: 'keeps up' | 'queue grows';
  point: 'keeps up' | 'queue grows';
  slow: 'keeps up' | 'queue grows';
  /** The fast and slow reruns fall in different regimes: the TTFT range spans both. */
  near_capacity: boolean;
  /** Mean TTFT of the fast and the slow rerun, seconds. */
  ttft_mean_s: [number, number];
  e2e_mean_s: [number, number];
  note: string;
}
