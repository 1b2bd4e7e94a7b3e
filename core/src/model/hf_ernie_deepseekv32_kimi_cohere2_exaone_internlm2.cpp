// Config readers for ERNIE 4.5 (ernie4_5, ernie4_5_moe), DeepSeek-V3.2 (deepseek_v32), Kimi K2
// (kimi_k2), Cohere 2 (cohere2: Command R7B, Command A), EXAONE 3.5 (exaone) and InternLM2
// (internlm2), registered in families() in hf_config.cpp. Most start from read_llama_family.
#include <algorithm>
#include <string>
#include <vector>

#include "base/detail.hpp"
#include "base/json_reader.hpp"
#include "model/hf_common.hpp"

namespace flopcast::detail {

// ernie4_5 (ERNIE-4.5-0.3B): Llama's layout; use_bias puts biases on every projection.
void read_ernie4_5(const reader& r, model_spec& m) {
  read_llama_family(r, m);
  const bool bias = r.boolean_or("use_bias", false);
  m.attention.qkv_bias = m.attention.o_bias = bias;
  m.mlp.bias = bias;
  m.tie_word_embeddings = r.boolean_or("tie_word_embeddings", true);
}

// ernie4_5_moe (ERNIE-4.5-21B-A3B, ERNIE-4.5-300B-A47B): ERNIE attention; MoE layers from
// moe_layer_start_index to moe_layer_end_index (every moe_layer_interval-th): moe_num_experts
// experts of moe_intermediate_size, moe_k per token, moe_num_shared_experts always on and a router
// score-correction bias (moe_statics); dense layers of intermediate_size. Its MTP layers are not
// counted.
void read_ernie4_5_moe(const reader& r, model_spec& m) {
  read_ernie4_5(r, m);
  const bool bias = m.mlp.bias;
  moe_spec& e = m.moe;
  e.num_experts = r.positive("moe_num_experts");
  e.experts_per_token = r.positive("moe_k");
  check_top_k(r, "moe_k", e);
  e.expert_intermediate_size = r.positive("moe_intermediate_size");
  e.shared_intermediate_size = mul(r.non_negative_or("moe_num_shared_experts", 0), e.expert_intermediate_size);
  e.router_bias = true;
  e.expert_bias = bias;
  const std::int64_t n = m.num_layers;
  const std::int64_t start = r.non_negative_or("moe_layer_start_index", 1);
  std::int64_t end = n - 1;
  if (r.has("moe_layer_end_index")) {
    end = r.integer("moe_layer_end_index", -1, reader::k_max_layers, "a layer index, or -1 for the last layer");
    if (end < 0) end = n - 1;
  }
  const std::int64_t interval = r.positive_or("moe_layer_interval", 1);
  std::vector<layer_desc> layers(static_cast<std::size_t>(n));
  bool any_dense = false;
  for (std::int64_t i = 0; i < n; ++i) {
    const bool moe = (i + 1) % interval == 0 && i >= start && i <= end;
    layers[static_cast<std::size_t>(i)].moe = moe;
    any_dense = any_dense || !moe;
  }
  m.mlp.intermediate_size = any_dense ? r.positive("intermediate_size") : 0;
  set_layers(m, layers);
}

// deepseek_v32 (DeepSeek-V3.2-Exp, DeepSeek-V3.2): DeepSeek-V3's MLA and MoE plus the lightning
// indexer of DeepSeek Sparse Attention in every layer (index_n_heads heads of index_head_dim,
// index_topk keys kept per query).
void read_deepseek_v32(const reader& r, model_spec& m) {
  const std::string type = m.model_type;
  m.model_type = "deepseek_v3";  // read_llama_family dispatches on the model type
  read_llama_family(r, m);
  m.model_type = type;
  attention_spec& a = m.attention;
  a.index_heads = r.positive("index_n_heads");
  a.index_head_dim = r.positive("index_head_dim");
  a.index_topk = r.positive("index_topk");
  if (a.q_lora_rank == 0)
    range_error(r, "q_lora_rank",
                "expected a positive integer (the indexer's queries come from the q LoRA), but got 0");
}

// kimi_k2 (the text_config of Kimi-K2.5): DeepSeek-V3's layout under Moonshot's model type.
void read_kimi_k2(const reader& r, model_spec& m) {
  const std::string type = m.model_type;
  m.model_type = "deepseek_v3";
  read_llama_family(r, m);
  m.model_type = type;
}

// cohere2 (Command R7B, Command A): Cohere's parallel block behind one bias-free LayerNorm, tied
// embeddings; sliding-window layers with RoPE and, every sliding_window_pattern-th layer (or as
// layer_types says), a full-attention layer without positions.
void read_cohere2(const reader& r, model_spec& m) {
  read_cohere(r, m);
  m.attention.qk_norm = false;
  m.attention.qk_norm_full_width = false;
  const std::int64_t w = r.non_negative_or("sliding_window", 4096);
  const std::vector<std::string> kinds = window_layer_kinds(r, m.num_layers);
  const std::int64_t pattern = r.positive_or("sliding_window_pattern", 4);
  std::vector<layer_desc> layers(static_cast<std::size_t>(m.num_layers));
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const bool sliding =
        kinds.empty() ? (static_cast<std::int64_t>(i) + 1) % pattern != 0 : kinds[i] == "sliding_attention";
    layers[i].window = sliding ? w : 0;
    layers[i].nope = !sliding;  // Cohere2Attention applies RoPE in sliding layers only
  }
  set_layers(m, layers);
}

// exaone (EXAONE 3.0 / 3.5): Llama's shapes under its own names (num_layers, layer_norm_epsilon),
// no biases, RMSNorm.
void read_exaone(const reader& r, model_spec& m) {
  m.arch = architecture::decoder;
  m.hidden_size = r.positive("hidden_size");
  m.num_layers = r.layers("num_layers");
  m.vocab_size = r.positive("vocab_size");
  m.max_position_embeddings = r.non_negative_or("max_position_embeddings", 0);
  read_heads(r, m, "num_attention_heads", "num_key_value_heads", 0);
  m.norm = norm_kind::rmsnorm;
  m.position = position_kind::rotary;
  m.mlp.gated = true;
  m.mlp.activation = r.string_or("activation_function", "silu");
  m.mlp.intermediate_size = r.positive("intermediate_size");
  m.tie_word_embeddings = r.boolean_or("tie_word_embeddings", true);
  uniform_layers(m);
}

// internlm2 (InternLM2 / 2.5): Llama's shapes with a fused wqkv (same count as q, k and v), bias
// on every attention projection when bias is set.
void read_internlm2(const reader& r, model_spec& m) {
  read_llama_family(r, m);
  const bool bias = r.boolean_or("bias", false);
  m.attention.qkv_bias = m.attention.o_bias = bias;
  m.tie_word_embeddings = r.boolean_or("tie_word_embeddings", false);
}

}  // namespace flopcast::detail
