// Config readers for Orion (orion: Orion-14B), XVERSE (xverse: XVERSE-7B/13B/65B), JAIS 2 (jais2)
// and CodeShell (codeshell), registered in families() in hf_config.cpp. The first three start from
// read_llama_family, CodeShell from GPTBigCode.
#include <string>

#include "base/json_reader.hpp"
#include "model/hf_common.hpp"

namespace flopcast::detail {

// orion (Orion-14B, remote code; OrionForCausalLM in vLLM): Llama's projections without biases and
// a gated SiLU MLP, but nn.LayerNorm (weight and bias) where Llama has RMSNorm, before attention,
// before the MLP and at the end; an untied head.
void read_orion(const reader& r, model_spec& m) {
  read_llama_family(r, m);
  m.attention.qkv_bias = m.attention.o_bias = false;
  m.norm = norm_kind::layernorm;
  m.tie_word_embeddings = r.boolean_or("tie_word_embeddings", false);
}

// xverse (XVERSE, remote code; llama.cpp's xverse): Llama's layout exactly (RMSNorm, no biases,
// gated SiLU MLP, untied head).
void read_xverse(const reader& r, model_spec& m) {
  read_llama_family(r, m);
  m.attention.qkv_bias = m.attention.o_bias = false;
  m.tie_word_embeddings = r.boolean_or("tie_word_embeddings", false);
}

// jais2 (Jais2ForCausalLM): pre-norm LayerNorms with bias, rotary attention with q/k/v/o biases when
// attention_bias (or bias) is set, a plain up_proj -> relu2 -> down_proj MLP (biases with mlp_bias),
// the head tied or not as tie_word_embeddings says.
void read_jais2(const reader& r, model_spec& m) {
  read_llama_family(r, m);
  const bool bias = r.boolean_or("attention_bias", false) || r.boolean_or("bias", false);
  m.attention.qkv_bias = m.attention.o_bias = bias;
  m.norm = norm_kind::layernorm;
  m.mlp.gated = false;
  m.mlp.bias = r.boolean_or("mlp_bias", false);
  m.mlp.activation = r.string_or("hidden_act", "relu2");
  m.tie_word_embeddings = r.boolean_or("tie_word_embeddings", false);
}

// codeshell (CodeShell-7B, remote code; llama.cpp's codeshell): GPTBigCode's block (c_attn and c_proj
// with biases, LayerNorms with bias, c_fc -> gelu -> c_proj with biases, the head tied to wte) with
// num_query_groups key/value heads when group_query_attention is set (all heads otherwise), and
// rotary positions unless position_embedding_type is learned_absolute (then a wpe table of
// n_positions rows).
void read_codeshell(const reader& r, model_spec& m) {
  read_gpt_bigcode(r, m);
  attention_spec& a = m.attention;
  a.num_kv_heads = a.num_heads;
  if (r.boolean_or("group_query_attention", false)) {
    a.num_kv_heads = r.positive("num_query_groups");
    if (a.num_kv_heads > a.num_heads || a.num_heads % a.num_kv_heads != 0)
      range_error(r, "num_query_groups",
                  "expected a divisor of n_head (" + std::to_string(a.num_heads) + "), but got " +
                      std::to_string(a.num_kv_heads));
  }
  const std::string pos = r.string_or("position_embedding_type", "learned_absolute");
  if (pos == "rope") {
    m.position = position_kind::rotary;
    m.learned_positions = 0;
    a.rotary_dim = a.head_dim;
  } else if (pos != "learned_absolute") {
    range_error(r, "position_embedding_type", "expected \"rope\" or \"learned_absolute\", but got \"" + pos + "\"");
  }
}

}  // namespace flopcast::detail
