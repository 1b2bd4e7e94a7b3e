// Config readers for Grok-1 (grok-1), K-EXAONE (exaone_moe), openPangu-Ultra-MoE (pangu_ultra_moe),
// Mistral Small 4 (mistral4), A.X K1 (axk1) and Sarvam-105B (sarvam_mla), registered in families()
// in hf_config.cpp: mixture-of-experts decoders read as an existing family's layout (Llama
// attention, EXAONE 4.0's hybrid attention, DeepSeek-V3's latent attention) plus their own keys.
#include <string>
#include <vector>

#include "base/detail.hpp"
#include "base/json_reader.hpp"
#include "model/hf_common.hpp"

namespace flopcast::detail {

// grok-1 (xai-org/grok-1 in HPC-AI Tech's transformers port, Grok1Config; vLLM grok1.py,
// llama.cpp's grok): GQA attention without biases, every layer num_experts GELU-gated experts
// of intermediate_size (num_experts_per_tok per token) behind a bias-free router, and four
// RMSNorms per layer (pre_attn_norm, post_attn_norm, pre_moe_norm, post_moe_norm). The head
// reuses the embedding (tie_word_embeddings, true by default). attn_output_multiplier,
// embedding_multiplier_scale, output_multiplier_scale and max_attn_value scale activations and
// add no weight.
void read_grok1(const reader& r, model_spec& m) {
  const std::string type = m.model_type;
  m.model_type = "llama";  // read_llama_family dispatches on the model type
  read_llama_family(r, m);
  m.model_type = type;
  m.attention.qkv_bias = m.attention.o_bias = false;
  m.norms_per_layer = 4;
  m.tie_word_embeddings = r.boolean_or("tie_word_embeddings", true);
  m.mlp.activation = "gelu";  // Grok1's experts gate with GELU whatever hidden_act says
  moe_spec& e = m.moe;
  e.num_experts = r.positive_or(r.pick({"num_experts", "num_local_experts"}), 8);
  e.experts_per_token = r.positive_or("num_experts_per_tok", 2);
  check_top_k(r, "num_experts_per_tok", e);
  e.expert_intermediate_size = m.mlp.intermediate_size;
  m.mlp.intermediate_size = 0;
  layer_desc d;
  d.moe = true;
  set_layers(m, std::vector<layer_desc>(static_cast<std::size_t>(m.num_layers), d));
}

// exaone_moe (K-EXAONE-236B-A23B; transformers modular_exaone_moe.py): EXAONE 4.0's attention
// (per-head q/k RMSNorms; sliding layers by sliding_window_pattern or layer_types, global
// layers without positions) in OLMoE's pre-norm layer (two RMSNorms), and DeepSeek-V3's MoE:
// num_experts experts of moe_intermediate_size behind a router with a score-correction bias,
// plus a shared MLP of num_shared_experts x moe_intermediate_size. Dense layers of
// intermediate_size by mlp_layer_types, or the first first_k_dense_replace (default 1). The
// MTP layer is not loaded (transformers ignores mtp.*) and not counted.
void read_exaone_moe(const reader& r, model_spec& m) {
  read_exaone4(r, m);
  moe_spec& e = m.moe;
  e.num_experts = r.positive_or("num_experts", 64);
  e.experts_per_token = r.positive_or("num_experts_per_tok", 8);
  check_top_k(r, "num_experts_per_tok", e);
  e.expert_intermediate_size = r.positive_or("moe_intermediate_size", 1024);
  e.shared_intermediate_size = mul(r.non_negative_or("num_shared_experts", 1), e.expert_intermediate_size);
  e.router_bias = true;  // e_score_correction_bias in every MoE layer
  const std::vector<bool> moe = mlp_layer_types_or_first_dense(r, m.num_layers, 1);
  // Keep each layer's window and NoPE from read_exaone4 and add its MLP kind.
  std::vector<layer_desc> layers(moe.size());
  bool any_dense = false;
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const layer_group& g = m.groups[m.layer_group_of[i]];
    layers[i].window = g.window;
    layers[i].nope = g.nope;
    layers[i].moe = moe[i];
    any_dense = any_dense || !moe[i];
  }
  if (!any_dense) m.mlp.intermediate_size = 0;
  set_layers(m, layers);
}

// pangu_ultra_moe (openPangu-Ultra-MoE-718B; the checkpoint's modeling_openpangu_moe.py): DeepSeek-V3's
// multi-head latent attention under its own keys (attention_q_lora_dim, attention_kv_lora_dim,
// attention_qk_dim + attention_qk_rope_dim per query head, attention_v_dim), num_dense_layers
// dense layers of intermediate_size, then num_routed_experts experts of moe_intermediate_size
// behind a bias-free sigmoid router plus a shared MLP of num_shared_experts x
// moe_intermediate_size. sandwich_norm adds pre_mlp_layernorm and post_mlp_layernorm (four
// RMSNorms a layer). Defaults are OpenPanguMoEConfig's; the MTP layers (num_mtp_layers) are not
// loaded and not counted.
void read_pangu_ultra_moe(const reader& r, model_spec& m) {
  const std::string type = m.model_type;
  m.model_type = "llama";  // read_llama_family dispatches on the model type
  read_llama_family(r, m);
  m.model_type = type;
  m.tie_word_embeddings = r.boolean_or("tie_word_embeddings", false);
  m.norms_per_layer = r.boolean_or("sandwich_norm", false) ? 4 : 2;
  attention_spec& a = m.attention;
  a.mla = true;
  a.num_kv_heads = a.num_heads;
  const json& j = r.value();
  const bool plain_q = j.contains("attention_q_lora_dim") && j.at("attention_q_lora_dim").is_null();
  a.q_lora_rank = plain_q ? 0 : r.positive_or("attention_q_lora_dim", 1536);
  a.kv_lora_rank = r.positive_or("attention_kv_lora_dim", 512);
  a.qk_nope_head_dim = r.positive_or("attention_qk_dim", 128);
  a.qk_rope_head_dim = r.positive_or("attention_qk_rope_dim", 64);
  a.v_head_dim = r.positive_or("attention_v_dim", 128);
  a.head_dim = a.qk_nope_head_dim + a.qk_rope_head_dim;
  a.rotary_dim = a.qk_rope_head_dim;
  a.qkv_bias = a.o_bias = false;
  a.qk_norm = false;
  moe_spec& e = m.moe;
  const bool dense_only = j.contains("num_routed_experts") && j.at("num_routed_experts").is_null();
  e.num_experts = dense_only ? 0 : r.positive_or("num_routed_experts", 256);
  std::vector<bool> moe(static_cast<std::size_t>(m.num_layers), false);
  if (e.num_experts > 0) {
    e.experts_per_token = r.positive_or("num_experts_per_tok", 8);
    check_top_k(r, "num_experts_per_tok", e);
    e.expert_intermediate_size = r.positive_or("moe_intermediate_size", 2048);
    e.shared_intermediate_size = mul(r.non_negative_or("num_shared_experts", 1), e.expert_intermediate_size);
    for (std::int64_t i = r.non_negative_or("num_dense_layers", 3); i < m.num_layers; ++i)
      moe[static_cast<std::size_t>(i)] = true;
  }
  set_moe_pattern(r, m, moe);
}

// mistral4 (Mistral Small 4, the text_config of its mistral3 wrapper; transformers
// modular_mistral4.py, llama.cpp's mistral4): DeepSeek-V3's latent attention (q_lora_rank,
// kv_lora_rank, qk_nope_head_dim + qk_rope_head_dim, v_head_dim) and routed + shared experts
// after first_k_dense_replace dense layers (none by default), read by the deepseek_v3 branch of
// read_llama_family; its router (Mistral4TopkRouter) has no score-correction bias.
void read_mistral4(const reader& r, model_spec& m) {
  const std::string type = m.model_type;
  m.model_type = "deepseek_v3";  // read_llama_family dispatches on the model type
  read_llama_family(r, m);
  m.model_type = type;
  m.tie_word_embeddings = r.boolean_or("tie_word_embeddings", false);
  m.moe.router_bias = false;
}

// axk1 (A.X K1; vLLM AXK1.py, transformers' AXK1 port): DeepSeek-V3's latent attention and
// routed + shared experts with a score-correction bias, read by the deepseek_v3 branch of
// read_llama_family, plus a post_mlp_layernorm on the output of every MoE block (three RMSNorms
// in MoE layers, two in the dense ones). The MTP layers are not counted.
void read_axk1(const reader& r, model_spec& m) {
  const std::string type = m.model_type;
  m.model_type = "deepseek_v3";  // read_llama_family dispatches on the model type
  read_llama_family(r, m);
  m.model_type = type;
  m.tie_word_embeddings = r.boolean_or("tie_word_embeddings", false);
  std::vector<layer_desc> layers(m.layer_group_of.size());
  for (std::size_t i = 0; i < layers.size(); ++i) {
    layers[i].moe = m.groups[m.layer_group_of[i]].moe;
    if (layers[i].moe) layers[i].norms = m.norms_per_layer + 1;  // post_mlp_layernorm
  }
  set_layers(m, layers);
}

// sarvam_mla (Sarvam-105B; transformers modular_sarvam_mla.py, vLLM sarvam.py): DeepSeek-V3's
// layers unchanged (latent attention, routed + shared experts behind a router with a
// score-correction bias) under Sarvam's MoE keys: num_experts experts of moe_intermediate_size,
// num_experts_per_tok per token, num_shared_experts shared ones, dense layers by mlp_layer_types
// or the first first_k_dense_replace (default 1). The latent-attention keys are DeepSeek's.
void read_sarvam_mla(const reader& r, model_spec& m) {
  const std::string type = m.model_type;
  m.model_type = "deepseek_v3";  // read_llama_family dispatches on the model type
  read_llama_family(r, m);
  m.model_type = type;
  m.tie_word_embeddings = r.boolean_or("tie_word_embeddings", false);
  moe_spec& e = m.moe;
  e.num_experts = r.positive(r.pick({"num_experts", "n_routed_experts"}));
  e.experts_per_token = r.positive("num_experts_per_tok");
  check_top_k(r, "num_experts_per_tok", e);
  e.expert_intermediate_size = r.positive("moe_intermediate_size");
  e.shared_intermediate_size =
      mul(r.non_negative_or(r.pick({"num_shared_experts", "n_shared_experts"}), 1), e.expert_intermediate_size);
  e.router_bias = true;  // e_score_correction_bias in every MoE layer
  set_moe_pattern(r, m, mlp_layer_types_or_first_dense(r, m.num_layers, 1));
}

}  // namespace flopcast::detail
