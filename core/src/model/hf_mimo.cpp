// Config reader for Xiaomi MiMo (mimo), registered in families() in hf_config.cpp.
#include <string>

#include "base/json_reader.hpp"
#include "model/hf_common.hpp"

namespace flopcast::detail {

// mimo (MiMo-7B): Qwen2's layout (q/k/v biases, untied) plus num_nextn_predict_layers
// multi-token-prediction modules in the checkpoint (model.mtp_layers.*: token_layernorm,
// hidden_layernorm, input_proj 2h -> h, one Qwen2 decoder layer, final_layernorm). The Hub's
// total counts them, so they are counted in the weights (mtp_layers), not in the per-token
// parameters.
void read_mimo(const reader& r, model_spec& m) {
  const std::string type = m.model_type;
  m.model_type = "qwen2";
  read_llama_family(r, m);
  m.model_type = type;
  m.mtp_layers = r.non_negative_or("num_nextn_predict_layers", 0);
}

}  // namespace flopcast::detail
