// Config readers for the text models of the Qwen3-VL wrappers (qwen3_vl, qwen3_vl_moe): their
// text_config (model_type qwen3_vl_text / qwen3_vl_moe_text) reaches these through the wrapper
// path of read_hf_config. Registered in families() in hf_config.cpp. The vision tower (a ViT with
// DeepStack mergers) is counted by vision.cpp from the wrapper's vision_config.
#include <string>

#include "base/json_reader.hpp"
#include "model/hf_common.hpp"

namespace flopcast::detail {

// qwen3_vl_text: Qwen3's modules (per-head q/k RMSNorms, no biases, SwiGLU); the interleaved
// multimodal rotary sections change no weight. qwen3_vl_moe_text: Qwen3-MoE's (routed experts on
// the layers decoder_sparse_step and mlp_only_layers choose, no shared expert).
void read_qwen3_vl_text(const reader& r, model_spec& m) {
  const std::string own = m.model_type;
  m.model_type = own == "qwen3_vl_moe_text" ? "qwen3_moe" : "qwen3";
  read_llama_family(r, m);
  m.model_type = own;
}

}  // namespace flopcast::detail
