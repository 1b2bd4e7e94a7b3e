#pragma once
// The parts of the estimator, shared between estimate.cpp (orchestration and validation),
// flops.cpp (pass FLOPs), memory.cpp (KV cache, activations, training state) and
// roofline.cpp (peaks, traffic, decode sums). Private to the core.
#include <array>
#include <cstdint>
#include <optional>

#include "base/detail.hpp"
#include "estimate/rules.hpp"
#include "flopcast/estimate/estimate.hpp"
#include "flopcast/hardware/hardware.hpp"
#include "flopcast/model/model.hpp"

namespace flopcast {
struct training_settings;
}

namespace flopcast::detail {

struct training_core;

// ---- flops.cpp ----

// Keys a query at position `c` (0-based, c tokens before it) attends to.
[[nodiscard]] inline double keys_at(double c, std::int64_t window) {
  return window > 0 ? std::min(c + 1.0, d(window)) : c + 1.0;
}

// The keys softmax attention reads per query in a group: the sliding window, the local chunk
// (costed as a window of the chunk size: an upper bound for decode) or DeepSeek-V3.2's top-k
// selection; 0: every earlier key.
[[nodiscard]] inline std::int64_t attention_window(const model_spec& m, const layer_group& g) {
  if (g.window > 0) return g.window;
  if (g.chunk > 0) return g.chunk;
  return m.attention.index_topk;
}

// (query, key) pairs of a causal prefill of s tokens under a window (0: none), and in chunks of
// `chunk` (each query sees its own chunk's earlier tokens). Both are prefix sums over s.
[[nodiscard]] double causal_pairs(double s, std::int64_t window);
// The ranges' note when a fitted engine's residual bands set them: `used` names the bands.
[[nodiscard]] std::string engine_range_source(const std::string& engine, const std::string& used);
[[nodiscard]] double chunked_pairs(double s, std::int64_t chunk);
// A ring all-reduce of `bytes` over `ranks` at `bw` bytes/s per direction (parallel.cpp).
[[nodiscard]] double ring_allreduce_s(double bytes, std::int64_t ranks, double bw, double latency);
// TP all-reduces one layer of the group needs (parallel.cpp).
[[nodiscard]] double allreduces_per_layer(const model_spec& m, const layer_group& g);

enum class pass_kind { forward, prefill, decode };

// One pass over the whole batch. `context` is the decode position (tokens already cached).
[[nodiscard]] pass_flops run_pass(const model_spec& m, pass_kind kind, double batch, double seq, double context,
                                  bool causal);
// The same into `out`, which must be zero (pass_flops{}): no copy of the result.
void run_pass(const model_spec& m, pass_kind kind, double batch, double seq, double context, bool causal,
              pass_flops& out);

// FLOPs of one decode step per cached key and layer (the attention terms that scale with
// the context): those over the keys attention reads (attention_window) and, for
// DeepSeek-V3.2, the indexer's over every earlier key. Per group: its attention may be its own.
[[nodiscard]] double decode_flops_per_key(const model_spec& m, const layer_group& g);
[[nodiscard]] double decode_indexer_flops_per_key(const model_spec& m);

// ---- memory.cpp ----

// KV-cache elements per cached token per layer (self-attention only; DeepSeek-V3.2's indexer
// keys included), for a layer of group g.
[[nodiscard]] double kv_elements_per_token(const model_spec& m, const layer_group& g);
// Elements of the constant per-sequence state of one layer of the group: Gated DeltaNet's
// value heads x key_head_dim x value_head_dim, Mamba's inner x state, plus the conv window
// (conv_kernel - 1 inputs). 0 for attention-only layers.
[[nodiscard]] double state_elements_per_sequence(const model_spec& m, const layer_group& g);
// Tokens a group's attention layer caches after `tokens` tokens (window or chunk).
[[nodiscard]] inline double cached_tokens(const layer_group& g, double tokens) {
  const std::int64_t w = g.window > 0 ? g.window : g.chunk;
  return w > 0 ? std::min(tokens, d(w)) : tokens;
}

struct activation_estimate {
  double inference;
  double training;
  double training_replicated_fraction;  // norm inputs/outputs: not sharded by TP without SP
};
// ESTIMATES of activation memory (README, "What is exact and what is estimated"); training
// under s.gradient_checkpointing and s.flash_attention.
[[nodiscard]] activation_estimate estimate_activations(const model_spec& m, const settings& s);

// Bytes of training state per trainable parameter: weights and gradients in the training
// precision, optimizer state (8 for Adam(W), 4 for SGD momentum) plus a 4-byte fp32 master
// copy under 16-bit training (ZeRO, Rajbhandari et al. 2020, sec. 3.1: 16 for mixed Adam).
struct training_state_bytes {
  double weights, gradients, optimizer;
  double master;  // the fp32 master copy, part of optimizer (0 when the weights are fp32)
};
[[nodiscard]] training_state_bytes training_state_per_parameter(const settings& s);
// Whether a published training recipe exists for p (fp32/tf32/fp16/bf16, FP8 per-tensor and
// MXFP8 (Transformer Engine), FP8 blocks (DeepSeek-V3), NVFP4 (NVIDIA 2025)).
[[nodiscard]] bool trainable_in(precision p);

// The weights' memory by part (r.memory's weights fields; r.parameters set).
void fill_weights(const model_spec& m, const settings& s, estimate_result& r);
// Inference memory (KV cache, activations) after fill_weights(); r.parameters and r.kv_precision set.
void fill_inference_memory(const model_spec& m, const settings& s, estimate_result& r);
// The precision one part of the model is stored in: its own, else weight_precision (a narrow
// format leaves the embedding, the LM head and a vision tower in bf16).
[[nodiscard]] precision component_precision(const settings& s, weight_component c);

// ---- roofline.cpp ----

// Cost of a decode step as a function of the context c: base + sum over groups of
// slope * keys_at(c, window). Linear between window breakpoints, so sums are exact.
struct step_cost {
  double base = 0;
  std::array<double, max_layer_groups> per_key{};       // over the keys attention reads
  std::array<double, max_layer_groups> per_key_full{};  // over every earlier key (indexer)
  [[nodiscard]] double at(const model_spec& m, double c) const {
    double v = base;
    for (std::size_t i = 0; i < m.groups.size(); ++i)
      v += per_key[i] * keys_at(c, attention_window(m, m.groups[i])) + per_key_full[i] * keys_at(c, 0);
    return v;
  }
};

// Sum over c in [lo, hi] of max(f(c)/pf, g(c)/pg), exact.
[[nodiscard]] double sum_step_times(const model_spec& m, const step_cost& f, double pf, const step_cost& g, double pg,
                                    double lo, double hi);

// The weight traffic of a pass by its tokens (r's parameters and memory set).
[[nodiscard]] weight_traffic weight_traffic_of(const model_spec& m, const estimate_result& r);

// The band's median correction of a fitted engine's prefill and decode figures (roofline.cpp
// scales a whole pass or step by it; 1 where the engine is not fitted or the band holds 1).
struct band_factors {
  double prefill = 1, decode = 1;
};
[[nodiscard]] band_factors band_factors_of(const model_spec& m, const settings& s);
// The engine's fixed cost of one pass or step as a replica's figures count it (rules.hpp's
// fixed_step_s at the replica's batch, times the band's factor). A layout's ranks each pay it
// once per step; only the rest of a step divides among them (parallel.cpp), as the serving
// simulator's step model and serve()'s cycle charge it.
[[nodiscard]] double fixed_in_figures(const model_spec& m, const settings& s, double batch, bool decode);
// A device's dense peak for a compute unit (nullopt: it has none).
[[nodiscard]] std::optional<double> unit_peak(const hardware_spec& gpu, compute_unit u);
// The unit a matmul over weights stored in p runs in on the GPU: the first of the format's path
// the device has (fell_back: a native format the device lacks, run weight-only instead).
[[nodiscard]] compute_unit compute_unit_for(precision p, const hardware_spec& gpu, bool& fell_back);

// Peaks, traffic, latencies, ranges, energy and cost of r (FLOPs and memory already set).
// `train` is the training step (settings.training), else nullptr. Without `ranges` the figures
// over the efficiency spread (the ranges, their bands and range_source) are left unset.
// `traffic`: weight_traffic_of(m, r) when the caller has it.
void fill_roofline(const model_spec& m, const settings& s, const hardware_spec& gpu, const training_core* train,
                   estimate_result& r, bool ranges = true, const weight_traffic* traffic = nullptr);

// ---- estimate.cpp ----

// estimate() with the training step's options: `t` (its base is ignored, s is used) or,
// when null, the defaults estimate() implies (recompute full with gradient_checkpointing,
// none without; clipping on, unfused optimizer, no LoRA). `core` receives the training step
// when s.training.
[[nodiscard]] estimate_result estimate_with(const model_spec& m, const settings& s, const hardware_spec* gpu,
                                            const training_settings* t, training_core* core);

// What a run of estimates keeps from one call to the next (a sweep): the figures that depend only
// on the model, or on the model and its weight formats, computed by the same functions on the
// first call that needs them and copied while the model (by address: its record must not change
// during the run) and the formats stay the same. Results (with row_only, their rows) are bit for
// bit those of estimate().
struct estimate_reuse {
  // Set by the caller when validate() has passed for settings that differ from this call's only in
  // batch_size, sequence_length and num_generated_tokens, whose bounds the caller has checked.
  bool validated = false;
  // Set by a caller that reads only row_numbers(): the ranges (fill_roofline's `ranges`) and, for
  // a one-GPU layout, the multi-GPU view (which then changes no row figure) are left out.
  bool row_only = false;
  // count_parameters(*model).
  const model_spec* model = nullptr;
  parameter_breakdown parameters;
  // fill_weights(): the memory it fills and the notes it sets, for these formats of *model.
  bool has_weights = false;
  precision weight_precision = precision::bf16;
  std::array<std::optional<precision>, weight_component_count> component_precision{};
  std::optional<double> weight_bytes;
  memory_breakdown weights;
  std::uint32_t weights_notes = 0;
  weight_traffic traffic;  // weight_traffic_of() of those weights
};
[[nodiscard]] estimate_result estimate_with(const model_spec& m, const settings& s, const hardware_spec* gpu,
                                            const training_settings* t, training_core* core, estimate_reuse* reuse);

}  // namespace flopcast::detail
