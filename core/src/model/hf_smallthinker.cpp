// Config reader for SmallThinker (smallthinker, PowerInfer's on-device MoE models), registered in
// families() in hf_config.cpp.
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

}  // namespace flopcast::detail
