// Config readers for dots.llm1 (dots1), Snowflake Arctic (arctic), FlexOlmo (flex_olmo) and
// Granite-MoE with shared experts (granitemoeshared), registered in families() in hf_config.cpp.
#include <string>
#include <vector>

#include "base/detail.hpp"
#include "base/json_reader.hpp"
#include "model/hf_common.hpp"

namespace flopcast::detail {

// dots1 (dots.llm1): Qwen3's attention (per-head q/k RMSNorms, no biases by default) with
// DeepSeek-V3's MoE: after first_k_dense_replace dense layers of intermediate_size,
// n_routed_experts experts of moe_intermediate_size (num_experts_per_tok per token),
// n_shared_experts always on and a router with e_score_correction_bias.
void read_dots1(const reader& r, model_spec& m) {
  read_llama_family(r, m);
  attention_spec& a = m.attention;
  a.qkv_bias = a.o_bias = r.boolean_or("attention_bias", false);
  a.qk_norm = true;
  a.qk_norm_full_width = false;
  m.tie_word_embeddings = r.boolean_or("tie_word_embeddings", false);
  moe_spec& e = m.moe;
  e.num_experts = r.positive("n_routed_experts");
  e.experts_per_token = r.positive("num_experts_per_tok");
  check_top_k(r, "num_experts_per_tok", e);
  e.expert_intermediate_size = r.positive("moe_intermediate_size");
  e.shared_intermediate_size = mul(r.non_negative_or("n_shared_experts", 0), e.expert_intermediate_size);
  e.router_bias = true;
  set_moe_pattern(r, m, mlp_layer_types_or_first_dense(r, m.num_layers, 0));
}

// arctic (Snowflake Arctic): GQA without biases; every moe_layer_frequency-th layer a mixture of
// num_local_experts experts of intermediate_size (bias-free router) and, with use_residual, a
// dense residual MLP of intermediate_size beside it behind its own RMSNorm (3 norms in those
// layers). The residual MLP runs for every token, so it is counted as an always-on shared
// expert. Other layers are a dense MLP of intermediate_size.
void read_arctic(const reader& r, model_spec& m) {
  read_llama_family(r, m);
  m.attention.qkv_bias = m.attention.o_bias = false;
  m.tie_word_embeddings = r.boolean_or("tie_word_embeddings", false);
  moe_spec& e = m.moe;
  e.num_experts = r.positive_or("num_local_experts", 8);
  e.experts_per_token = r.positive_or("num_experts_per_tok", 2);
  check_top_k(r, "num_experts_per_tok", e);
  e.expert_intermediate_size = m.mlp.intermediate_size;  // read by read_llama_family
  const bool residual = r.boolean_or("use_residual", false);
  e.shared_intermediate_size = residual ? e.expert_intermediate_size : 0;
  const std::int64_t freq = r.positive_or("moe_layer_frequency", 2);
  std::vector<layer_desc> layers(static_cast<std::size_t>(m.num_layers));
  for (std::size_t i = 0; i < layers.size(); ++i) {
    layers[i].moe = (static_cast<std::int64_t>(i) + 1) % freq == 0;
    if (layers[i].moe && residual) layers[i].norms = 3;  // residual_layernorm
  }
  set_layers(m, layers);
}

// flex_olmo (FlexOlmo): OLMoE's weights (whole-projection q/k RMSNorms, two norms per layer, every
// layer num_experts experts of intermediate_size behind a bias-free router) with OLMo 2's norm
// placement, which changes no count.
void read_flex_olmo(const reader& r, model_spec& m) { read_olmoe(r, m); }

// granitemoeshared (Granite-MoE with a shared expert): granitemoe plus, when
// shared_intermediate_size is positive, one always-on gated MLP of that width in every layer.
void read_granitemoeshared(const reader& r, model_spec& m) {
  read_granitemoe(r, m);
  m.moe.shared_intermediate_size = r.non_negative_or("shared_intermediate_size", 0);
}

}  // namespace flopcast::detail
