// Config reader for openPangu-Embedded (PanguEmbedded), registered in families() in hf_config.cpp.
#include <string>

#include "base/json_reader.hpp"
#include "model/hf_common.hpp"

namespace flopcast::detail {

// PanguEmbedded (openPangu-Embedded-7B, -1B; vLLM PanguEmbeddedForCausalLM, llama.cpp
// pangu-embedded): Llama's decoder with the config's "bias" (or attention_bias) on q, k, v and o
// ("qkv_bias", when given, for q, k and v alone), mlp_bias on the MLP, untied by default. Under
// sandwich_norm each sublayer's output is normed too (four norms per layer).
void read_pangu_embedded(const reader& r, model_spec& m) {
  const std::string type = m.model_type;
  m.model_type = "llama";
  read_llama_family(r, m);
  m.model_type = type;
  const bool bias = r.boolean_or("bias", r.boolean_or("attention_bias", false));
  m.attention.o_bias = bias;
  m.attention.qkv_bias = r.boolean_or("qkv_bias", bias);
  m.norms_per_layer = r.boolean_or("sandwich_norm", false) ? 4 : 2;
}

}  // namespace flopcast::detail
