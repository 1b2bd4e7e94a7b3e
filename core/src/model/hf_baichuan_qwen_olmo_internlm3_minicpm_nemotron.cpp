// Config readers for Baichuan (baichuan), Qwen 1 (qwen), OLMo 1 (olmo), InternLM3 (internlm3),
// MiniCPM (minicpm) and Nemotron-4 / Minitron (nemotron), registered in families() in
// hf_config.cpp. All start from read_llama_family and set what differs.
#include <string>

#include "base/detail.hpp"
#include "base/json_reader.hpp"
#include "model/hf_common.hpp"

namespace flopcast::detail {

// baichuan (Baichuan-7B, Baichuan2-7B/13B remote code): Llama's layout with a fused W_pack
// (q, k and v without bias, the same count) and an untied lm_head (Baichuan 2's NormHead holds a
// vocab x hidden weight too). The 13B models use ALiBi instead of rotary; like vLLM
// (BaichuanForCausalLM: "ROPE" when hidden_size is 4096, "ALIBI" otherwise) the hidden size tells.
void read_baichuan(const reader& r, model_spec& m) {
  read_llama_family(r, m);
  m.attention.qkv_bias = m.attention.o_bias = false;
  m.tie_word_embeddings = r.boolean_or("tie_word_embeddings", false);
  if (m.max_position_embeddings == 0) m.max_position_embeddings = r.non_negative_or("model_max_length", 0);
  if (m.hidden_size != 4096) {
    m.position = position_kind::alibi;
    m.attention.rotary_dim = 0;
  }
}

// qwen (Qwen-7B/14B/72B and Qwen-1.8B, the first generation, remote code): RMSNorm, c_attn
// with a bias (always), c_proj and the SwiGLU MLP (w1, w2 of intermediate_size / 2 each, then
// c_proj) with biases only when no_bias is false; an untied lm_head.
void read_qwen(const reader& r, model_spec& m) {
  read_llama_family(r, m);
  const std::int64_t ff = r.positive("intermediate_size");
  if (ff % 2 != 0)
    range_error(
        r, "intermediate_size",
        "expected an even number (w1 and w2 are intermediate_size / 2 wide each), but got " + std::to_string(ff));
  m.mlp.intermediate_size = ff / 2;
  attention_spec& a = m.attention;
  if (r.has("kv_channels")) a.head_dim = a.v_head_dim = r.positive("kv_channels");
  const double pct = r.number_or("rotary_pct", 1.0, 0.0, 1.0);
  a.rotary_dim = static_cast<std::int64_t>(static_cast<double>(a.head_dim) * pct);
  const bool bias = !r.boolean_or("no_bias", true);
  a.qkv_bias = true;
  a.o_bias = bias;
  m.mlp.bias = bias;
  if (m.max_position_embeddings == 0) m.max_position_embeddings = r.non_negative_or("seq_length", 0);
  m.tie_word_embeddings = r.boolean_or("tie_word_embeddings", false);
}

// olmo (OLMo-1B-hf, OLMo-7B-hf, OLMo-1.7-7B-hf): Llama's layout with LayerNorms that have no
// weight and no bias (OlmoLayerNorm: F.layer_norm without affine parameters), so the norms add no
// parameters; clip_qkv clamps activations only.
void read_olmo(const reader& r, model_spec& m) {
  read_llama_family(r, m);
  m.attention.qkv_bias = m.attention.o_bias = r.boolean_or("attention_bias", false);
  m.norm = norm_kind::layernorm;
  m.norm_affine = false;
  m.tie_word_embeddings = r.boolean_or("tie_word_embeddings", false);
}

// internlm3 (InternLM3-8B-Instruct, remote code): Llama's layout; qkv_bias puts biases on q, k
// and v, bias on o_proj and the MLP projections.
void read_internlm3(const reader& r, model_spec& m) {
  read_llama_family(r, m);
  const bool bias = r.boolean_or("bias", false);
  m.attention.qkv_bias = r.boolean_or("qkv_bias", false);
  m.attention.o_bias = bias;
  m.mlp.bias = bias;
  m.tie_word_embeddings = r.boolean_or("tie_word_embeddings", false);
}

// minicpm (MiniCPM-2B, MiniCPM-1B, remote code): Llama's layout; scale_emb, scale_depth and
// dim_model_base scale activations and change no count; the head is tied by default.
void read_minicpm(const reader& r, model_spec& m) {
  read_llama_family(r, m);
  m.attention.qkv_bias = m.attention.o_bias = r.boolean_or("attention_bias", false);
  m.tie_word_embeddings = r.boolean_or("tie_word_embeddings", true);
}

// nemotron (Nemotron-4, Minitron, Nemotron-Mini): LayerNorm1P (weight and bias), GQA with partial
// rotary (partial_rotary_factor, 0.5), a plain up_proj -> relu2 -> down_proj MLP, biases only
// when attention_bias / mlp_bias, an untied head.
void read_nemotron(const reader& r, model_spec& m) {
  read_llama_family(r, m);
  m.attention.qkv_bias = m.attention.o_bias = r.boolean_or("attention_bias", false);
  m.norm = norm_kind::layernorm;
  m.mlp.gated = false;
  m.mlp.bias = r.boolean_or("mlp_bias", false);
  m.mlp.activation = r.string_or("hidden_act", "relu2");
  m.tie_word_embeddings = r.boolean_or("tie_word_embeddings", false);
}

}  // namespace flopcast::detail
