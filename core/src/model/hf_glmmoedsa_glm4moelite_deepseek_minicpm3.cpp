// Config readers for GLM-5 (glm_moe_dsa), GLM-4.7-Flash (glm4_moe_lite), DeepSeekMoE (deepseek,
// the first DeepSeek MoE generation) and MiniCPM3 (minicpm3), registered in families() in
// hf_config.cpp. The GLM readers are DeepSeek-V3's multi-head latent attention and MoE under
// Zhipu's model types; deepseek is Llama attention with fine-grained and shared experts;
// minicpm3 is DeepSeek-V2's latent attention on a dense model.
#include <string>
#include <vector>

#include "base/detail.hpp"
#include "base/json_reader.hpp"
#include "model/hf_common.hpp"

namespace flopcast::detail {

// Which layers are MoE: the per-layer mlp_layer_types list ("dense" or "sparse", the
// transformers 5 configs) when present, otherwise every layer from first_k_dense_replace on
// (default_first_dense when the config leaves it out).
std::vector<bool> mlp_layer_types_or_first_dense(const reader& r, std::int64_t layers,
                                                 std::int64_t default_first_dense) {
  std::vector<bool> moe(static_cast<std::size_t>(layers), false);
  const std::vector<std::string> types = r.string_list_or_empty("mlp_layer_types");
  if (!types.empty()) {
    check_list_length(r, "mlp_layer_types", types.size(), layers);
    for (std::size_t i = 0; i < moe.size(); ++i) {
      if (types[i] != "dense" && types[i] != "sparse")
        throw error(error_code::config_range, r.ptr("mlp_layer_types") + "/" + std::to_string(i),
                    "expected \"dense\" or \"sparse\", but got \"" + types[i] + "\"");
      moe[i] = types[i] == "sparse";
    }
    return moe;
  }
  const std::int64_t first_dense = r.non_negative_or("first_k_dense_replace", default_first_dense);
  for (std::int64_t i = first_dense; i < layers; ++i) moe[static_cast<std::size_t>(i)] = true;
  return moe;
}

// The layers' MoE pattern into groups, with intermediate_size read only when a dense layer
// exists.
void set_moe_pattern(const reader& r, model_spec& m, const std::vector<bool>& moe) {
  std::vector<layer_desc> layers(moe.size());
  bool any_dense = false;
  for (std::size_t i = 0; i < moe.size(); ++i) {
    layers[i].moe = moe[i];
    any_dense = any_dense || !moe[i];
  }
  m.mlp.intermediate_size = any_dense ? r.positive("intermediate_size") : 0;
  set_layers(m, layers);
}

namespace {

// DeepSeek-V3's MLA and routed + shared experts with a score-correction bias, read by the
// deepseek_v3 branch of read_llama_family, then the layer pattern of the GLM configs (dense
// first layers by first_k_dense_replace, or mlp_layer_types).
void glm_mla_read_deepseek_v3(const reader& r, model_spec& m, std::int64_t default_first_dense) {
  const std::string type = m.model_type;
  m.model_type = "deepseek_v3";  // read_llama_family dispatches on the model type
  read_llama_family(r, m);
  m.model_type = type;
  if (m.moe.num_experts == 0) range_error(r, "n_routed_experts", "expected a positive integer, but got 0");
  m.moe.router_bias = true;  // e_score_correction_bias in every MoE layer
  set_moe_pattern(r, m, mlp_layer_types_or_first_dense(r, m.num_layers, default_first_dense));
}

}  // namespace

// glm_moe_dsa (GLM-5, GLM-5.1): DeepSeek-V3.2's layout (MLA, the lightning indexer in every
// layer, 256 routed experts with one shared) after 3 dense layers by default. The indexer's
// sizes default as GlmMoeDsaConfig's (32 heads of 128, top 2048). GLM-5.2's "shared" indexer
// layers (indexer_types) reuse the previous layer's selection and have no indexer weights of
// their own; they are counted as full ones (about 9.4M parameters each at GLM-5's sizes). The
// MTP layer is not counted.
void read_glm_moe_dsa(const reader& r, model_spec& m) {
  glm_mla_read_deepseek_v3(r, m, 3);
  attention_spec& a = m.attention;
  if (a.q_lora_rank == 0)
    range_error(r, "q_lora_rank",
                "expected a positive integer (the indexer's queries come from the q LoRA), but got 0");
  a.index_heads = r.positive_or("index_n_heads", 32);
  a.index_head_dim = r.positive_or("index_head_dim", 128);
  a.index_topk = r.positive_or("index_topk", 2048);
}

// glm4_moe_lite (GLM-4.7-Flash): DeepSeek-V3's MLA and MoE without the indexer; one dense layer
// first by default (Glm4MoeLiteConfig). The MTP layer is not counted.
void read_glm4_moe_lite(const reader& r, model_spec& m) { glm_mla_read_deepseek_v3(r, m, 1); }

// deepseek (DeepSeekMoE 16B): Llama attention (MHA by default, optional q/k/v/o biases), after
// first_k_dense_replace dense layers a MoE every moe_layer_freq-th layer: n_routed_experts
// experts of moe_intermediate_size, num_experts_per_tok per token, n_shared_experts always on
// (one MLP of n_shared_experts x moe_intermediate_size), a softmax router without bias.
void read_deepseek(const reader& r, model_spec& m) {
  read_llama_family(r, m);
  m.attention.qkv_bias = m.attention.o_bias = r.boolean_or("attention_bias", false);
  m.tie_word_embeddings = r.boolean_or("tie_word_embeddings", false);
  moe_spec& e = m.moe;
  e.num_experts = r.non_negative_or("n_routed_experts", 0);
  std::vector<bool> moe(static_cast<std::size_t>(m.num_layers), false);
  if (e.num_experts > 0) {
    e.experts_per_token = r.positive("num_experts_per_tok");
    check_top_k(r, "num_experts_per_tok", e);
    e.expert_intermediate_size = r.positive("moe_intermediate_size");
    e.shared_intermediate_size = mul(r.non_negative_or("n_shared_experts", 0), e.expert_intermediate_size);
    const std::int64_t first_dense = r.non_negative_or("first_k_dense_replace", 0);
    const std::int64_t freq = r.positive_or("moe_layer_freq", 1);
    for (std::int64_t i = first_dense; i < m.num_layers; ++i) moe[static_cast<std::size_t>(i)] = i % freq == 0;
  }
  set_moe_pattern(r, m, moe);
}

// minicpm3 (MiniCPM3-4B): a dense SwiGLU model whose attention is DeepSeek-V2's MLA (q LoRA of
// q_lora_rank, kv LoRA of kv_lora_rank, qk_nope_head_dim + qk_rope_head_dim per query head);
// the value head is hidden_size / num_attention_heads wide (MiniCPM3Attention.v_head_dim);
// tied embeddings by default (MiniCPM3Config). scale_emb, scale_depth and dim_model_base
// scale activations and change no count.
void read_minicpm3(const reader& r, model_spec& m) {
  read_llama_family(r, m);
  m.tie_word_embeddings = r.boolean_or("tie_word_embeddings", true);
  attention_spec& a = m.attention;
  a.mla = true;
  a.num_kv_heads = a.num_heads;
  a.q_lora_rank = r.non_negative_or("q_lora_rank", 0);
  a.kv_lora_rank = r.positive("kv_lora_rank");
  a.qk_nope_head_dim = r.positive("qk_nope_head_dim");
  a.qk_rope_head_dim = r.positive("qk_rope_head_dim");
  a.v_head_dim = r.positive_or("v_head_dim", m.hidden_size / a.num_heads);
  a.head_dim = a.qk_nope_head_dim + a.qk_rope_head_dim;
  a.rotary_dim = a.qk_rope_head_dim;
  a.qkv_bias = a.o_bias = r.boolean_or("attention_bias", false);
  a.qk_norm = false;
}

}  // namespace flopcast::detail
