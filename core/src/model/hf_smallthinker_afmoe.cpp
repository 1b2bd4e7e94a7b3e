// Config readers for SmallThinker (smallthinker, PowerInfer's on-device MoE models) and Arcee's
// Trinity (afmoe), registered in families() in hf_config.cpp.
#include <string>
#include <vector>

#include "base/detail.hpp"
#include "base/json_reader.hpp"
#include "model/hf_common.hpp"

namespace flopcast::detail {

namespace {

// A per-layer list of 0s and 1s (rope_layout, sliding_window_layout): empty when absent.
std::vector<std::int64_t> smallthinker_layout(const reader& r, std::string_view key, std::int64_t layers) {
  std::vector<std::int64_t> list = r.int_list_or_empty(key);
  if (list.empty()) return list;
  check_list_length(r, key, list.size(), layers);
  for (std::size_t i = 0; i < list.size(); ++i)
    if (list[i] != 0 && list[i] != 1)
      throw error(error_code::config_range, r.ptr(key) + "/" + std::to_string(i),
                  "expected 0 or 1, but got " + std::to_string(list[i]));
  return list;
}

}  // namespace

// smallthinker (SmallThinker-4BA0.6B, SmallThinker-21BA3B): GQA without biases or q/k norms,
// every layer a mixture of moe_num_primary_experts ReGLU experts (up, gate, down) of
// moe_ffn_hidden_size, moe_num_active_primary_experts per token, behind a bias-free router that
// reads the layer's input; no dense MLP, no shared expert; tied embeddings by default.
// sliding_window_layout marks the layers attending within sliding_window_size, rope_layout the
// layers with RoPE (0: no positions).
void read_smallthinker(const reader& r, model_spec& m) {
  m.arch = architecture::decoder;
  m.hidden_size = r.positive("hidden_size");
  m.num_layers = r.layers("num_hidden_layers");
  m.vocab_size = r.positive("vocab_size");
  m.max_position_embeddings = r.non_negative_or("max_position_embeddings", 0);
  read_heads(r, m, "num_attention_heads", "num_key_value_heads", 0);
  m.norm = norm_kind::rmsnorm;
  m.position = position_kind::rotary;
  m.tie_word_embeddings = r.boolean_or("tie_word_embeddings", true);
  m.mlp.gated = true;
  m.mlp.activation = "relu";
  m.mlp.intermediate_size = 0;
  moe_spec& e = m.moe;
  e.num_experts = r.positive("moe_num_primary_experts");
  e.experts_per_token = r.positive("moe_num_active_primary_experts");
  check_top_k(r, "moe_num_active_primary_experts", e);
  e.expert_intermediate_size = r.positive("moe_ffn_hidden_size");
  const std::vector<std::int64_t> swa = smallthinker_layout(r, "sliding_window_layout", m.num_layers);
  const std::vector<std::int64_t> rope = smallthinker_layout(r, "rope_layout", m.num_layers);
  const std::int64_t window = r.non_negative_or("sliding_window_size", 4096);
  std::vector<layer_desc> layers(static_cast<std::size_t>(m.num_layers));
  for (std::size_t i = 0; i < layers.size(); ++i) {
    layers[i].moe = true;
    layers[i].window = !swa.empty() && swa[i] == 1 ? window : 0;
    layers[i].nope = !rope.empty() && rope[i] == 0;
  }
  set_layers(m, layers);
}

// afmoe (Arcee Trinity Nano, Mini, Large): GQA without biases, per-head q/k RMSNorms and a sigmoid
// gate on the attention output (gate_proj, as wide as q); four RMSNorms per layer (before and
// after attention and the MLP). The first num_dense_layers layers are a SwiGLU of
// intermediate_size, the others num_experts experts of moe_intermediate_size
// (num_experts_per_tok per token) with num_shared_experts shared ones as one MLP, a bias-free
// router and an expert_bias vector. layer_types, or every global_attn_every_n_layers-th layer
// full, picks the layers with full attention (no RoPE); the others attend within
// sliding_window with RoPE. Defaults as AfmoeConfig's.
void read_afmoe(const reader& r, model_spec& m) {
  read_llama_family(r, m);
  attention_spec& a = m.attention;
  a.qkv_bias = a.o_bias = false;
  a.qk_norm = true;
  a.qk_norm_full_width = false;
  a.output_gate = true;
  m.norms_per_layer = 4;
  m.tie_word_embeddings = r.boolean_or("tie_word_embeddings", false);
  moe_spec& e = m.moe;
  e.num_experts = r.positive_or("num_experts", 64);
  e.experts_per_token = r.positive_or("num_experts_per_tok", 6);
  check_top_k(r, "num_experts_per_tok", e);
  e.expert_intermediate_size = r.positive_or("moe_intermediate_size", 1408);
  e.shared_intermediate_size = mul(r.non_negative_or("num_shared_experts", 2), e.expert_intermediate_size);
  e.router_bias = true;  // expert_bias
  const std::int64_t dense = r.non_negative_or("num_dense_layers", 1);
  const std::vector<std::string> kinds = window_layer_kinds(r, m.num_layers);
  const std::int64_t every = r.positive_or("global_attn_every_n_layers", 4);
  const std::int64_t window = r.non_negative_or("sliding_window", 1024);
  std::vector<layer_desc> layers(static_cast<std::size_t>(m.num_layers));
  bool any_dense = false;
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const auto n = static_cast<std::int64_t>(i);
    const bool sliding = kinds.empty() ? (n + 1) % every != 0 : kinds[i] == "sliding_attention";
    layers[i].moe = n >= dense;
    layers[i].window = sliding ? window : 0;
    layers[i].nope = !sliding;  // AfmoeAttention applies RoPE in local layers only
    any_dense = any_dense || n < dense;
  }
  m.mlp.intermediate_size = any_dense ? r.positive_or("intermediate_size", 6144) : 0;
  set_layers(m, layers);
}

}  // namespace flopcast::detail
