// Config reader for BitNet b1.58 (model_type bitnet, transformers' modeling_bitnet.py): a Llama
// decoder whose attention output passes attn_sub_norm (an RMSNorm of the hidden width) before
// o_proj and whose MLP (gate, up, down; relu^2) normalises its intermediate activations with
// ffn_sub_norm before down_proj. Registered in families() in hf_config.cpp. The ternary weights
// change no count; their storage is the quantization's business.
#include <string>

#include "base/json_reader.hpp"
#include "model/hf_common.hpp"

namespace flopcast::detail {

void read_bitnet(const reader& r, model_spec& m) {
  const std::string own = m.model_type;
  m.model_type = "llama";  // q/k/v/o with attention_bias, a gated MLP, two RMSNorms per layer
  read_llama_family(r, m);
  m.model_type = own;
  m.mlp.activation = r.string_or("hidden_act", "relu2");
  m.attention.sub_norm = true;
  m.mlp.sub_norm = true;
}

}  // namespace flopcast::detail
