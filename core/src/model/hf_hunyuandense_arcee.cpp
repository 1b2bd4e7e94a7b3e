// Config readers for Hunyuan's dense models (hunyuan_v1_dense: Hunyuan-0.5B to 7B) and Arcee's
// AFM (arcee), registered in families() in hf_config.cpp. Both are Llama's decoder with one
// change each, read through read_llama_family and adjusted here.
#include <string>

#include "base/json_reader.hpp"
#include "model/hf_common.hpp"

namespace flopcast::detail {

// hunyuan_v1_dense (modeling_hunyuan_v1_dense.py): Llama's attention (q/k/v/o biases with
// attention_bias) plus per-head q/k RMSNorms applied after RoPE (query_layernorm,
// key_layernorm: transformers always builds them; Tencent's configs say use_qk_norm true), a
// bias-free SwiGLU MLP, an untied head unless tie_word_embeddings. The dynamic NTK-alpha RoPE
// changes no weight. Cross-layer attention (use_cla, shared K and V) is refused, as for
// hunyuan_v1_moe.
void read_hunyuan_v1_dense(const reader& r, model_spec& m) {
  read_llama_family(r, m);
  attention_spec& a = m.attention;
  a.qkv_bias = a.o_bias = r.boolean_or("attention_bias", false);
  a.qk_norm = r.boolean_or("use_qk_norm", true);
  a.qk_norm_full_width = false;
  if (r.boolean_or("use_cla", false))
    range_error(r, "use_cla", "expected false (cross-layer attention shares K and V across layers), but got true");
  m.mlp.bias = false;
  m.tie_word_embeddings = r.boolean_or("tie_word_embeddings", false);
}

// arcee (modular_arcee.py, AFM-4.5B): LlamaForCausalLM whose MLP is NemotronMLP, an up/down
// projection without a gate (relu2 by default; biases with mlp_bias), and whose attention has
// q/k/v/o biases only with attention_bias.
void read_arcee(const reader& r, model_spec& m) {
  read_llama_family(r, m);
  m.attention.qkv_bias = m.attention.o_bias = r.boolean_or("attention_bias", false);
  m.mlp.gated = false;
  m.mlp.bias = r.boolean_or("mlp_bias", false);
  m.mlp.activation = r.string_or("hidden_act", "relu2");
}

}  // namespace flopcast::detail
