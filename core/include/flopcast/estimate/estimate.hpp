#pragma once
// The estimator: pure functions from (model, settings, hardware) to numbers in SI base
// units. FLOPs are counts (a multiply-add is 2), memory is bytes, time is seconds,
// energy is joules. No I/O happens here.
#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include "flopcast/formats/precision.hpp"
#include "flopcast/hardware/hardware.hpp"
#include "flopcast/model/model.hpp"

namespace flopcast {

// Where an efficiency came from: it sets how wide the reported ranges are.
// fitted: an engine profile's efficiencies, fitted to the validation table (data/engines/).
enum class efficiency_origin : std::uint8_t { default_value, explicit_value, calibrated, fitted };

// An engine iteration's explicit costs beside the roofline (engine profiles fitted to
// data/measurements/; all 0: the plain roofline). Every step (a prefill, a decode step, a mixed
// step) costs max(compute, memory) + communication + per_step_s + per_sequence_s x its sequences
// + layers x (per_layer_s + launches_per_layer x per_kernel_launch_s), and its matmuls run at
// compute_efficiency x T / (T + gemm_half_tokens) for T tokens in the step (GEMM efficiency
// grows with the tokens a step multiplies; 0: constant), and decode attention reads the cache at
// mem_efficiency x kv_read_efficiency.
struct step_costs {
  double per_step_s = 0;           // scheduler, sampling, host overhead per iteration
  double per_sequence_s = 0;       // per sequence in the step (input preparation, sampling)
  double per_layer_s = 0;          // per decoder layer per step
  double per_kernel_launch_s = 0;  // per kernel launch ...
  double launches_per_layer = 0;   // ... of this many per layer (0: none counted)
  double gemm_half_tokens = 0;     // tokens in a step at which GEMMs reach half their efficiency
  // Decode attention reads the cached K/V at mem_efficiency x this (paged-attention kernels
  // stream many short per-sequence blocks; weights stream at mem_efficiency).
  double kv_read_efficiency = 1;
  [[nodiscard]] bool none() const noexcept {
    return per_step_s == 0 && per_sequence_s == 0 && per_layer_s == 0 &&
           (per_kernel_launch_s == 0 || launches_per_layer == 0) && gemm_half_tokens == 0 && kv_read_efficiency == 1;
  }
};

// measured / predicted of an engine's validation rows, p10 and p90 (data/engines/, fitted with
// the profile): the range of a figure is [value x low, value x high]. Time ratios (a rate's
// measured/predicted is inverted). rows == 0: no rows, the efficiency spread is used instead.
struct residual_band {
  double low = 1, high = 1;
  std::int64_t rows = 0;
  double median = 1;  // p50 of the same ratios (low <= median <= high)
};
// A band whose p10-p90 excludes 1 (every central row measured above, or every one below, the
// model's figure): the fit is biased there, so the figure shown is the model's x the band's
// median (the engine's fitted median residual) and its range stays [model x low, model x high],
// which contains it. Elsewhere the model's own figure is shown (factor 1).
[[nodiscard]] inline bool band_biased(const residual_band& b) noexcept {
  return b.rows > 0 && (b.low > 1 || b.high < 1);
}
[[nodiscard]] inline double band_correction(const residual_band& b) noexcept { return band_biased(b) ? b.median : 1.0; }
struct engine_bands {
  residual_band prefill;     // single-stream time to first token / prefill time
  residual_band decode;      // time per output token
  residual_band throughput;  // serving output tokens/s as a time (1 / rate)
  residual_band ttft_load;   // time to first token under load
};

// A multi-GPU layout (all 1: one GPU).
struct parallel_layout {
  std::int64_t tensor_parallel = 1;
  std::int64_t pipeline_parallel = 1;
  std::int64_t data_parallel = 1;
  std::int64_t expert_parallel = 1;
  // Attention data parallelism (serving MoE models: SGLang --enable-dp-attention, TensorRT-LLM
  // enable_attention_dp, vLLM --data-parallel-size with --enable-expert-parallel): the
  // tensor_parallel x expert_parallel GPUs of a replica form attention_data_parallel attention
  // ranks, each holding the attention and dense parts sharded by tensor_parallel and running its
  // own batch; the routed experts stay spread over the expert_parallel ranks. A divisor of
  // expert_parallel; adds no GPUs (README "Expert and attention-data parallelism").
  std::int64_t attention_data_parallel = 1;
  // Routing imbalance: the busiest EP rank's routed tokens / the mean (1 = uniform routing).
  double expert_imbalance = 1.0;
  bool sequence_parallel = false;                            // training: shard norm/residual activations over TP ranks
  std::int64_t num_microbatches = 1;                         // pipeline microbatches per step (training bubble)
  std::optional<double> interconnect_bandwidth_bytes_per_s;  // per direction; default: GPU's / 2
  double link_latency_s = 2e-6;                              // per ring step / point-to-point message
  [[nodiscard]] std::int64_t total_gpus() const {
    return tensor_parallel * pipeline_parallel * data_parallel * expert_parallel;
  }
  [[nodiscard]] bool trivial() const { return total_gpus() == 1; }
};

// LoRA target modules (a bit set over the linear layers of a transformer layer).
// q, k, v, o: the attention projections (and the cross-attention ones); for MLA, q is the
// query path (q_proj, or q_a_proj and q_b_proj), k or v the kv_a_proj_with_mqa and kv_b_proj
// pair. gate, up, down: the MLP projections (every routed and shared expert of an MoE
// layer; a non-gated MLP has up and down only). Routers, heads and embeddings are never
// adapted.
enum lora_module : std::uint32_t {
  lora_q = 1u << 0,
  lora_k = 1u << 1,
  lora_v = 1u << 2,
  lora_o = 1u << 3,
  lora_gate = 1u << 4,
  lora_up = 1u << 5,
  lora_down = 1u << 6,
};
inline constexpr std::uint32_t lora_attention_modules = lora_q | lora_k | lora_v | lora_o;
inline constexpr std::uint32_t lora_mlp_modules = lora_gate | lora_up | lora_down;
inline constexpr std::uint32_t lora_all_modules = lora_attention_modules | lora_mlp_modules;

struct lora_settings {
  std::int64_t rank = 0;  // 0: full fine-tuning
  std::uint32_t targets = lora_all_modules;
  // Storage of the frozen base: default the training precision (plain LoRA); int8 or int4
  // quantise the base's linear layers (QLoRA: int4 NF4 with double quantisation).
  std::optional<precision> base_precision;
};

struct settings {
  std::int64_t batch_size = 1;
  std::int64_t sequence_length = 2048;  // prompt (encoder input) tokens
  std::int64_t num_generated_tokens = 128;
  precision weight_precision = precision::bf16;
  std::optional<precision> kv_cache_precision;  // default: default_kv_precision(weights) (precision.hpp)
  // A precision per part of the model (experts=mxfp4, attention=bf16); unset parts use
  // weight_precision. Index: weight_component.
  std::array<std::optional<precision>, weight_component_count> component_precision{};
  bool training = false;
  // Training with LoRA/QLoRA adapters (rank > 0): the training memory, fit and step time are those
  // of the adapters' step (the frozen base at lora.base_precision). rank 0: full fine-tuning.
  lora_settings lora;
  optimizer optim = optimizer::adam;
  bool gradient_checkpointing = true;
  bool causal = false;              // count only the attention pairs a causal mask keeps
  bool flash_attention = true;      // activation estimate without the score matrix
  double compute_efficiency = 0.5;  // fraction of peak FLOP/s achieved
  double mem_efficiency = 0.8;      // fraction of peak memory bandwidth achieved
  efficiency_origin compute_efficiency_origin = efficiency_origin::default_value;
  efficiency_origin mem_efficiency_origin = efficiency_origin::default_value;
  std::string calibration_source;  // set when an efficiency was calibrated
  std::string calibration_store;   // where that calibration was read from (a file path, or "request")
  // The engine the figures are for ("" : the plain roofline): its fitted costs and ranges, set by
  // apply_engine() (engine.hpp) from its profile for the device.
  std::string engine;
  // How the engine was chosen when the request named none (serving/engine.hpp default_engine_for),
  // or "--engine none: ..." when it asked for the plain roofline; empty when it named one.
  std::string engine_rule;
  step_costs costs;
  engine_bands bands;
  double power_utilization = 0.85;
  double carbon_intensity_g_per_kwh = 400.0;
  std::optional<double> cost_per_hour_usd;  // default: the GPU's
  // The one fit rule (detail::usable_memory): capacity x the device's usable share (unified
  // memory) x gpu_memory_utilization - gpu_memory_reserve_bytes. Unset: 0.9 for inference
  // (vLLM's default: "the fraction of GPU memory to be used for the model executor", vLLM engine
  // arguments), 1 for training (a training process owns the device).
  std::optional<double> gpu_memory_utilization;
  double gpu_memory_reserve_bytes = 0;  // per GPU, not available to the model (fit check)
  bool layer_table = false;             // output: a row per layer in details.flops.layers
  bool operator_table = false;          // output: the per-operator tables in details.operators (operators.hpp)
  parallel_layout parallel;
  // Exact bytes of the stored weights (a checkpoint's tensors, from its header). When set, the
  // inference weights' memory is this, and the roofline's weight traffic uses its mean bytes per
  // parameter, instead of parameters x the precision's bytes per weight.
  std::optional<double> weight_bytes;
  std::string weight_bytes_source;  // where weight_bytes came from, for output (the CLI: the file); may be empty
};

// The documented spread of achieved efficiencies behind every latency and throughput
// range: multiplicative factors on the efficiency in use (clamped to 1).
//  compute: prefill/training MFU seen publicly spans ~35-60% (PaLM 46.2%, Chowdhery et al.
//    2022; Megatron-LM 52% of A100 peak, Narayanan et al. 2021; Llama 3 405B 38-43%,
//    Dubey et al. 2024): 0.5 x [0.7, 1.2].
//  memory: decode bandwidth utilisation seen publicly spans ~55-90% (Databricks, "LLM
//    Inference Performance Engineering", 2023: ~60% MBU at batch 1 on A100; vLLM and
//    TensorRT-LLM large-batch decode 80-90%): 0.8 x [0.6875, 1.125].
//  calibrated efficiencies: +-10%.
struct efficiency_spread {
  double low, high;
};
[[nodiscard]] efficiency_spread compute_spread(efficiency_origin o) noexcept;
[[nodiscard]] efficiency_spread memory_spread(efficiency_origin o) noexcept;
[[nodiscard]] const char* range_source() noexcept;

// Throws flopcast::error(invalid_argument) naming the field ("/batch_size", ...).
void validate(const settings& s);

// FLOPs of one pass by component.
struct flops_breakdown {
  double embedding = 0;  // position/type additions and scaling; the table lookup is 0
  double attention = 0;  // = sum of attention_detail
  double mlp = 0;        // dense MLP, experts on the active path, router
  double norm = 0;
  double output_head = 0;  // LM head (or pooler) and, for OPT-350m, the output projection
  double mixer = 0;        // linear-attention and state-space mixers (projections, conv, recurrence)
  double total = 0;
};

struct attention_detail {
  double qkv_projection = 0;    // incl. MLA low-rank paths, q/k norms and biases
  double rotary = 0;            // RoPE rotations
  double attention_scores = 0;  // Q x K^T (+ ALiBi / relative bias additions)
  double softmax = 0;           // scale, max, exp, sum, normalise: 5 per score
  double attention_values = 0;  // scores x V
  double output_projection = 0;
  double cross_kv_projection = 0;  // encoder-decoder: K/V of the encoder output
};

struct layer_flops {
  double attention = 0;
  double mlp = 0;
  double norm = 0;
  double mixer = 0;
  [[nodiscard]] double total() const { return attention + mlp + norm + mixer; }
};

struct pass_flops {
  flops_breakdown parts;
  attention_detail attention;
  std::array<layer_flops, max_layer_groups> per_layer{};  // one layer of each group
};

struct memory_breakdown {
  double weights = 0;
  // The weights by part (weight_component order; norms go with their part's 16-bit copy), their
  // mean bits per weight, and where the bytes came from: "format" (parameters x bits),
  // "gguf_plan" (a llama.cpp preset planned tensor by tensor) or "checkpoint" (weight_bytes).
  std::array<double, weight_component_count> weights_by_component{};
  double weights_bits_per_weight = 0;
  const char* weights_source = "format";
  // Bytes per parameter of each part and of the norms, as the weights above were costed: what a
  // layout's per-GPU share of each part weighs (parallel.cpp).
  std::array<double, weight_component_count> bytes_per_parameter{};
  double usable_gpu_memory = 0;  // what one GPU may hold (the fit rule: utilisation share, reserve)
  double norm_bytes_per_parameter = 2;
  double kv_cache = 0;            // at the end of the request (prompt + generated tokens)
  double kv_cache_prompt = 0;     // after prefill
  double kv_cache_per_token = 0;  // one token of one sequence, all layers (full-attention growth)
  // The constant state of linear-attention and state-space layers for the whole batch (part of
  // kv_cache and kv_cache_prompt: it takes the cache's place in those layers).
  double recurrent_state = 0;
  double activations = 0;  // ESTIMATE: peak live activations during prefill
  double total = 0;        // inference: weights + kv_cache + activations
  // Training (when settings.training): replaces total for fits_on_gpu; the step model of
  // analyze_training() (training.hpp), recompute full with gradient_checkpointing.
  double train_weights = 0;
  double train_gradients = 0;
  double train_optimizer_state = 0;                  // incl. fp32 master weights under mixed precision
  double train_master_weights = 0;                   // the fp32 master copy within train_optimizer_state
  double train_activations = 0;                      // ESTIMATE
  double train_activations_replicated_fraction = 0;  // the part TP leaves unsharded without SP
  double train_total = 0;
  double gpu_memory = 0;
  bool fits_on_gpu = false;  // only meaningful with a GPU
};

enum class bound : std::uint8_t { compute, memory };

// [low, high] of a figure over the efficiency spread (low latency at high efficiency).
struct figure_range {
  double low = 0;
  double high = 0;
};
[[nodiscard]] const char* to_string(bound b) noexcept;

struct performance {
  compute_unit compute_precision = compute_unit::bf16;  // the device peak the matmuls run at
  bool weight_only_path = false;                        // weights dequantised to a 16-bit format before the matmuls
  double dequant_flops_prefill = 0;  // dequantisation work of the weights a prefill reads (at the fp32 rate)
  double dequant_flops_step = 0;     // the same for one decode step
  double peak_flops_per_s = 0;
  double memory_bandwidth_bytes_per_s = 0;
  double prefill_flops = 0;
  double prefill_bytes = 0;
  double prefill_compute_s = 0;
  double prefill_memory_s = 0;
  double prefill_latency_s = 0;  // time to first token
  bound prefill_bound = bound::compute;
  std::int64_t decode_steps = 0;   // num_generated_tokens - 1 (the first token comes from prefill)
  double decode_first_step_s = 0;  // step at context = sequence_length
  // Its memory time (bytes at the achieved bandwidth, the cache's reads at the KV-read efficiency).
  double decode_first_step_memory_s = 0;
  // What the ranges below come from: static text or an interned engine note (never freed), so an
  // estimate allocates nothing for it.
  std::string_view range_source;
  double decode_first_step_flops = 0;
  double decode_first_step_bytes = 0;
  bound decode_bound = bound::memory;           // of the first step
  double decode_total_s = 0;                    // all decode steps, exact sum over the growing context
  double decode_latency_per_token_s = 0;        // mean step time (first step if no steps)
  double decode_tokens_per_second = 0;          // batch / mean step time
  double decode_ceiling_tokens_per_second = 0;  // batch x bandwidth / bytes of the first step
  // The speed of light of one device: every FLOP at the compute peak, every byte (weights, the KV
  // cache) at the memory bandwidth, no fixed cost and no GEMM curve. No figure above is faster.
  double speed_of_light_prefill_s = 0;
  double speed_of_light_per_token_s = 0;  // mean over the decode steps; 0 for encoders
  double total_request_latency_s = 0;
  double training_step_s = 0;  // the training-step phase roofline (training.hpp: = analyze_training().step)
  double energy_prefill_joules = 0;
  double energy_total_joules = 0;  // whole request (training: one step)
  double co2_grams = 0;
  double cost_usd = 0;           // all the configuration's GPUs
  double cost_per_hour_usd = 0;  // one GPU's price
  // GPUs of the configuration. With a layout the headline figures above (prefill and decode
  // latency, tokens/s, request latency, training step, energy, CO2, cost and their ranges) are the
  // layout's, for all its GPUs; the roofline breakdown (FLOPs, bytes, compute/memory times, first
  // step, bound, ceiling) stays one device's run of one replica's batch.
  std::int64_t gpus = 1;
  // Ranges over the efficiency spread.
  figure_range prefill_latency_range, decode_latency_range, decode_tokens_per_second_range, total_request_latency_range,
      training_step_range, energy_total_range, cost_range;
  double compute_efficiency_low = 0, compute_efficiency_high = 0;
  double mem_efficiency_low = 0, mem_efficiency_high = 0;
};

// Multi-GPU view of the same request (present with a GPU; trivial layout = 1 GPU).
struct parallel_result {
  parallel_layout layout;
  double interconnect_bandwidth_bytes_per_s = 0;  // per direction, as used
  std::int64_t total_gpus = 1;
  std::int64_t layers_per_stage = 0;  // the largest stage
  std::int64_t batch_per_replica = 0;
  double weights_per_gpu = 0;
  double kv_cache_per_gpu = 0;
  double activations_per_gpu = 0;     // ESTIMATE
  double training_state_per_gpu = 0;  // weights + gradients + optimizer state (training)
  double memory_per_gpu = 0;
  bool fits_per_gpu = false;
  // Communication (seconds).
  double tp_allreduce_bytes = 0;          // one all-reduce message in prefill
  double tp_allreduce_s = 0;              // all TP all-reduces of the prefill
  double tp_allreduce_decode_step_s = 0;  // all TP all-reduces of one decode step
  double pp_send_s = 0;                   // stage-to-stage sends of the prefill
  double pp_send_decode_step_s = 0;
  double pp_bubble_fraction = 0;  // training: (pp-1)/(m+pp-1)
  double ep_alltoall_s = 0;       // prefill dispatch + combine
  double ep_alltoall_decode_step_s = 0;
  double dp_allreduce_s = 0;  // training: gradient all-reduce per step
  // Latency with communication included.
  double prefill_latency_s = 0;
  double decode_latency_per_token_s = 0;
  double decode_tokens_per_second = 0;  // whole batch over all replicas
  double total_request_latency_s = 0;
  double training_step_s = 0;  // per-replica step / (tp x pp) / (1 - bubble) + communication
};

enum note : std::uint32_t {
  note_none = 0,
  note_compute_fallback = 1u << 0,  // GPU lacks the precision: a slower peak is used
  note_mla_absorbed_decode = 1u << 1,
  note_encoder_no_decode = 1u << 2,
  note_causal_ignored_encoder = 1u << 3,
  note_sliding_window = 1u << 4,
  note_moe_expected_experts = 1u << 5,
  note_calibrated = 1u << 6,
  note_kv_replicated = 1u << 7,    // more TP ranks than KV heads: heads replicated
  note_recurrent_state = 1u << 8,  // linear-attention / state-space layers keep a constant state
  note_chunked_attention = 1u << 9,
  note_sparse_attention = 1u << 10,
  note_vision_not_counted = 1u << 11,  // a vision tower of unknown type
  note_exact_weight_bytes = 1u << 12,
  note_weight_only_path = 1u << 13,      // weights dequantised to 16-bit for the matmuls
  note_native_low_precision = 1u << 14,  // matmuls in the format's own FP8/FP6/FP4 units
  note_fp16_accumulate = 1u << 15,       // llama.cpp's fp16-accumulate rate
  note_preset_planned = 1u << 16,        // a llama.cpp preset planned tensor by tensor
  note_preset_approximated = 1u << 17,   // a preset costed at its base type (architecture not planned)
  note_context_exceeded = 1u << 18,      // prompt + generated tokens beyond the model's context
  note_beyond_domain = 1u << 19,         // a TP/EP group larger than the NVLink domain: scale-out rate
  note_speed_of_light = 1u << 20,        // a figure was held at the speed of light
};

// The weight bytes one pass reads as a function of its tokens: every weight once, the token
// embedding only by the rows gathered (a tied table is read whole for the head), and MoE experts
// as far as the tokens reach them (expected distinct experts, uniform routing), each part at its
// own bytes per parameter. Built by the estimator (roofline.cpp); the serving simulator's step
// model reads it per step.
struct weight_traffic {
  double fixed_params = 0, fixed_bytes = 0;  // everything but the embedding tables
  double vocab = 0, embed_width = 0, hidden = 0, positions = 0, type_vocab = 0, embedding_bytes_per_param = 0;
  bool tied_head = false;
  double experts = 0, experts_per_token = 0, expert_params = 0, expert_bytes_per_param = 0;  // per expert x layers
  // Bytes read by a pass over `tokens` tokens; `params` receives the parameters read.
  [[nodiscard]] double read(double tokens, double& params) const noexcept;
};

struct estimate_result {
  parameter_breakdown parameters;
  pass_flops forward;         // one forward pass over batch x sequence (training-style)
  double backward_flops = 0;  // 2 x forward
  pass_flops prefill;         // inference prefill (head on the last position only)
  pass_flops decode_step;     // one decode step at context = sequence_length, whole batch
  memory_breakdown memory;
  bool has_performance = false;  // false without a GPU
  performance perf;
  parallel_result parallel;  // with a GPU
  precision kv_precision = precision::bf16;
  std::uint32_t notes = note_none;
};

[[nodiscard]] estimate_result estimate(const model_spec& model, const settings& s, const hardware_spec* gpu);

// The pieces, for callers who need one number (all per whole batch).
[[nodiscard]] pass_flops forward_flops(const model_spec& m, std::int64_t batch, std::int64_t tokens, bool causal);
// KV cache bytes for `tokens` cached tokens per sequence.
[[nodiscard]] double kv_cache_bytes(const model_spec& m, std::int64_t batch, double tokens, precision kv,
                                    std::int64_t encoder_tokens);

// The format one part of the model is stored in under s: its own, else s.weight_precision (a
// narrow non-GGML format leaves the embedding, the LM head and a vision tower in bf16).
[[nodiscard]] precision precision_of(const settings& s, weight_component c);

// Human-readable text for a note bit.
[[nodiscard]] const char* note_text(note n) noexcept;

}  // namespace flopcast
