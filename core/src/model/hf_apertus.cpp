// Config reader for Apertus (apertus), registered in families() in hf_config.cpp.
#include <string>

#include "base/json_reader.hpp"
#include "model/hf_common.hpp"

namespace flopcast::detail {

// apertus (Apertus 8B / 70B): Llama's attention with per-head q/k RMSNorms, two pre-norms per
// layer (attention_layernorm, feedforward_layernorm), a plain up -> act -> down MLP without
// biases, untied. Its xIELU activation keeps four scalars per layer in the checkpoint (alpha_p
// and alpha_n parameters, beta and eps buffers).
void read_apertus(const reader& r, model_spec& m) {
  const std::string type = m.model_type;
  m.model_type = "llama";
  read_llama_family(r, m);
  m.model_type = type;
  m.attention.qk_norm = true;
  m.mlp.gated = false;
  m.mlp.bias = false;
  m.mlp.activation = r.string_or("hidden_act", "xielu");
  m.mlp.activation_params = m.mlp.activation == "xielu" ? 4 : 0;
  m.tie_word_embeddings = r.boolean_or("tie_word_embeddings", false);
}

}  // namespace flopcast::detail
