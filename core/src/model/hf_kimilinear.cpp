// Config reader for Kimi Linear (kimi_linear), registered in families() in hf_config.cpp.
#include <string>
#include <vector>

#include "base/detail.hpp"
#include "base/json_reader.hpp"
#include "model/hf_common.hpp"

namespace flopcast::detail {

namespace {

// A 1-based layer list of linear_attn_config (kda_layers, full_attn_layers): every entry names a
// layer from 1 to `layers`; marks them in `out`.
void kimilinear_mark_layers(const reader& la, const char* key, std::int64_t layers, std::vector<bool>& out) {
  const std::vector<std::int64_t> list = la.int_list_or_empty(key);
  for (std::size_t i = 0; i < list.size(); ++i) {
    if (list[i] < 1 || list[i] > layers)
      throw error(error_code::config_range, la.ptr(key) + "/" + std::to_string(i),
                  "expected a layer number from 1 to " + std::to_string(layers) + " (the list is 1-based), but got " +
                      std::to_string(list[i]));
    out[static_cast<std::size_t>(list[i] - 1)] = true;
  }
}

}  // namespace

// kimi_linear (moonshotai/Kimi-Linear-48B-A3B; vLLM kimi_linear.py and layers/kda.py): a
// DeepSeek-V3-style decoder whose layers are either Kimi Delta Attention or MLA, then a dense
// SwiGLU MLP (the first first_k_dense_replace layers) or a MoE of num_experts routed experts
// (num_experts_per_token per token, a sigmoid router with e_score_correction_bias) and
// num_shared_experts shared ones of moe_intermediate_size.
// - KDA layers: layer i (0-based) when i + 1 is in linear_attn_config.kda_layers (the lists are
//   1-based; KimiLinearConfig.is_kda_layer). num_heads heads of head_dim for q, k and v;
//   f_a_proj and g_a_proj project to head_dim, so both gate ranks are head_dim; the short convs
//   have short_conv_kernel_size taps. The linear_attention mixer counts them with those ranks.
// - MLA layers: DeepSeek-V3's latent attention (q_lora_rank null: a plain q_proj), read by the
//   deepseek_v3 branch of read_llama_family; mla_use_nope: no rotary positions (the rope part of
//   the heads keeps its weights and cache).
// Without linear_attn_config every layer is MLA. The context is model_max_length when the
// config has no max_position_embeddings (the released config has none).
void read_kimi_linear(const reader& r, model_spec& m) {
  const std::string type = m.model_type;
  m.model_type = "deepseek_v3";  // read_llama_family dispatches on the model type (MLA fields)
  read_llama_family(r, m);
  m.model_type = type;
  if (m.max_position_embeddings == 0) m.max_position_embeddings = r.non_negative_or("model_max_length", 0);

  const auto n = static_cast<std::size_t>(m.num_layers);
  std::vector<bool> kda(n, false);
  if (r.has("linear_attn_config")) {
    if (!r.at("linear_attn_config").is_object())
      range_error(r, "linear_attn_config", "expected an object (kda_layers, num_heads, head_dim, ...)");
    const reader la(r.at("linear_attn_config"), r.ptr("linear_attn_config"));
    kimilinear_mark_layers(la, "kda_layers", m.num_layers, kda);
    std::vector<bool> full(n, false);
    kimilinear_mark_layers(la, "full_attn_layers", m.num_layers, full);
    for (std::size_t i = 0; i < n; ++i)
      if (kda[i] && full[i])
        range_error(la, "full_attn_layers",
                    "expected layers not in kda_layers, but layer " + std::to_string(i + 1) + " is in both");
    bool any_kda = false;
    for (std::size_t i = 0; i < n; ++i) any_kda = any_kda || kda[i];
    if (any_kda) {
      // Kimi K3's full-rank decay gate (use_full_rank_gate) has another layout than f_a/f_b.
      if (la.boolean_or("use_full_rank_gate", false))
        range_error(la, "use_full_rank_gate",
                    "expected false (the low-rank f_a/f_b decay gate of Kimi Linear), but got true");
      linear_attention_spec& l = m.linear;
      l.num_key_heads = l.num_value_heads = la.positive("num_heads");
      l.key_head_dim = l.value_head_dim = la.positive("head_dim");
      l.decay_rank = l.gate_rank = l.key_head_dim;  // f_a_proj, g_a_proj: hidden -> head_dim
      l.conv_kernel = la.positive("short_conv_kernel_size");
    }
  }

  moe_spec& e = m.moe;
  e = moe_spec{};
  e.num_experts = r.non_negative_or("num_experts", 0);
  std::vector<bool> moe(n, false);
  if (e.num_experts > 0) {
    e.experts_per_token = r.positive("num_experts_per_token");
    check_top_k(r, "num_experts_per_token", e);
    e.expert_intermediate_size = r.positive("moe_intermediate_size");
    e.shared_intermediate_size = mul(r.non_negative_or("num_shared_experts", 0), e.expert_intermediate_size);
    e.router_bias = true;  // KimiMoE: gate.e_score_correction_bias
    const std::int64_t first_dense = r.non_negative_or("first_k_dense_replace", 0);
    const std::int64_t freq = r.positive_or("moe_layer_freq", 1);
    for (std::int64_t i = first_dense; i < m.num_layers; ++i) moe[static_cast<std::size_t>(i)] = i % freq == 0;
  }

  bool any_dense = false;
  for (std::size_t i = 0; i < n; ++i) any_dense = any_dense || !moe[i];
  if (!any_dense) m.mlp.intermediate_size = 0;  // no dense MLP layer to size

  const bool nope = r.boolean_or("mla_use_nope", false);
  std::vector<layer_desc> layers(n);
  for (std::size_t i = 0; i < n; ++i) {
    layers[i].mixer = kda[i] ? mixer_kind::linear_attention : mixer_kind::attention;
    layers[i].nope = !kda[i] && nope;
    layers[i].moe = moe[i];
  }
  set_layers(m, layers);
}

}  // namespace flopcast::detail
