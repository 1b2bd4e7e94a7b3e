#pragma once
// A reference decoder that really runs: Llama-style (RMSNorm, RoPE, GQA attention over a KV
// cache, SwiGLU MLP), random weights, multithreaded, for any config the estimator accepts
// that has that shape (llama, mistral, qwen2, qwen3, ...) and fits in memory; with
// decoder_options::moe_mla also MoE and MLA layers (validate-model: reference loops). Weights are fp32, bf16 or int8
// (weight-only: activations stay fp32); the KV cache is fp32 or int8, and every layer's cache is wrapped by the
// KV-cache profiler.
//
// The kernels count the FLOPs and bytes they execute in flopcast's conventions, by the
// estimator's components (op_counts), so a run can be set beside estimate() exactly:
// prefill runs the final norm on every position and the LM head on the last one of each
// sequence, attention covers the causal (windowed) pairs, as `settings.causal = true`.
//
// Random weights: a counter-based generator keyed by (seed, matrix, row), so the values do
// not depend on the thread count; scaled to keep activations O(1) (1/sqrt(fan-in)).
// Not modelled from the config: rope_theta (10000) and rms_norm_eps (1e-5), which change
// values, not cost.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "flopcast/measure/kernels.hpp"
#include "flopcast/measure/kv_cache.hpp"
#include "flopcast/measure/kv_profiler.hpp"
#include "flopcast/model/model.hpp"

namespace flopcast::measure {

// The architecture as the decoder runs it.
struct decoder_shape {
  std::int64_t hidden = 0, vocab = 0, layers = 0;
  std::int64_t heads = 0, kv_heads = 0, head_dim = 0, v_head_dim = 0, rotary_dim = 0;
  std::int64_t intermediate = 0;
  bool qkv_bias = false;
  bool qk_norm = false;
  bool tied_embeddings = false;
  std::vector<std::int64_t> window;  // per layer: 0 = full attention
  // Extensions run by `flopcast validate-model` (decoder_options::moe_mla): reference loops
  // that count their work in the estimator's conventions, not tuned kernels for timing.
  // Multi-head latent attention (DeepSeek-V2/V3): q (optionally through a q_lora latent),
  // a shared kv latent of kv_lora + one rope key per token (what the cache stores); prefill
  // expands K/V from the latent (kv_b_proj), a decode step absorbs W_UK/W_UV into q and the
  // output (as the estimator counts them).
  bool mla = false;
  std::int64_t q_lora = 0, kv_lora = 0, qk_nope = 0, qk_rope = 0;
  // Mixture of experts: per layer true where the MLP is routed (router h x E, softmax, top-k,
  // the k experts' SwiGLU, their weighted sum; shared experts and their sigmoid gate).
  std::vector<bool> moe;
  std::int64_t experts = 0, experts_per_token = 0, expert_intermediate = 0, shared_intermediate = 0;
  bool shared_expert_gate = false, router_bias = false;
  float rope_theta = 10000.0f;
  float norm_eps = 1e-5f;
};

// Reads the shape; throws flopcast::error(unsupported_model, "MODEL") naming the
// model_type and what the reference decoder lacks for it.
// With moe_mla, MoE and MLA layers are accepted too (what validate-model runs).
[[nodiscard]] decoder_shape decoder_shape_of(const model_spec& m, bool moe_mla = false);

// The model with its first n layers only (n in [1, num_layers]; else
// error(invalid_argument, "/layers")): num_layers, groups (with their counts) and
// layer_group_of rebuilt; every other field (hidden size, heads, vocabulary) kept.
[[nodiscard]] model_spec first_layers(const model_spec& m, std::int64_t n);

// Work executed, by the estimator's components (FLOPs) and by what was read/written (bytes).
struct op_counts {
  double qkv_projection = 0, rotary = 0, attention_scores = 0, softmax = 0, attention_values = 0, output_projection = 0;
  double mlp = 0, norm = 0, output_head = 0, embedding = 0;
  double weight_bytes = 0;     // matmul, norm and bias weights streamed (head included), once per call
  double embedding_bytes = 0;  // embedding rows gathered
  double kv_read_bytes = 0;    // cached positions read by attention, once per call
  double kv_write_bytes = 0;
  std::int64_t attention_pairs = 0;

  [[nodiscard]] double attention() const noexcept {
    return qkv_projection + rotary + attention_scores + softmax + attention_values + output_projection;
  }
  [[nodiscard]] double flops() const noexcept { return attention() + mlp + norm + output_head + embedding; }
  [[nodiscard]] double bytes() const noexcept {
    return weight_bytes + embedding_bytes + kv_read_bytes + kv_write_bytes;
  }
  op_counts& operator+=(const op_counts& o) noexcept;
};
[[nodiscard]] op_counts operator-(op_counts a, const op_counts& b) noexcept;

struct decoder_options {
  weight_format weights = weight_format::f32;
  kv_format kv = kv_format::f32;
  std::int64_t batch = 1;
  std::int64_t max_tokens = 256;        // KV capacity per sequence (prompt + generated)
  std::int64_t max_prefill_tokens = 0;  // per sequence; 0: max_tokens (sizes the scratch)
  std::uint64_t seed = 1;
  bool moe_mla = false;  // accept MoE and MLA layers (experts are built when first routed to)
};

// What a decoder allocates, in bytes (before allocating it).
struct decoder_memory {
  double weights = 0;   // as stored (padding of the last panel included)
  double kv_cache = 0;  // at capacity, every layer and sequence
  double scratch = 0;   // activations for the largest prefill
  [[nodiscard]] double total() const noexcept { return weights + kv_cache + scratch; }
};
[[nodiscard]] decoder_memory decoder_memory_for(const model_spec& m, const decoder_options& o);

class decoder {
 public:
  // Throws what decoder_shape_of throws, or error(invalid_argument) for bad options.
  decoder(const model_spec& m, const decoder_options& o, thread_pool& pool);
  ~decoder();
  decoder(const decoder&) = delete;
  decoder& operator=(const decoder&) = delete;

  [[nodiscard]] const decoder_shape& shape() const noexcept;
  [[nodiscard]] const decoder_options& options() const noexcept;

  // Runs `prompt` new tokens of every sequence (tokens: batch x prompt, row-major) after
  // what is cached, appends their K/V, and writes the logits of each sequence's last
  // position to `logits` (batch x vocab).
  void prefill(const std::int32_t* tokens, std::int64_t prompt, float* logits);
  // One decode step: one token per sequence (batch), logits batch x vocab.
  void decode(const std::int32_t* tokens, float* logits);
  // Empties the KV caches (weights stay).
  void reset();
  [[nodiscard]] std::int64_t position() const noexcept;  // positions cached per sequence

  [[nodiscard]] const op_counts& counts() const noexcept;
  void reset_counts() noexcept;
  [[nodiscard]] kv_profile_report kv_report(double elapsed_s = 0) const;
  void reset_kv_profiles() noexcept;
  [[nodiscard]] double kv_bytes() const;                      // every layer's cache, now
  [[nodiscard]] double weight_bytes() const;                  // as stored, without padding
  [[nodiscard]] std::int64_t experts_built() const noexcept;  // routed experts instantiated, all layers

  // Weights, for reference implementations.
  struct layer_view {
    const packed_matrix& qkv;  // rows: q (heads x head_dim), k, v
    const packed_matrix& o;
    const packed_matrix& gate_up;  // rows: gate (intermediate), up (intermediate)
    const packed_matrix& down;
    const std::vector<float>& attn_norm;
    const std::vector<float>& mlp_norm;
    const std::vector<float>& q_norm;  // empty without qk_norm
    const std::vector<float>& k_norm;
    const std::vector<float>& qkv_bias;  // empty without qkv_bias
  };
  [[nodiscard]] layer_view layer(std::int64_t l) const;
  [[nodiscard]] const packed_matrix& embedding() const noexcept;  // vocab x hidden
  [[nodiscard]] const packed_matrix& head() const noexcept;       // the embedding when tied
  [[nodiscard]] const std::vector<float>& final_norm() const noexcept;

 private:
  struct impl;
  std::unique_ptr<impl> p_;
};

// Greedy next token of each row (first maximum).
[[nodiscard]] std::vector<std::int32_t> argmax_rows(const float* logits, std::int64_t rows, std::int64_t vocab);

}  // namespace flopcast::measure
