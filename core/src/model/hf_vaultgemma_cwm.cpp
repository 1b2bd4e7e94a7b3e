// Config readers for VaultGemma (vaultgemma) and Code World Model (cwm), registered in
// families() in hf_config.cpp. Both start from read_llama_family and set what differs.
#include <string>
#include <vector>

#include "base/detail.hpp"
#include "base/json_reader.hpp"
#include "model/hf_common.hpp"

namespace flopcast::detail {

namespace {

// read_llama_family dispatches on model_type: read `r` as `as`, then restore the family's own.
void vaultgemma_cwm_read_as(const reader& r, model_spec& m, const char* as) {
  const std::string type = m.model_type;
  m.model_type = as;
  read_llama_family(r, m);
  m.model_type = type;
}

}  // namespace

// vaultgemma (VaultGemma 1B): Gemma 2 without its post-attention and post-feedforward norms
// (input_layernorm and pre_feedforward_layernorm only), scaled tied embeddings, gated GELU MLP;
// sliding layers per layer_types, alternating from a sliding layer 0 when absent
// (VaultGemmaConfig).
void read_vaultgemma(const reader& r, model_spec& m) {
  vaultgemma_cwm_read_as(r, m, "gemma2");
  m.norms_per_layer = 2;
}

// cwm (Code World Model 32B): Llama's layout, untied; sliding_window (8192 by default) on every
// layer but each fourth from layer 0 (CwmConfig), or as layer_types says.
void read_cwm(const reader& r, model_spec& m) {
  vaultgemma_cwm_read_as(r, m, "llama");
  m.tie_word_embeddings = r.boolean_or("tie_word_embeddings", false);
  const json& j = r.value();
  const bool no_window = j.contains("sliding_window") && j.at("sliding_window").is_null();
  const std::int64_t window = no_window ? 0 : r.non_negative_or("sliding_window", 8192);
  const std::vector<std::string> kinds = window_layer_kinds(r, m.num_layers);
  std::vector<layer_desc> layers(static_cast<std::size_t>(m.num_layers));
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const bool slides = kinds.empty() ? i % 4 != 0 : kinds[i] == "sliding_attention";
    layers[i].window = slides ? window : 0;
  }
  set_layers(m, layers);
}

}  // namespace flopcast::detail
