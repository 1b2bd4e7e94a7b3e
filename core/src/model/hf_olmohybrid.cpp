// Config reader for OLMo Hybrid (olmo_hybrid), registered in families() in hf_config.cpp.
#include <string>
#include <vector>

#include "base/detail.hpp"
#include "base/json_reader.hpp"
#include "model/hf_common.hpp"

namespace flopcast::detail {

// olmo_hybrid (allenai/Olmo-Hybrid-7B; transformers modular_olmo_hybrid.py): OLMo 3 decoder
// layers (post-norms, full-width q/k RMSNorms, no biases) for the full_attention layers and, for
// the linear_attention layers, a Llama pre-norm block around a Gated DeltaNet with separate
// q/k/v/g/a/b projections. Those hold what Qwen3-Next's fused in_proj_qkvz and in_proj_ba hold
// (2 key + 2 value widths, 2 per value head), with the same conv1d without bias, A_log, dt_bias,
// gated RMSNorm and o_proj, so the linear_attention mixer counts them. OlmoHybridConfig's
// defaults fill what the config leaves out: linear heads = num_attention_heads, key head dim
// int(0.75 x hidden / key heads), value head dim twice that, full attention every fourth layer.
// Without a rope_theta (the release's rope_parameters is {"rope_theta": null}) the attention
// layers have no positions.
void read_olmo_hybrid(const reader& r, model_spec& m) {
  read_olmo2(r, m);
  linear_attention_spec& l = m.linear;
  l.num_key_heads = r.positive_or("linear_num_key_heads", m.attention.num_heads);
  l.num_value_heads = r.positive_or("linear_num_value_heads", m.attention.num_heads);
  if (l.num_value_heads % l.num_key_heads != 0)
    range_error(r, "linear_num_value_heads",
                "expected a multiple of linear_num_key_heads (" + std::to_string(l.num_key_heads) + "), but got " +
                    std::to_string(l.num_value_heads));
  // int(0.75 * hidden / key heads) when absent; a config too narrow for that default must name it.
  l.key_head_dim = 3 * m.hidden_size / (4 * l.num_key_heads);
  if (r.has("linear_key_head_dim") || l.key_head_dim <= 0) l.key_head_dim = r.positive("linear_key_head_dim");
  l.value_head_dim = r.positive_or("linear_value_head_dim", mul(2, l.key_head_dim));
  l.conv_kernel = r.positive_or("linear_conv_kernel_dim", 4);

  bool rope = r.has("rope_theta") && r.at("rope_theta").is_number();
  if (r.has("rope_parameters")) {
    const json& rp = r.at("rope_parameters");
    rope = rp.is_object() && rp.contains("rope_theta") && rp.at("rope_theta").is_number();
  }

  const auto n = static_cast<std::size_t>(m.num_layers);
  const std::vector<std::string> kinds = r.string_list_or_empty("layer_types");
  if (!kinds.empty() && kinds.size() != n)
    range_error(r, "layer_types",
                "expected " + std::to_string(n) + " entries (one per layer), but got " + std::to_string(kinds.size()));
  std::vector<layer_desc> layers(n);
  for (std::size_t i = 0; i < n; ++i) {
    bool full = i % 4 == 3;
    if (!kinds.empty()) {
      if (kinds[i] != "linear_attention" && kinds[i] != "full_attention")
        throw error(error_code::config_range, r.ptr("layer_types") + "/" + std::to_string(i),
                    "expected \"linear_attention\" or \"full_attention\", but got \"" + kinds[i] + "\"");
      full = kinds[i] == "full_attention";
    }
    layers[i].mixer = full ? mixer_kind::attention : mixer_kind::linear_attention;
    layers[i].nope = full && !rope;
  }
  if (kinds.empty() && n > 0 && n < 4) {  // the default pattern keeps at least one attention layer: the last
    layers[n - 1].mixer = mixer_kind::attention;
    layers[n - 1].nope = !rope;
  }
  set_layers(m, layers);
}

}  // namespace flopcast::detail
