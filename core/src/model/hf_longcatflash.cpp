// Config reader for Meituan's LongCat-Flash (longcat_flash), registered in families() in
// hf_config.cpp.
#include <string>
#include <vector>

#include "base/detail.hpp"
#include "base/json_reader.hpp"
#include "model/hf_common.hpp"
#include "model/model_parts.hpp"

namespace flopcast::detail {

// longcat_flash (LongCat-Flash-Chat, -Thinking): each of num_layers layers holds two sublayers,
// each a DeepSeek-V3 MLA block (q LoRA always on, no biases) and a SwiGLU MLP of ffn_hidden_size,
// with two RMSNorms; beside the first sublayer's MLP a shortcut MoE reads the same input:
// n_routed_experts SwiGLU experts of expert_ffn_hidden_size plus zero_expert_num identity
// experts, moe_topk of them per token, behind a bias-free router (classifier) with an
// e_score_correction_bias over all of them (LongcatFlashDecoderLayer, LongcatFlashTopkRouter in
// huggingface/transformers). flopcast reads the model as 2 x num_layers layers: the first of
// each pair a MoE layer whose always-on MLP is the shared-expert width, the second a dense one.
// The MTP module (model.mtp.*) is not counted.
void read_longcat_flash(const reader& r, model_spec& m) {
  m.arch = architecture::decoder;
  m.hidden_size = r.positive("hidden_size");
  const std::int64_t layers = r.layers("num_layers");
  m.num_layers = 2 * layers;
  m.vocab_size = r.positive("vocab_size");
  m.max_position_embeddings = r.non_negative_or("max_position_embeddings", 0);
  m.norm = norm_kind::rmsnorm;
  m.norms_per_layer = 2;
  m.position = position_kind::rotary;
  m.tie_word_embeddings = r.boolean_or("tie_word_embeddings", false);
  m.mlp.gated = true;
  m.mlp.activation = r.string_or("hidden_act", "silu");
  m.mlp.intermediate_size = r.positive(r.pick({"ffn_hidden_size", "intermediate_size"}));

  attention_spec& a = m.attention;
  a.mla = true;
  a.num_heads = r.positive("num_attention_heads");
  a.num_kv_heads = a.num_heads;
  a.q_lora_rank = r.positive_or("q_lora_rank", 1536);
  a.kv_lora_rank = r.positive_or("kv_lora_rank", 512);
  a.qk_nope_head_dim = r.positive_or("qk_nope_head_dim", 128);
  a.qk_rope_head_dim = r.positive_or("qk_rope_head_dim", 64);
  a.v_head_dim = r.positive_or("v_head_dim", 128);
  a.head_dim = a.qk_nope_head_dim + a.qk_rope_head_dim;
  a.rotary_dim = a.qk_rope_head_dim;
  if (r.boolean_or("attention_bias", false))
    range_error(r, "attention_bias", "expected false (LongcatFlashMLA has no biases), but got true");

  moe_spec& e = m.moe;
  e.num_experts = r.positive(r.pick({"n_routed_experts", "num_local_experts"}));
  e.zero_experts = r.non_negative_or("zero_expert_num", 0);
  e.experts_per_token = r.positive(r.pick({"moe_topk", "num_experts_per_tok"}));
  if (e.experts_per_token > router_outputs(e))
    range_error(r, r.pick({"moe_topk", "num_experts_per_tok"}),
                "expected at most the number of routed and zero-computation experts (" +
                    std::to_string(router_outputs(e)) + "), but got " + std::to_string(e.experts_per_token));
  e.expert_intermediate_size = r.positive("expert_ffn_hidden_size");
  e.shared_intermediate_size = m.mlp.intermediate_size;  // mlps[0], beside the shortcut MoE
  e.router_bias = true;                                  // e_score_correction_bias
  if (r.boolean_or("router_bias", false))
    range_error(r, "router_bias",
                "expected false (a classifier bias beside the score-correction bias is not supported), but got true");

  std::vector<layer_desc> sublayers(static_cast<std::size_t>(m.num_layers));
  for (std::size_t i = 0; i < sublayers.size(); i += 2) sublayers[i].moe = true;
  set_layers(m, sublayers);
}

}  // namespace flopcast::detail
