// Config readers for Xiaomi MiMo-V2-Flash (mimo_v2_flash) and Tencent Hy3 (hy_v3), registered in
// families() in hf_config.cpp.
#include <string>
#include <vector>

#include "base/detail.hpp"
#include "base/json_reader.hpp"
#include "model/hf_common.hpp"

namespace flopcast::detail {

namespace {

// Which layers slide: the checkpoint's hybrid_layer_pattern (1 sliding, 0 full), transformers'
// layer_types, or MiMoV2FlashConfig's default (full at layer 0 and every sixth layer).
std::vector<bool> mimo_v2_flash_sliding(const reader& r, std::int64_t layers) {
  std::vector<bool> sliding(static_cast<std::size_t>(layers), false);
  if (r.has("hybrid_layer_pattern")) {
    const std::vector<std::int64_t> pattern = r.int_list_or_empty("hybrid_layer_pattern");
    check_list_length(r, "hybrid_layer_pattern", pattern.size(), layers);
    for (std::size_t i = 0; i < sliding.size(); ++i) {
      if (pattern[i] != 0 && pattern[i] != 1)
        throw error(error_code::config_range, r.ptr("hybrid_layer_pattern") + "/" + std::to_string(i),
                    "expected 0 (full attention) or 1 (sliding window), but got " + std::to_string(pattern[i]));
      sliding[i] = pattern[i] == 1;
    }
    return sliding;
  }
  const std::vector<std::string> kinds = window_layer_kinds(r, layers);
  for (std::size_t i = 0; i < sliding.size(); ++i)
    sliding[i] = kinds.empty() ? !(i == 0 || (i + 1) % 6 == 0) : kinds[i] == "sliding_attention";
  return sliding;
}

// Which layers are MoE: the checkpoint's moe_layer_freq list (1 MoE, 0 dense), transformers'
// mlp_layer_types, or the default (layer 0 dense).
std::vector<bool> mimo_v2_flash_moe(const reader& r, std::int64_t layers) {
  if (!r.has("moe_layer_freq")) return mlp_layer_types_or_first_dense(r, layers, 1);
  const std::vector<std::int64_t> freq = r.int_list_or_empty("moe_layer_freq");
  check_list_length(r, "moe_layer_freq", freq.size(), layers);
  std::vector<bool> moe(static_cast<std::size_t>(layers), false);
  for (std::size_t i = 0; i < moe.size(); ++i) {
    if (freq[i] != 0 && freq[i] != 1)
      throw error(error_code::config_range, r.ptr("moe_layer_freq") + "/" + std::to_string(i),
                  "expected 0 (dense MLP) or 1 (mixture of experts), but got " + std::to_string(freq[i]));
    moe[i] = freq[i] == 1;
  }
  return moe;
}

}  // namespace

// mimo_v2_flash (MiMo-V2-Flash; vLLM mimo_v2_flash.py, transformers modular_mimo_v2_flash.py):
// GQA without q/k norms, q/k heads of head_dim and values of v_head_dim, partial rotary. Full
// layers use num_key_value_heads; sliding-window layers (hybrid_layer_pattern) their own swa_*
// layout (transformers: twice the KV heads) with one sink logit per head when
// add_swa_attention_sink_bias. MoE layers (moe_layer_freq): n_routed_experts sigmoid-routed experts
// of moe_intermediate_size with a score-correction bias and no shared expert; dense layers a
// SwiGLU of intermediate_size. The MTP modules shipped beside the stack are not counted (the
// card's 309B total is the main stack's).
void read_mimo_v2_flash(const reader& r, model_spec& m) {
  read_llama_family(r, m);
  attention_spec& a = m.attention;
  a.qkv_bias = r.boolean_or("attention_bias", false);
  a.o_bias = false;
  a.v_head_dim = r.positive_or("v_head_dim", a.head_dim);
  a.sinks = r.boolean_or("add_full_attention_sink_bias", false);
  m.tie_word_embeddings = r.boolean_or("tie_word_embeddings", false);

  attention_spec swa = a;
  swa.num_heads = r.positive_or("swa_num_attention_heads", a.num_heads);
  swa.num_kv_heads = r.positive_or("swa_num_key_value_heads", mul(2, a.num_kv_heads));
  if (swa.num_kv_heads > swa.num_heads || swa.num_heads % swa.num_kv_heads != 0)
    range_error(r, "swa_num_key_value_heads",
                "expected a divisor of swa_num_attention_heads (" + std::to_string(swa.num_heads) + "), but got " +
                    std::to_string(swa.num_kv_heads));
  swa.head_dim = r.positive_or("swa_head_dim", a.head_dim);
  swa.v_head_dim = r.positive_or("swa_v_head_dim", a.v_head_dim);
  swa.rotary_dim = a.head_dim > 0 ? a.rotary_dim * swa.head_dim / a.head_dim : 0;  // the same partial factor
  swa.sinks = r.boolean_or("add_swa_attention_sink_bias", true);
  const std::int64_t window = r.positive(r.pick({"sliding_window_size", "sliding_window"}));

  moe_spec& e = m.moe;
  e.num_experts = r.positive("n_routed_experts");
  e.experts_per_token = r.positive("num_experts_per_tok");
  check_top_k(r, "num_experts_per_tok", e);
  e.expert_intermediate_size = r.positive("moe_intermediate_size");
  e.shared_intermediate_size = 0;
  e.router_bias = true;  // e_score_correction_bias (noaux_tc)

  const std::vector<bool> sliding = mimo_v2_flash_sliding(r, m.num_layers);
  const std::vector<bool> moe = mimo_v2_flash_moe(r, m.num_layers);
  std::vector<layer_desc> layers(static_cast<std::size_t>(m.num_layers));
  bool any_dense = false;
  for (std::size_t i = 0; i < layers.size(); ++i) {
    layers[i].moe = moe[i];
    any_dense = any_dense || !moe[i];
    if (sliding[i]) {
      layers[i].window = window;
      if (swa != a) layers[i].attention = swa;
    }
  }
  m.mlp.intermediate_size = any_dense ? r.positive("intermediate_size") : 0;
  set_layers(m, layers);
}

// hy_v3 (Tencent Hy3-preview; transformers modular_hy_v3.py): Llama attention with per-head
// q/k RMSNorms (ApertusAttention), the first layer (first_k_dense_replace, or mlp_layer_types) a
// SwiGLU of intermediate_size, the others num_experts sigmoid-routed experts of
// moe_intermediate_size (the Hub config also names it expert_hidden_dim) with an expert-bias
// correction and num_shared_experts shared experts of the same width, untied head. The
// num_nextn_predict_layers MTP layer is not counted (transformers skips model.layers.80; the
// card's 295B total leaves out its 3.8B).
void read_hy_v3(const reader& r, model_spec& m) {
  read_llama_family(r, m);
  attention_spec& a = m.attention;
  a.qkv_bias = a.o_bias = r.boolean_or("attention_bias", false);
  a.qk_norm = r.boolean_or("qk_norm", true);
  a.qk_norm_full_width = false;
  m.tie_word_embeddings = r.boolean_or("tie_word_embeddings", false);

  moe_spec& e = m.moe;
  e.num_experts = r.positive(r.pick({"num_experts", "num_local_experts"}));
  e.experts_per_token = r.positive("num_experts_per_tok");
  check_top_k(r, "num_experts_per_tok", e);
  e.expert_intermediate_size = r.positive(r.pick({"moe_intermediate_size", "expert_hidden_dim"}));
  e.shared_intermediate_size = mul(r.non_negative_or("num_shared_experts", 1), e.expert_intermediate_size);
  e.router_bias = r.boolean_or("moe_router_enable_expert_bias", true);  // e_score_correction_bias
  set_moe_pattern(r, m, mlp_layer_types_or_first_dense(r, m.num_layers, 1));
}

}  // namespace flopcast::detail
