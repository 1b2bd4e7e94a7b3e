// Config readers for Phi-3.5-MoE (phimoe), DBRX (dbrx), Hunyuan-A13B (hunyuan_v1_moe) and Ling
// (bailing_moe, bailing_moe_v2), registered in families() in hf_config.cpp: GQA decoders whose
// every layer (or every layer after a few dense ones) is a mixture of experts.
#include <string>
#include <vector>

#include "base/detail.hpp"
#include "base/json_reader.hpp"
#include "model/hf_common.hpp"

namespace flopcast::detail {

namespace {

// Hunyuan writes some MoE sizes per layer (a list) or once (an integer): the one value, a list
// having to name every layer with the same value (model_spec has one expert shape).
std::int64_t hunyuan_uniform_value(const reader& r, std::string_view key, std::int64_t layers, std::int64_t fallback,
                                   bool allow_zero) {
  if (!r.has(key)) return fallback;
  if (!r.at(key).is_array()) return allow_zero ? r.non_negative_or(key, fallback) : r.positive(key);
  const std::vector<std::int64_t> list = r.int_list_or_empty(key);
  check_list_length(r, key, list.size(), layers);
  for (std::size_t i = 0; i < list.size(); ++i) {
    if (list[i] < (allow_zero ? 0 : 1) || list[i] > reader::k_max_dim)
      throw error(error_code::config_range, r.ptr(key) + "/" + std::to_string(i),
                  std::string("expected a ") + (allow_zero ? "non-negative" : "positive") + " integer, but got " +
                      std::to_string(list[i]));
    if (list[i] != list[0])
      throw error(error_code::config_range, r.ptr(key) + "/" + std::to_string(i),
                  "expected the same value in every layer (" + std::to_string(list[0]) +
                      ": one expert shape per model), but got " + std::to_string(list[i]));
  }
  return list.empty() ? fallback : list[0];
}

}  // namespace

// phimoe (Phi-3.5-MoE): GQA with q/k/v/o biases (attention_bias), LayerNorms with bias, every
// layer num_local_experts gated experts of intermediate_size with a bias-free router, an untied
// head with a bias (lm_head_bias).
void read_phimoe(const reader& r, model_spec& m) {
  read_llama_family(r, m);
  m.attention.qkv_bias = m.attention.o_bias = r.boolean_or("attention_bias", false);
  m.norm = norm_kind::layernorm;
  m.norm_bias = true;
  m.tie_word_embeddings = r.boolean_or("tie_word_embeddings", false);
  m.lm_head_bias = r.boolean_or("lm_head_bias", false);
  moe_spec& e = m.moe;
  e.num_experts = r.positive_or("num_local_experts", 16);
  e.experts_per_token = r.positive_or("num_experts_per_tok", 2);
  check_top_k(r, "num_experts_per_tok", e);
  e.expert_intermediate_size = r.positive("intermediate_size");
  m.mlp.intermediate_size = 0;
  layer_desc d;
  d.moe = true;
  d.window = r.non_negative_or("sliding_window", 0);
  set_layers(m, std::vector<layer_desc>(static_cast<std::size_t>(m.num_layers), d));
}

// dbrx (DBRX): d_model, n_heads and n_layers at the top, attn_config.kv_n_heads KV heads sharing
// one fused Wqkv without bias, bias-free LayerNorms, every layer ffn_config.moe_num_experts gated
// experts of ffn_hidden_size (moe_top_k per token) behind a bias-free router, an untied head.
void read_dbrx(const reader& r, model_spec& m) {
  m.arch = architecture::decoder;
  m.hidden_size = r.positive("d_model");
  m.num_layers = r.layers("n_layers");
  m.vocab_size = r.positive("vocab_size");
  m.max_position_embeddings = r.non_negative_or("max_seq_len", 2048);
  const json no_config = json::object();
  const reader attn(r.has("attn_config") ? r.at("attn_config") : no_config, r.ptr("attn_config"));
  const reader ffn(r.has("ffn_config") ? r.at("ffn_config") : no_config, r.ptr("ffn_config"));
  attention_spec& a = m.attention;
  a.num_heads = r.positive("n_heads");
  a.num_kv_heads = attn.positive_or("kv_n_heads", 1);
  if (a.num_kv_heads > a.num_heads || a.num_heads % a.num_kv_heads != 0)
    range_error(attn, "kv_n_heads",
                "expected a divisor of n_heads (" + std::to_string(a.num_heads) + "), but got " +
                    std::to_string(a.num_kv_heads));
  if (m.hidden_size % a.num_heads != 0)
    range_error(
        r, "n_heads",
        "expected a divisor of d_model " + std::to_string(m.hidden_size) + ", but got " + std::to_string(a.num_heads));
  a.head_dim = a.v_head_dim = a.rotary_dim = m.hidden_size / a.num_heads;
  m.norm = norm_kind::layernorm;
  m.norm_bias = false;  // nn.LayerNorm(..., bias=False)
  m.position = position_kind::rotary;
  m.tie_word_embeddings = r.boolean_or("tie_word_embeddings", false);
  m.mlp.gated = true;
  m.mlp.activation = "silu";
  moe_spec& e = m.moe;
  e.num_experts = ffn.positive_or("moe_num_experts", 4);
  e.experts_per_token = ffn.positive_or("moe_top_k", 1);
  check_top_k(ffn, "moe_top_k", e);
  e.expert_intermediate_size = ffn.positive_or("ffn_hidden_size", 3584);
  layer_desc d;
  d.moe = true;
  set_layers(m, std::vector<layer_desc>(static_cast<std::size_t>(m.num_layers), d));
}

// hunyuan_v1_moe (Hunyuan-A13B): GQA with per-head q/k RMSNorms (use_qk_norm), every layer
// num_experts experts of moe_intermediate_size (moe_topk per token) behind a bias-free router and
// a shared MLP of intermediate_size x num_shared_expert; tied embeddings by default. The MoE
// sizes may be per-layer lists, which must then repeat one value. Cross-layer attention
// (use_cla, Hunyuan-Large) shares K and V between layers and is refused.
void read_hunyuan_v1_moe(const reader& r, model_spec& m) {
  read_llama_family(r, m);
  attention_spec& a = m.attention;
  a.qkv_bias = a.o_bias = r.boolean_or("attention_bias", false);
  a.qk_norm = r.boolean_or("use_qk_norm", false);
  a.qk_norm_full_width = false;
  if (r.boolean_or("use_cla", false))
    range_error(r, "use_cla", "expected false (cross-layer attention shares K and V across layers), but got true");
  m.tie_word_embeddings = r.boolean_or("tie_word_embeddings", true);
  const std::int64_t n = m.num_layers;
  moe_spec& e = m.moe;
  e.num_experts = hunyuan_uniform_value(r, "num_experts", n, 1, false);
  e.experts_per_token = hunyuan_uniform_value(r, "moe_topk", n, 1, false);
  check_top_k(r, "moe_topk", e);
  const std::int64_t width = r.positive("intermediate_size");
  e.expert_intermediate_size = hunyuan_uniform_value(r, "moe_intermediate_size", n, width, false);
  e.shared_intermediate_size = mul(hunyuan_uniform_value(r, "num_shared_expert", n, 1, true), width);
  m.mlp.intermediate_size = 0;
  layer_desc d;
  d.moe = true;
  set_layers(m, std::vector<layer_desc>(static_cast<std::size_t>(n), d));
}

// bailing_moe, bailing_moe_v2 (Ling-lite, Ling-plus, Ling 2.0): a fused query_key_value
// projection (bias: use_qkv_bias) and a dense output projection (bias: use_bias); Ling 2.0 adds
// per-head q/k RMSNorms (use_qk_norm) and a router score-correction bias
// (moe_router_enable_expert_bias). After first_k_dense_replace dense layers of
// intermediate_size, num_experts experts of moe_intermediate_size and num_shared_experts shared
// ones (moe_shared_expert_intermediate_size wide in all, or num_shared_experts x the expert
// width). The MTP layers (num_nextn_predict_layers) are not counted.
void read_bailing_moe(const reader& r, model_spec& m) {
  read_llama_family(r, m);
  attention_spec& a = m.attention;
  a.qkv_bias = r.boolean_or("use_qkv_bias", false);
  a.o_bias = r.boolean_or("use_bias", false);
  a.qk_norm = r.boolean_or("use_qk_norm", false);
  a.qk_norm_full_width = false;
  m.tie_word_embeddings = r.boolean_or("tie_word_embeddings", false);
  moe_spec& e = m.moe;
  e.num_experts = r.positive("num_experts");
  e.experts_per_token = r.positive("num_experts_per_tok");
  check_top_k(r, "num_experts_per_tok", e);
  e.expert_intermediate_size = r.positive("moe_intermediate_size");
  const std::int64_t shared = r.non_negative_or("num_shared_experts", 0);
  e.shared_intermediate_size =
      shared == 0 ? 0 : r.positive_or("moe_shared_expert_intermediate_size", mul(shared, e.expert_intermediate_size));
  e.router_bias = r.boolean_or("moe_router_enable_expert_bias", false);
  set_moe_pattern(r, m, mlp_layer_types_or_first_dense(r, m.num_layers, 0));
}

}  // namespace flopcast::detail
