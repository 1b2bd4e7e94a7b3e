// Config reader for Cohere's MoE models (cohere2_moe: North Mini Code), registered in families()
// in hf_config.cpp.
#include <string>
#include <vector>

#include "base/detail.hpp"
#include "base/json_reader.hpp"
#include "model/hf_common.hpp"

namespace flopcast::detail {

// cohere2_moe (North-Mini-Code-1.0): Command A's parallel block (one norm feeds attention and the
// MLP; RMSNorm when rms_norm_eps is set, else Cohere's bias-free LayerNorm, same size), GQA
// without biases or q/k norms, tied embeddings. The layers of mlp_layer_types "dense" (or the
// first first_k_dense_replace ones) are a SwiGLU of prefix_dense_intermediate_size; the others
// num_experts SwiGLU experts of intermediate_size (num_experts_per_tok per token) behind a
// bias-free router, plus num_shared_experts x intermediate_size always on. Sliding layers
// (layer_types, or all but every sliding_window_pattern-th) use RoPE; full layers have no
// positions, except the dense prefix when prefix_dense_sliding_window_pattern is 1
// (Cohere2MoeAttention.force_rope in vLLM's cohere2_moe.py).
void read_cohere2_moe(const reader& r, model_spec& m) {
  read_cohere(r, m);
  m.attention.qk_norm = false;
  m.attention.qk_norm_full_width = false;
  if (r.has("rms_norm_eps")) m.norm = norm_kind::rmsnorm;

  moe_spec& e = m.moe;
  e.num_experts = r.positive("num_experts");
  e.experts_per_token = r.positive("num_experts_per_tok");
  check_top_k(r, "num_experts_per_tok", e);
  e.expert_intermediate_size = r.positive("intermediate_size");
  e.shared_intermediate_size = mul(r.non_negative_or("num_shared_experts", 0), e.expert_intermediate_size);
  e.router_bias = false;

  const std::vector<bool> moe = mlp_layer_types_or_first_dense(r, m.num_layers, 0);
  const std::int64_t w = r.non_negative_or("sliding_window", 4096);
  const std::vector<std::string> kinds = window_layer_kinds(r, m.num_layers);
  const std::int64_t pattern = r.positive_or("sliding_window_pattern", 4);
  const bool prefix_rope = r.non_negative_or("prefix_dense_sliding_window_pattern", 1) == 1;
  std::vector<layer_desc> layers(static_cast<std::size_t>(m.num_layers));
  bool prefix = true;  // still inside the leading run of dense layers
  bool any_dense = false;
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const bool sliding =
        kinds.empty() ? (static_cast<std::int64_t>(i) + 1) % pattern != 0 : kinds[i] == "sliding_attention";
    prefix = prefix && !moe[i];
    layers[i].moe = moe[i];
    layers[i].window = sliding ? w : 0;
    layers[i].nope = !sliding && !(prefix && prefix_rope);
    any_dense = any_dense || !moe[i];
  }
  m.mlp.intermediate_size = any_dense ? r.positive_or("prefix_dense_intermediate_size", e.expert_intermediate_size) : 0;
  set_layers(m, layers);
}

}  // namespace flopcast::detail
