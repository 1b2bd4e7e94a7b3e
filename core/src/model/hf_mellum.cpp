// Config reader for JetBrains Mellum 2 (mellum), registered in families() in hf_config.cpp.
#include <string>
#include <vector>

#include "base/detail.hpp"
#include "base/json_reader.hpp"
#include "model/hf_common.hpp"

namespace flopcast::detail {

// mellum (Mellum2-12B-A2.5B, Mellum2.1 Thinking): Qwen3-MoE attention (per-head q/k RMSNorms,
// no biases) and Qwen3-MoE sparse blocks (a router and num_experts gated experts of
// moe_intermediate_size, num_experts_per_tok per token, no shared expert), untied. Each layer's
// MLP is "sparse" or "dense" (intermediate_size) as mlp_layer_types says (all sparse by
// default); layer_types puts sliding_window on the sliding layers (all full by default).
void read_mellum(const reader& r, model_spec& m) {
  const std::string type = m.model_type;
  m.model_type = "qwen3_moe";
  read_llama_family(r, m);
  m.model_type = type;
  m.attention.qkv_bias = m.attention.o_bias = false;
  m.attention.qk_norm = true;
  m.tie_word_embeddings = r.boolean_or("tie_word_embeddings", false);

  const std::int64_t n = m.num_layers;
  const std::vector<std::string> mlp_types = r.string_list_or_empty("mlp_layer_types");
  if (!mlp_types.empty() && static_cast<std::int64_t>(mlp_types.size()) != n)
    range_error(
        r, "mlp_layer_types",
        "expected " + std::to_string(n) + " entries (one per layer), but got " + std::to_string(mlp_types.size()));
  for (std::size_t i = 0; i < mlp_types.size(); ++i)
    if (mlp_types[i] != "dense" && mlp_types[i] != "sparse")
      throw error(error_code::config_range, r.ptr("mlp_layer_types") + "/" + std::to_string(i),
                  "expected \"dense\" or \"sparse\", but got \"" + mlp_types[i] + "\"");
  const std::vector<std::string> kinds = window_layer_kinds(r, n);
  const bool no_window = r.value().contains("sliding_window") && r.value().at("sliding_window").is_null();
  const std::int64_t window = no_window ? 0 : r.non_negative_or("sliding_window", 1024);
  std::vector<layer_desc> layers(static_cast<std::size_t>(n));
  bool any_dense = false;
  for (std::size_t i = 0; i < layers.size(); ++i) {
    layers[i].moe = m.moe.num_experts > 0 && (mlp_types.empty() || mlp_types[i] == "sparse");
    layers[i].window = !kinds.empty() && kinds[i] == "sliding_attention" ? window : 0;
    any_dense = any_dense || !layers[i].moe;
  }
  m.mlp.intermediate_size = any_dense ? r.positive("intermediate_size") : 0;
  set_layers(m, layers);
}

}  // namespace flopcast::detail
