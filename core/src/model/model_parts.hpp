#pragma once
// Helpers on model shapes shared by the readers, the parameter counter, the estimate and the
// training analysis: one layer's weights by kind, norm and projection widths.
#include <cstdint>

#include "base/detail.hpp"
#include "flopcast/formats/precision.hpp"
#include "flopcast/model/model.hpp"

namespace flopcast::detail {

// Router outputs of a MoE layer: the routed experts and any zero-computation ones.
[[nodiscard]] inline std::int64_t router_outputs(const moe_spec& e) { return add(e.num_experts, e.zero_experts); }

// Layers of every group: what step_costs' per-layer costs multiply.
[[nodiscard]] inline double layer_count(const model_spec& m) noexcept {
  double n = 0;
  for (const auto& g : m.groups) n += d(g.count);
  return n;
}

// Weights of one layer of a group, split the way FLOPs need them.
struct layer_weights {
  std::int64_t attn_matmul = 0;  // weights used once per query token
  std::int64_t attn_bias = 0;
  std::int64_t attn_kv_matmul = 0;  // MLA kv_b_proj / cross-attention K,V: per key/value token
  std::int64_t norm = 0;            // all norm parameters of the layer
  std::int64_t mlp_total = 0;       // all MLP/expert/router weights and biases
  std::int64_t mlp_active = 0;      // what one token uses
  std::int64_t expert = 0;          // one routed expert
  std::int64_t mixer = 0;           // a linear-attention or state-space mixer (all its weights)
  [[nodiscard]] std::int64_t total() const {
    return add(add(add(add(attn_matmul, attn_bias), add(attn_kv_matmul, norm)), mlp_total), mixer);
  }
  [[nodiscard]] std::int64_t active() const {
    return add(add(add(add(attn_matmul, attn_bias), add(attn_kv_matmul, norm)), mlp_active), mixer);
  }
};

// Whether a group's layers run softmax attention (alone or beside a Mamba-2 mixer).
[[nodiscard]] inline bool has_attention(const layer_group& g) { return g.mixer == mixer_kind::attention; }
// Hidden-size norms of one layer of the group.
[[nodiscard]] inline std::int64_t norms_of(const model_spec& m, const layer_group& g) {
  return (g.norms >= 0 ? g.norms : m.norms_per_layer) + (g.cross_attention ? 1 : 0);
}
// The Mamba-2 conv's channels: x, B and C (inner + 2 groups x state).
[[nodiscard]] inline std::int64_t mamba2_conv_dim(const ssm_spec& s) {
  return add(s.inner, mul(2, s.n_groups, s.state_size));
}
// Gated DeltaNet widths: all key heads (q and k each) and all value heads.
[[nodiscard]] inline std::int64_t linear_key_dim(const linear_attention_spec& l) {
  return mul(l.num_key_heads, l.key_head_dim);
}
[[nodiscard]] inline std::int64_t linear_value_dim(const linear_attention_spec& l) {
  return mul(l.num_value_heads, l.value_head_dim);
}
// What the mixer projects the hidden state to: q, k, v, beta (one per value head), and the
// output gate and decay inputs: Gated DeltaNet's z (value width) and a (one per value head) in
// in_proj_qkvz/in_proj_ba, or KDA's low-rank g_a and f_a.
[[nodiscard]] inline std::int64_t linear_in_width(const linear_attention_spec& l) {
  const std::int64_t kd = linear_key_dim(l), vd = linear_value_dim(l);
  const std::int64_t gate = l.gate_rank > 0 ? l.gate_rank : vd;
  const std::int64_t decay = l.decay_rank > 0 ? l.decay_rank : l.num_value_heads;
  return add(add(add(mul(2, kd), vd), add(l.num_value_heads, gate)), decay);
}
// Parameters of one mixer of kind k (linear attention, Mamba-1, Mamba-2, short conv, RWKV time mix;
// 0 for the others). rwkv_first: the first layer of an RWKV-7 stack (no value-residual LoRA).
[[nodiscard]] std::int64_t mixer_params(const model_spec& m, mixer_kind k, bool rwkv_first = false);
// RWKV: heads of the time mix (attention_size / head_size) and the projections from the hidden
// state that the operator view shows as the mixer's in_proj (receptance, key, value and a gate).
[[nodiscard]] inline std::int64_t rwkv_heads(const rwkv_spec& r) {
  return r.head_size > 0 ? r.attention_size / r.head_size : 0;
}
// The RWKV channel mix beyond its key/value projections, over T tokens: the token-shift mixes
// (the difference once, then 2 FLOPs per vector and element) and RWKV-6's receptance (projection,
// sigmoid, product). 0 for every other MLP.
[[nodiscard]] inline double mlp_token_mix_flops(const model_spec& m, double T) {
  const double h = d(m.hidden_size);
  double f = 0;
  if (m.mlp.token_shift > 0) f += T * h + 2 * T * h * d(m.mlp.token_shift);
  if (m.mlp.receptance) f += 2 * T * h * h + 2 * T * h;
  return f;
}
[[nodiscard]] inline std::int64_t rwkv_in_width(const rwkv_spec& r) {
  if (r.version == 6) return mul(4, r.attention_size);  // receptance, key, value, gate
  return mul(3, r.attention_size);                      // RWKV-7 r, k, v (the gate is a LoRA)
}

[[nodiscard]] layer_weights weights_of(const model_spec& m, const layer_group& g);

// Elements one norm of width n applies per token: RMSNorm 4 (square, sum, scale, weight),
// LayerNorm 7 (mean, subtract, square, sum, normalise, weight, bias).
[[nodiscard]] inline double norm_flops_per_element(norm_kind k) { return k == norm_kind::rmsnorm ? 4.0 : 7.0; }
[[nodiscard]] inline std::int64_t norm_params(norm_kind k, std::int64_t width) {
  return k == norm_kind::rmsnorm ? width : 2 * width;
}
// One hidden-size norm of the model (a LayerNorm without bias has only its weight; a
// non-affine one, OLMo 1's, has none).
[[nodiscard]] inline std::int64_t norm_params(const model_spec& m, std::int64_t width) {
  if (!m.norm_affine) return 0;
  return m.norm == norm_kind::layernorm && !m.norm_bias ? width : norm_params(m.norm, width);
}
// Width of the token embedding rows (OPT-350m embeds at word_embed_proj_dim).
[[nodiscard]] inline std::int64_t embed_dim(const model_spec& m) {
  return m.embed_proj_dim > 0 ? m.embed_proj_dim : m.hidden_size;
}
// Number of stacks with their own final norm (2 for encoder-decoder).
[[nodiscard]] inline std::int64_t stacks(const model_spec& m) {
  return m.arch == architecture::encoder_decoder ? 2 : 1;
}

// Width of the q, k and v projections' outputs per token (what a layer stores of them):
// heads x head_dim for q, KV heads x (head_dim + v_head_dim) for k and v; MLA expands k and
// v per head (nope + rope key: head_dim, value: v_head_dim).
[[nodiscard]] inline double qkv_width(const attention_spec& a) {
  const double nh = d(a.num_heads);
  return a.mla ? nh * d(a.head_dim) + nh * d(a.head_dim) + nh * d(a.v_head_dim)
               : nh * d(a.head_dim) + d(a.num_kv_heads) * d(a.head_dim + a.v_head_dim);
}

// Bytes of one activation element when weights are stored in p (int8/int4/fp8 compute
// in 16-bit; fp32/tf32 in 4 bytes).
[[nodiscard]] inline double activation_bytes(precision p) {
  return p == precision::fp32 || p == precision::tf32 ? 4.0 : 2.0;
}

}  // namespace flopcast::detail
