#pragma once
// The estimator: pure functions from (model, settings, hardware) to numbers in SI base
// units. FLOPs are counts (a multiply-add is 2), memory is bytes, time is seconds,
// energy is joules. No I/O happens here.
#include <array>
#include <cstdint>
#include <optional>

#include "flopcast/hardware.hpp"
#include "flopcast/model.hpp"
#include "flopcast/precision.hpp"

namespace flopcast {

struct settings {
  std::int64_t batch_size = 1;
  std::int64_t sequence_length = 2048;     // prompt (encoder input) tokens
  std::int64_t num_generated_tokens = 128;
  precision weight_precision = precision::bf16;
  std::optional<precision> kv_cache_precision;  // default: weights', fp16 for int8/int4
  bool training = false;
  optimizer optim = optimizer::adam;
  bool gradient_checkpointing = true;
  bool causal = false;           // count only the attention pairs a causal mask keeps
  bool flash_attention = true;   // activation estimate without the score matrix
  double compute_efficiency = 0.5;
  double mem_efficiency = 0.8;
  double power_utilization = 0.85;
  double carbon_intensity_g_per_kwh = 400.0;
  std::optional<double> cost_per_hour_usd;  // default: the GPU's
};

// Throws flopcast::error(invalid_argument) naming the field ("/batch_size", ...).
void validate(const settings& s);

// FLOPs of one pass by component.
struct flops_breakdown {
  double embedding = 0;    // position/type additions and scaling; the table lookup is 0
  double attention = 0;    // = sum of attention_detail
  double mlp = 0;          // dense MLP, experts on the active path, router
  double norm = 0;
  double output_head = 0;  // LM head (or pooler) and, for OPT-350m, the output projection
  double total = 0;
};

struct attention_detail {
  double qkv_projection = 0;     // incl. MLA low-rank paths, q/k norms and biases
  double rotary = 0;             // RoPE rotations
  double attention_scores = 0;   // Q x K^T (+ ALiBi / relative bias additions)
  double softmax = 0;            // scale, max, exp, sum, normalise: 5 per score
  double attention_values = 0;   // scores x V
  double output_projection = 0;
  double cross_kv_projection = 0;  // encoder-decoder: K/V of the encoder output
};

struct layer_flops {
  double attention = 0;
  double mlp = 0;
  double norm = 0;
  [[nodiscard]] double total() const { return attention + mlp + norm; }
};

struct pass_flops {
  flops_breakdown parts;
  attention_detail attention;
  std::array<layer_flops, max_layer_groups> per_layer{};  // one layer of each group
};

struct memory_breakdown {
  double weights = 0;
  double kv_cache = 0;            // at the end of the request (prompt + generated tokens)
  double kv_cache_prompt = 0;     // after prefill
  double kv_cache_per_token = 0;  // one token of one sequence, all layers (full-attention growth)
  double activations = 0;         // ESTIMATE: peak live activations during prefill
  double total = 0;               // inference: weights + kv_cache + activations
  // Training (when settings.training): replaces total for fits_on_gpu.
  double train_weights = 0;
  double train_gradients = 0;
  double train_optimizer_state = 0;  // incl. fp32 master weights under mixed precision
  double train_activations = 0;      // ESTIMATE
  double train_total = 0;
  double gpu_memory = 0;
  bool fits_on_gpu = false;          // only meaningful with a GPU
};

enum class bound : std::uint8_t { compute, memory };
[[nodiscard]] const char* to_string(bound b) noexcept;

struct performance {
  precision compute_precision = precision::bf16;  // the peak actually used
  double peak_flops_per_s = 0;
  double memory_bandwidth_bytes_per_s = 0;
  double prefill_flops = 0;
  double prefill_bytes = 0;
  double prefill_compute_s = 0;
  double prefill_memory_s = 0;
  double prefill_latency_s = 0;      // time to first token
  bound prefill_bound = bound::compute;
  std::int64_t decode_steps = 0;     // num_generated_tokens - 1 (the first token comes from prefill)
  double decode_first_step_s = 0;    // step at context = sequence_length
  double decode_first_step_flops = 0;
  double decode_first_step_bytes = 0;
  bound decode_bound = bound::memory;  // of the first step
  double decode_total_s = 0;         // all decode steps, exact sum over the growing context
  double decode_latency_per_token_s = 0;   // mean step time (first step if no steps)
  double decode_tokens_per_second = 0;     // batch / mean step time
  double decode_ceiling_tokens_per_second = 0;  // batch x bandwidth / bytes of the first step
  double total_request_latency_s = 0;
  double training_step_s = 0;        // forward + backward (+ recompute) at compute_efficiency
  double energy_prefill_joules = 0;
  double energy_total_joules = 0;    // whole request (training: one step)
  double co2_grams = 0;
  double cost_usd = 0;
  double cost_per_hour_usd = 0;
};

enum note : std::uint32_t {
  note_none = 0,
  note_compute_fallback = 1u << 0,   // GPU lacks the precision: a slower peak is used
  note_mla_absorbed_decode = 1u << 1,
  note_encoder_no_decode = 1u << 2,
  note_causal_ignored_encoder = 1u << 3,
  note_sliding_window = 1u << 4,
  note_moe_expected_experts = 1u << 5,
};

struct estimate_result {
  parameter_breakdown parameters;
  pass_flops forward;          // one forward pass over batch x sequence (training-style)
  double backward_flops = 0;   // 2 x forward
  pass_flops prefill;          // inference prefill (head on the last position only)
  pass_flops decode_step;      // one decode step at context = sequence_length, whole batch
  memory_breakdown memory;
  bool has_performance = false;  // false without a GPU
  performance perf;
  precision kv_precision = precision::bf16;
  std::uint32_t notes = note_none;
};

[[nodiscard]] estimate_result estimate(const model_spec& model, const settings& s,
                                       const hardware_spec* gpu);

// The pieces, for callers who need one number (all per whole batch).
[[nodiscard]] pass_flops forward_flops(const model_spec& m, std::int64_t batch,
                                       std::int64_t tokens, bool causal);
// KV cache bytes for `tokens` cached tokens per sequence.
[[nodiscard]] double kv_cache_bytes(const model_spec& m, std::int64_t batch, double tokens,
                                    precision kv, std::int64_t encoder_tokens);

// Human-readable text for a note bit.
[[nodiscard]] const char* note_text(note n) noexcept;

}  // namespace flopcast
