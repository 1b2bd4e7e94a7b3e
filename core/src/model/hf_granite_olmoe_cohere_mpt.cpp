// More config.json families: Granite (dense and MoE), OLMoE, Cohere (Command-R) and MPT,
// registered in families() in hf_config.cpp.
#include "base/detail.hpp"
#include "base/json_reader.hpp"
#include "model/hf_common.hpp"

namespace flopcast::detail {

namespace {

// Every layer's MLP a mixture of `experts` gated experts of width intermediate_size (no
// shared expert, router Linear(h, experts) without bias).
void all_moe_layers(const reader& r, model_spec& m, std::string_view experts_key) {
  moe_spec& e = m.moe;
  e.num_experts = r.positive(experts_key);
  e.experts_per_token = r.positive("num_experts_per_tok");
  if (e.experts_per_token > e.num_experts)
    range_error(r, "num_experts_per_tok",
                "expected at most the number of experts (" + std::to_string(e.num_experts) + "), but got " +
                    std::to_string(e.experts_per_token));
  e.expert_intermediate_size = r.positive("intermediate_size");
  layer_desc d;
  d.moe = true;
  set_layers(m, std::vector<layer_desc>(static_cast<std::size_t>(m.num_layers), d));
}

}  // namespace

// granite (IBM Granite 3.x dense): Llama's layout; the embedding, residual, attention and
// logits multipliers scale activations and change no parameter count.
void read_granite(const reader& r, model_spec& m) {
  read_llama_family(r, m);
  m.attention.qkv_bias = m.attention.o_bias = r.boolean_or("attention_bias", false);
  m.mlp.bias = r.boolean_or("mlp_bias", false);
}

// granitemoe (Granite 3.x MoE): Granite attention, every layer num_local_experts experts.
void read_granitemoe(const reader& r, model_spec& m) {
  read_granite(r, m);
  m.mlp.bias = false;
  all_moe_layers(r, m, "num_local_experts");
}

// olmoe (OLMoE-1B-7B): RMSNorm over the whole q and k projections, every layer an MoE.
void read_olmoe(const reader& r, model_spec& m) {
  read_llama_family(r, m);
  m.attention.qkv_bias = m.attention.o_bias = r.boolean_or("attention_bias", false);
  m.attention.qk_norm = true;
  m.attention.qk_norm_full_width = true;
  all_moe_layers(r, m, "num_experts");
}

// cohere (Command-R): one LayerNorm without bias feeds attention and MLP in parallel; tied
// embeddings; logit_scale scales logits only; optional per-head q/k LayerNorms.
void read_cohere(const reader& r, model_spec& m) {
  read_llama_family(r, m);
  m.attention.qkv_bias = m.attention.o_bias = r.boolean_or("attention_bias", false);
  m.attention.qk_norm = r.boolean_or("use_qk_norm", false);
  m.attention.qk_norm_full_width = m.attention.qk_norm;
  m.norm = norm_kind::layernorm;
  m.norm_bias = false;
  m.norms_per_layer = 1;
  m.parallel_attention = true;
  m.tie_word_embeddings = r.boolean_or("tie_word_embeddings", true);
}

// mpt (MosaicML MPT): ALiBi (or learned positions), non-gated MLP of expansion_ratio x d_model,
// no biases anywhere with no_bias (LayerNorms included), attention settings under attn_config.
void read_mpt(const reader& r, model_spec& m) {
  read_mha_stack(r, m, architecture::decoder, "d_model", "n_layers", "n_heads");
  const bool bias = !r.boolean_or("no_bias", true);
  m.attention.qkv_bias = m.attention.o_bias = bias;
  m.mlp.bias = bias;
  m.norm_bias = bias;
  m.mlp.gated = false;
  m.mlp.activation = "gelu";
  m.mlp.intermediate_size = mul(r.positive_or("expansion_ratio", 4), m.hidden_size);
  m.max_position_embeddings = r.positive_or("max_seq_len", 2048);
  bool alibi = true;
  if (r.has("attn_config")) {
    const reader a(r.at("attn_config"), r.ptr("attn_config"));
    alibi = a.boolean_or("alibi", true);
    if (a.boolean_or("qk_ln", false))
      range_error(a, "qk_ln", "expected false (MPT's q/k LayerNorm is not supported), but got true");
    const std::string type = a.string_or("attn_type", "multihead_attention");
    if (type == "multiquery_attention")
      m.attention.num_kv_heads = 1;
    else if (type == "grouped_query_attention")
      read_heads(r, m, "n_heads", "__none__", a.positive("kv_n_heads"));
    else if (type != "multihead_attention")
      range_error(a, "attn_type",
                  "expected \"multihead_attention\", \"multiquery_attention\" or \"grouped_query_attention\", but "
                  "got \"" +
                      type + "\"");
  }
  if (alibi) {
    m.position = position_kind::alibi;
  } else {
    m.position = position_kind::learned;  // wpe: one row per position up to max_seq_len
    m.learned_positions = m.max_position_embeddings;
  }
  m.tie_word_embeddings = true;  // MPT's head is always the token embedding
  uniform_layers(m);
}

}  // namespace flopcast::detail
