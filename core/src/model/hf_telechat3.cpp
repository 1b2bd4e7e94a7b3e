// Config reader for TeleChat3 dense (telechat3), registered in families() in hf_config.cpp.
#include <string>

#include "base/json_reader.hpp"
#include "model/hf_common.hpp"

namespace flopcast::detail {

// telechat3 (TeleChat3-36B-Thinking, TeleChat3-Coder-36B-Thinking): vLLM serves
// TeleChat3ForCausalLM with its Llama model, so the layout is Llama's: GQA attention
// (attention_bias, mlp_bias as flags), a gated SiLU MLP, two RMSNorms per layer, untied by
// default. Its "telechat3-yarn" rope_scaling changes no weight.
void read_telechat3(const reader& r, model_spec& m) {
  const std::string type = m.model_type;
  m.model_type = "llama";
  read_llama_family(r, m);
  m.model_type = type;
}

}  // namespace flopcast::detail
