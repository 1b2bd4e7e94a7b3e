#pragma once
// The reference decoder's state (internal): decoder::impl, shared by the files that run it.
// decoder.cpp: the shape, op_counts, the memory plan and the public methods;
// decoder_weights.cpp: the random weights, the RoPE tables and the scratch, built at construction;
// decoder_forward.cpp: the operations, each counting its work, and the forward pass;
// decoder_moe_mla.cpp: the decoder_options::moe_mla layers (routed MLP, multi-head latent attention).
#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "flopcast/measure/decoder.hpp"
#include "flopcast/measure/kernels.hpp"
#include "flopcast/measure/kv_cache.hpp"
#include "flopcast/measure/kv_profiler.hpp"
#include "flopcast/measure/thread_pool.hpp"

namespace flopcast::measure {

struct decoder::impl {
  decoder_shape s;
  decoder_options o;
  thread_pool* pool = nullptr;

  struct expert_data {
    packed_matrix gate_up, down;
  };
  struct layer_data {
    packed_matrix qkv, o, gate_up, down;
    std::vector<float> attn_norm, mlp_norm, q_norm, k_norm, qkv_bias;
    std::unique_ptr<profiled_kv_cache> cache;  // null in MLA layers (their latent cache below)
    // MLA: q_a/q_a_norm with a q latent; q_b is q_proj without one.
    packed_matrix q_a, q_b, kv_a, kv_b;
    std::vector<float> q_a_norm, kv_a_norm, kv_b_rows;  // kv_b_rows: kv_b unpacked (absorbed decode)
    std::vector<float> latent, krope;                   // [seq][position][kv_lora], [seq][position][rope]
    // MoE: router (+ selection bias), experts built when first routed to, shared experts.
    packed_matrix router, shared_gate_up, shared_down, shared_gate;
    std::vector<float> router_bias;
    std::vector<std::unique_ptr<expert_data>> experts;
    std::uint64_t expert_id = 0;  // random-weight ids of expert e: expert_id + 2e, + 2e + 1
  };
  std::vector<layer_data> layers;
  packed_matrix embedding, untied_head;
  std::vector<float> final_norm;
  std::vector<float> rope_cos, rope_sin;  // [position][rotary_dim / 2]
  std::int64_t position = 0;
  op_counts counts;

  // Scratch, sized for the largest prefill.
  std::int64_t max_rows = 0;
  aligned_array<float> x, xn, qkv, att, gu, act;
  aligned_array<float> mla_q, mla_qa, mla_ckv, mla_lat, mla_kv;  // MLA scratch
  aligned_array<float> moe_logits, moe_in, moe_out;              // MoE scratch
  std::int64_t built_experts = 0;

  [[nodiscard]] const packed_matrix& head() const { return s.tied_embeddings ? embedding : untied_head; }
  [[nodiscard]] std::int64_t q_width() const { return s.heads * s.head_dim; }
  [[nodiscard]] std::int64_t k_width() const { return s.kv_heads * s.head_dim; }
  [[nodiscard]] std::int64_t v_width() const { return s.kv_heads * s.v_head_dim; }
  [[nodiscard]] std::int64_t qkv_width() const { return q_width() + k_width() + v_width(); }

  // Runs fn(row) for rows [0, n), on the pool when there are enough of them.
  template <class F>
  void rows(std::int64_t n, std::int64_t width, F&& fn) {
    if (n < 4 || n * width < (1 << 15)) {
      for (std::int64_t i = 0; i < n; ++i) fn(i);
      return;
    }
    const int parts = static_cast<int>(std::min<std::int64_t>(pool->size() * 4, n));
    pool->parallel_for(parts, [&](std::int64_t part) {
      const auto [a, b] = thread_pool::split(n, parts, static_cast<int>(part));
      for (std::int64_t i = a; i < b; ++i) fn(i);
    });
  }

  // Operations, each counting its work in op_counts (decoder_forward.cpp).
  // out[i] = in[i] / rms(in) * w, for `count` vectors of `width` (strides in floats).
  void rmsnorm(const float* in, std::int64_t in_stride, float* out, std::int64_t out_stride, std::int64_t count,
               std::int64_t width, const std::vector<float>& w);
  // gemm (c = a . w^T, + c when accumulate) over m rows: its FLOPs added to `flops`, the
  // weights' bytes to counts.weight_bytes.
  void matmul(std::int64_t m, const float* a, std::int64_t lda, const packed_matrix& w, float* c, std::int64_t ldc,
              bool accumulate, double& flops);
  // act[i] = silu(gate[i]) * up[i] for n rows of width w (gu: gate | up); 2 FLOPs per element.
  void swiglu(std::int64_t n, std::int64_t w);
  // Rotates the first rotary_dim values of v to position pos (rotate-half; its count is the caller's).
  void rope(float* v, std::int64_t pos) const {
    const std::int64_t half = s.rotary_dim / 2;
    const float* c = rope_cos.data() + pos * half;
    const float* sn = rope_sin.data() + pos * half;
    for (std::int64_t i = 0; i < half; ++i) {
      const float a = v[i], b = v[i + half];
      v[i] = a * c[i] - b * sn[i];
      v[i + half] = b * c[i] + a * sn[i];
    }
  }

  // The forward pass (decoder_forward.cpp).
  // T new tokens per sequence (tokens: batch x T); logits of the last position of each.
  void forward(const std::int32_t* tokens, std::int64_t T, float* logits, bool decode_step = false);
  // MLP block: x += mlp(rmsnorm(x)).
  void mlp_block(layer_data& L, std::int64_t l, std::int64_t M);

  // The moe_mla layers (decoder_moe_mla.cpp).
  // Routed MLP on xn (M rows), added to x (the residual). Counts as the estimator does:
  // router 2 h E + softmax/top-k 5 E per token, each routed expert's SwiGLU, 2 h per
  // (token, expert) for the weighted sum; shared experts; their gate 2 h + 1 + h per token.
  void moe_mlp(layer_data& L, std::int64_t M);
  // Multi-head latent attention of layer l on xn (M = batch x T rows), output added to x.
  // absorbed (decode): W_UK folded into q, scores against the cached latent + rope key,
  // W_UV applied to the attended latent. Otherwise (prefill): K/V expanded from the latent of
  // every cached position by kv_b_proj, then ordinary attention over (nope + rope) keys.
  void mla_attention(layer_data& L, std::int64_t l, std::int64_t T, std::int64_t pos0, bool absorbed);

  // Setup (decoder_weights.cpp).
  struct weight_source;  // the random weights, handed out in build order
  void build(const model_spec& m, const decoder_options& opt, thread_pool& tp);
  void build_mla(layer_data& L, weight_source& w);
  void build_mlp(layer_data& L, std::int64_t l, weight_source& w);
  // An n x k matrix of random weights, uniform with std 1/sqrt(k), keyed by (seed, mid, row).
  [[nodiscard]] packed_matrix random_matrix(std::uint64_t mid, std::int64_t n, std::int64_t k) const;
  // Routed expert e of layer L, built when first routed to.
  expert_data& expert(layer_data& L, std::int64_t e);
};

}  // namespace flopcast::measure
