// Config reader for PLaMo 2 (plamo2: pfnet/plamo-2-1b, plamo-2-8b, plamo-2.1-*). Shapes follow
// vLLM's plamo2.py (Plamo2MambaMixer, Plamo2AttentionMixer, Plamo2DecoderLayer), which loads the
// checkpoints of pfnet's modeling_plamo.py. Registered in families() in hf_config.cpp.
#include <algorithm>
#include <string>
#include <vector>

#include "base/detail.hpp"
#include "base/json_reader.hpp"
#include "model/hf_common.hpp"

namespace flopcast::detail {

namespace {

// Plamo2's is_mamba(): with mamba_step s, layer i is a Mamba layer unless i % s == s / 2; a model of
// at most s / 2 layers keeps attention only in its last layer. mamba_enabled false: attention only.
bool plamo2_is_mamba(bool enabled, std::int64_t layers, std::int64_t step, std::int64_t i) {
  if (!enabled) return false;
  if (layers <= step / 2) return i != layers - 1;
  return i % step != step / 2;
}

}  // namespace

// plamo2: every layer is pre_mixer_norm, a mixer, post_mixer_norm, pre_mlp_norm, a SwiGLU MLP
// (gate_up_proj, down_proj, no biases) and post_mlp_norm. The mixer is either attention
// (qkv_proj and o_proj without bias, hidden_size_per_head per head, rotary, an RMSNorm weight
// per query head and per key head: q_weight num_heads x head, k_weight kv_heads x head) or a Mamba
// mixer of mamba_num_heads x hidden_size_per_head channels: in_proj h -> 2 x inner, a depthwise
// conv1d without bias, bcdt_proj inner -> dt_rank + 2 x state (one B/C group), RMSNorms on dt, B
// and C, dt_proj dt_rank -> heads without bias, dt_bias, A_log and D per head, out_proj; dt_rank
// is max(64, hidden / 16). vLLM serves the attention layers without a window, as flopcast does.
void read_plamo2(const reader& r, model_spec& m) {
  read_decoder_basics(r, m);
  m.norms_per_layer = 4;
  m.position = position_kind::rotary;
  m.tie_word_embeddings = r.boolean_or("tie_word_embeddings", true);  // PlamoConfig's default
  m.mlp.gated = true;
  m.mlp.activation = "silu";
  m.mlp.intermediate_size = r.positive("intermediate_size");

  const std::int64_t head = r.positive("hidden_size_per_head");
  attention_spec& a = m.attention;
  a.num_heads = r.positive("num_attention_heads");
  a.num_kv_heads = r.positive_or("num_key_value_heads", 4);
  if (a.num_kv_heads > a.num_heads || a.num_heads % a.num_kv_heads != 0)
    range_error(r, "num_key_value_heads",
                "expected a divisor of num_attention_heads (" + std::to_string(a.num_heads) + "), but got " +
                    std::to_string(a.num_kv_heads));
  a.head_dim = a.v_head_dim = a.rotary_dim = head;
  a.qk_norm = true;
  a.qk_norm_full_width = true;  // one weight per head and channel

  const bool enabled = r.boolean_or("mamba_enabled", true);
  const std::int64_t step = r.positive_or("mamba_step", 2);
  if (enabled && step < 2) range_error(r, "mamba_step", "expected at least 2, but got " + std::to_string(step));
  std::vector<layer_desc> layers(static_cast<std::size_t>(m.num_layers));
  bool any_mamba = false;
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const bool mamba = plamo2_is_mamba(enabled, m.num_layers, step, static_cast<std::int64_t>(i));
    layers[i].mixer = mamba ? mixer_kind::mamba : mixer_kind::attention;
    any_mamba = any_mamba || mamba;
  }
  if (any_mamba) {
    ssm_spec& s = m.ssm;
    s.num_heads = r.positive("mamba_num_heads");  // heads on a Mamba-1 mixer: dt, A and D per head
    s.inner = mul(s.num_heads, head);
    s.state_size = r.positive_or("mamba_d_state", 64);
    s.conv_kernel = r.positive_or("mamba_d_conv", 4);
    s.dt_rank = std::max<std::int64_t>(64, m.hidden_size / 16);
    s.n_groups = 1;
    s.conv_bias = false;
    s.proj_bias = false;
    s.gated_norm = false;
    s.dt_bc_norms = true;  // dt_norm_weight, B_norm_weight, C_norm_weight
  }
  set_layers(m, layers);
}

}  // namespace flopcast::detail
