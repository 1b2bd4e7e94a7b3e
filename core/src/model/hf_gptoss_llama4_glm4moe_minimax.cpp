// Config readers for gpt-oss (gpt_oss), Llama 4 text (llama4_text), GLM-4.5 (glm4_moe) and MiniMax-M2
// (minimax_m2): the mixture-of-experts families with their own layer patterns, registered in
// families() in hf_config.cpp. Most start from read_llama_family and set what differs.
#include <algorithm>
#include <string>
#include <vector>

#include "base/detail.hpp"
#include "base/json_reader.hpp"
#include "model/hf_common.hpp"

namespace flopcast::detail {

// gpt_oss (gpt-oss-20b, gpt-oss-120b): GQA with q/k/v/o biases and a learned sink logit per head,
// sliding-window (layer_types; even layers by default) and full layers alternating, every layer a
// mixture of num_local_experts gated experts with biases on every projection and a router with a
// bias, untied head.
void read_gpt_oss(const reader& r, model_spec& m) {
  read_llama_family(r, m);
  attention_spec& a = m.attention;
  a.qkv_bias = a.o_bias = r.boolean_or("attention_bias", true);
  a.sinks = true;
  m.tie_word_embeddings = r.boolean_or("tie_word_embeddings", false);
  moe_spec& e = m.moe;
  e.num_experts = r.positive(r.pick({"num_local_experts", "num_experts"}));
  const std::string_view top_k = r.pick({"num_experts_per_tok", "experts_per_token"});
  e.experts_per_token = r.positive(top_k);
  check_top_k(r, top_k, e);
  e.expert_intermediate_size = r.positive("intermediate_size");
  e.router_bias = true;
  e.expert_bias = true;
  m.mlp.intermediate_size = 0;  // no dense MLP

  const std::int64_t w = r.non_negative_or("sliding_window", 128);
  const std::vector<std::string> kinds = window_layer_kinds(r, m.num_layers);
  std::vector<layer_desc> layers(static_cast<std::size_t>(m.num_layers));
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const bool sliding = kinds.empty() ? i % 2 == 0 : kinds[i] == "sliding_attention";
    layers[i].moe = true;
    layers[i].window = sliding ? w : 0;
  }
  set_layers(m, layers);
}

// llama4_text (the text_config of Llama 4 Scout and Maverick): MoE layers every
// interleave_moe_layer_step (or the moe_layers list) with num_local_experts routed experts of
// intermediate_size, top-k routing and one always-on shared expert of the same width; dense layers
// of intermediate_size_mlp. no_rope_layers (1 = RoPE, 0 = NoPE; by default every
// no_rope_layer_interval-th layer is NoPE): RoPE layers attend in chunks of attention_chunk_size,
// NoPE layers see the whole context. use_qk_norm is an L2 norm without weights.
void read_llama4_text(const reader& r, model_spec& m) {
  read_llama_family(r, m);
  attention_spec& a = m.attention;
  a.qkv_bias = a.o_bias = r.boolean_or("attention_bias", false);
  a.qk_norm = false;  // Llama4TextL2Norm: no parameters
  m.tie_word_embeddings = r.boolean_or("tie_word_embeddings", false);
  const std::int64_t n = m.num_layers;

  moe_spec& e = m.moe;
  e.num_experts = r.positive_or("num_local_experts", 16);
  e.experts_per_token = r.positive_or("num_experts_per_tok", 1);
  check_top_k(r, "num_experts_per_tok", e);
  e.expert_intermediate_size = r.positive_or("intermediate_size", 8192);
  e.shared_intermediate_size = e.expert_intermediate_size;  // Llama4TextMoe.shared_expert

  std::vector<bool> is_moe(static_cast<std::size_t>(n), false);
  if (r.has("moe_layers")) {
    const std::vector<std::int64_t> list = r.int_list_or_empty("moe_layers");
    for (std::size_t i = 0; i < list.size(); ++i) {
      if (list[i] < 0 || list[i] >= n)
        throw error(error_code::config_range, r.ptr("moe_layers") + "/" + std::to_string(i),
                    "expected a layer index in [0, " + std::to_string(n - 1) + "], but got " + std::to_string(list[i]));
      is_moe[static_cast<std::size_t>(list[i])] = true;
    }
  } else {
    const std::int64_t step = r.positive_or("interleave_moe_layer_step", 1);
    for (std::int64_t i = step - 1; i < n; i += step) is_moe[static_cast<std::size_t>(i)] = true;
  }
  if (std::find(is_moe.begin(), is_moe.end(), false) != is_moe.end())
    m.mlp.intermediate_size = r.positive_or("intermediate_size_mlp", 16384);
  else
    m.mlp.intermediate_size = 0;

  // Llama4TextConfig: an empty or absent no_rope_layers means one NoPE layer every interval.
  std::vector<std::int64_t> rope = r.int_list_or_empty("no_rope_layers");
  if (rope.empty()) {
    const std::int64_t interval = r.positive_or("no_rope_layer_interval", 4);
    for (std::int64_t i = 0; i < n; ++i) rope.push_back((i + 1) % interval != 0 ? 1 : 0);
  } else {
    check_list_length(r, "no_rope_layers", rope.size(), n);
    for (std::size_t i = 0; i < rope.size(); ++i)
      if (rope[i] != 0 && rope[i] != 1)
        throw error(error_code::config_range, r.ptr("no_rope_layers") + "/" + std::to_string(i),
                    "expected 1 (RoPE) or 0 (NoPE), but got " + std::to_string(rope[i]));
  }
  const std::int64_t chunk = r.non_negative_or("attention_chunk_size", 8192);

  std::vector<layer_desc> layers(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < layers.size(); ++i) {
    layers[i].moe = is_moe[i];
    layers[i].nope = rope[i] == 0;
    layers[i].chunk = rope[i] == 1 ? chunk : 0;
  }
  set_layers(m, layers);
}

// glm4_moe (GLM-4.5, GLM-4.5-Air, GLM-4.6): GQA with partial rotary, q/k/v biases (attention_bias;
// o_proj has none) and optional per-head q/k RMSNorms (use_qk_norm); after first_k_dense_replace
// dense layers of intermediate_size, DeepSeek-style MoE layers: n_routed_experts of
// moe_intermediate_size, n_shared_experts always on, a router with e_score_correction_bias. The
// num_nextn_predict_layers MTP layers are not part of the main stack and are not counted.
void read_glm4_moe(const reader& r, model_spec& m) {
  read_llama_family(r, m);
  attention_spec& a = m.attention;
  a.qkv_bias = r.boolean_or("attention_bias", false);
  a.o_bias = false;
  a.qk_norm = r.boolean_or("use_qk_norm", false);
  a.qk_norm_full_width = false;
  m.tie_word_embeddings = r.boolean_or("tie_word_embeddings", false);

  moe_spec& e = m.moe;
  e.num_experts = r.positive("n_routed_experts");
  e.experts_per_token = r.positive("num_experts_per_tok");
  check_top_k(r, "num_experts_per_tok", e);
  e.expert_intermediate_size = r.positive("moe_intermediate_size");
  e.shared_intermediate_size = mul(r.non_negative_or("n_shared_experts", 1), e.expert_intermediate_size);
  e.router_bias = true;
  const std::int64_t first_dense = r.non_negative_or("first_k_dense_replace", 1);
  std::vector<layer_desc> layers(static_cast<std::size_t>(m.num_layers));
  for (std::size_t i = 0; i < layers.size(); ++i) layers[i].moe = static_cast<std::int64_t>(i) >= first_dense;
  m.mlp.intermediate_size = first_dense > 0 ? r.positive("intermediate_size") : 0;
  set_layers(m, layers);
}

// minimax_m2 (MiniMax-M2): GQA without biases, RMSNorms over the whole q and k projections,
// rotary_dim of each head rotated, every layer a mixture of num_local_experts experts of
// intermediate_size with a router score bias (use_routing_bias). Its MTP modules are not counted.
void read_minimax_m2(const reader& r, model_spec& m) {
  read_llama_family(r, m);
  attention_spec& a = m.attention;
  a.qkv_bias = a.o_bias = false;
  a.qk_norm = r.boolean_or("use_qk_norm", true);
  if (a.qk_norm) {
    const std::string type = r.string_or("qk_norm_type", "per_layer");
    if (type != "per_layer")
      range_error(r, "qk_norm_type",
                  "expected \"per_layer\" (one norm over the whole projection), but got \"" + type + "\"");
  }
  a.qk_norm_full_width = a.qk_norm;
  if (r.has("rotary_dim")) {
    a.rotary_dim = r.positive("rotary_dim");
    if (a.rotary_dim > a.head_dim)
      range_error(
          r, "rotary_dim",
          "expected at most head_dim (" + std::to_string(a.head_dim) + "), but got " + std::to_string(a.rotary_dim));
  }
  m.tie_word_embeddings = r.boolean_or("tie_word_embeddings", false);
  moe_spec& e = m.moe;
  e.num_experts = r.positive("num_local_experts");
  e.experts_per_token = r.positive("num_experts_per_tok");
  check_top_k(r, "num_experts_per_tok", e);
  e.expert_intermediate_size = r.positive("intermediate_size");
  e.shared_intermediate_size = r.non_negative_or("shared_intermediate_size", 0);
  e.router_bias = r.boolean_or("use_routing_bias", true);
  m.mlp.intermediate_size = 0;
  layer_desc d;
  d.moe = true;
  set_layers(m, std::vector<layer_desc>(static_cast<std::size_t>(m.num_layers), d));
}

}  // namespace flopcast::detail
