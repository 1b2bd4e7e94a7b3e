// Config readers for the hybrid and state-space families: Qwen3-Next and Qwen3.5 (Gated DeltaNet
// linear attention beside gated full attention), Mamba and Falcon-Mamba (Mamba-1), Mamba-2,
// Jamba (Mamba-1 + attention + MoE), Falcon-H1 (attention and Mamba-2 in parallel) and
// Nemotron-H (one Mamba-2, attention, MLP or MoE mixer per block). Registered in families() in
// hf_config.cpp. Shapes follow transformers' modeling_<family>.py.
#include <string>
#include <vector>

#include "base/detail.hpp"
#include "base/json_reader.hpp"
#include "model/hf_common.hpp"

namespace flopcast::detail {

namespace {

std::string str(std::int64_t v) { return std::to_string(v); }

// The common decoder sizes.
void read_sizes(const reader& r, model_spec& m, std::string_view layers_key) {
  m.arch = architecture::decoder;
  m.hidden_size = r.positive("hidden_size");
  m.num_layers = r.layers(layers_key);
  m.vocab_size = r.positive("vocab_size");
  m.max_position_embeddings = r.non_negative_or("max_position_embeddings", 0);
  m.norm = norm_kind::rmsnorm;
}

// A Mamba-1 dt_rank: an integer, or "auto" for ceil(hidden / 16) (MambaConfig, JambaConfig).
std::int64_t dt_rank(const reader& r, std::string_view key, std::int64_t hidden) {
  if (r.has(key) && r.at(key).is_string()) {
    const std::string v = r.at(key).get<std::string>();
    if (v != "auto") range_error(r, key, "expected a positive integer or \"auto\", but got \"" + v + "\"");
    return (hidden + 15) / 16;
  }
  return r.has(key) ? r.positive(key) : (hidden + 15) / 16;
}

// A model without token-mixing attention (Mamba, Mamba-2): no heads, no positions.
void no_attention(model_spec& m) {
  m.attention = attention_spec{};
  m.position = position_kind::none;
}

// Mamba-2 heads: num_heads x head_dim must be the inner width.
void check_mamba2_heads(const reader& r, std::string_view heads_key, std::string_view groups_key, std::int64_t head_dim,
                        const ssm_spec& s) {
  if (s.num_heads * head_dim != s.inner)
    range_error(r, heads_key,
                "expected heads x head_dim to equal the inner width " + str(s.inner) + ", but got " + str(s.num_heads) +
                    " x " + str(head_dim));
  if (s.n_groups > s.num_heads || s.num_heads % s.n_groups != 0)
    range_error(r, groups_key,
                "expected a divisor of the number of heads (" + str(s.num_heads) + "), but got " + str(s.n_groups));
}

}  // namespace

// qwen3_next, qwen3_5_text, qwen3_5_moe_text: layer i is gated full attention (q_proj twice as
// wide for the sigmoid output gate, per-head q/k RMSNorm, partial rotary) when layer_types says
// "full_attention" (default: (i + 1) % full_attention_interval == 0), else a Gated DeltaNet
// (in_proj_qkvz + in_proj_ba, or Qwen3.5's in_proj_qkv/z/b/a of the same sizes; conv1d without
// bias over q, k, v; dt_bias and A_log per value head; RMSNormGated of the value head size;
// out_proj). Every layer then has an MLP: Qwen3-Next a sparse MoE block with a gated shared
// expert (subject to decoder_sparse_step and mlp_only_layers), Qwen3.5-MoE one on every layer,
// dense Qwen3.5 a SwiGLU MLP.
void read_qwen3_next(const reader& r, model_spec& m) {
  const std::string& t = m.model_type;
  read_sizes(r, m, "num_hidden_layers");
  m.norms_per_layer = 2;
  m.position = position_kind::rotary;
  m.tie_word_embeddings = r.boolean_or("tie_word_embeddings", false);
  m.mlp.gated = true;
  m.mlp.activation = r.string_or("hidden_act", "silu");

  attention_spec& a = m.attention;
  read_heads(r, m, "num_attention_heads", "num_key_value_heads", 0);
  a.qkv_bias = a.o_bias = r.boolean_or("attention_bias", false);
  a.qk_norm = true;
  a.output_gate = true;  // Qwen3NextAttention: q_proj emits query and gate
  // partial_rotary_factor at the top level (Qwen3-Next) or under rope_parameters (Qwen3.5);
  // the configuration class defaults it to 0.25.
  double partial = 0.25;
  if (r.has("partial_rotary_factor")) {
    partial = r.number_or("partial_rotary_factor", 0.25, 0.0, 1.0);
  } else if (r.has("rope_parameters") && r.at("rope_parameters").is_object()) {
    const reader rp(r.at("rope_parameters"), r.ptr("rope_parameters"));
    partial = rp.number_or("partial_rotary_factor", 0.25, 0.0, 1.0);
  }
  a.rotary_dim = static_cast<std::int64_t>(static_cast<double>(a.head_dim) * partial);

  linear_attention_spec& l = m.linear;
  l.num_key_heads = r.positive("linear_num_key_heads");
  l.num_value_heads = r.positive("linear_num_value_heads");
  l.key_head_dim = r.positive("linear_key_head_dim");
  l.value_head_dim = r.positive("linear_value_head_dim");
  l.conv_kernel = r.positive_or("linear_conv_kernel_dim", 4);
  if (l.num_value_heads % l.num_key_heads != 0)
    range_error(r, "linear_num_value_heads",
                "expected a multiple of linear_num_key_heads (" + str(l.num_key_heads) + "), but got " +
                    str(l.num_value_heads));

  // Which layers are full attention.
  const auto n = static_cast<std::size_t>(m.num_layers);
  std::vector<bool> full(n, false);
  const std::vector<std::string> kinds = r.string_list_or_empty("layer_types");
  if (!kinds.empty()) {
    if (kinds.size() != n)
      range_error(r, "layer_types",
                  "expected " + str(m.num_layers) + " entries (one per layer), but got " + str(kinds.size()));
    for (std::size_t i = 0; i < n; ++i) {
      if (kinds[i] != "linear_attention" && kinds[i] != "full_attention")
        throw error(error_code::config_range, r.ptr("layer_types") + "/" + std::to_string(i),
                    "expected \"linear_attention\" or \"full_attention\", but got \"" + kinds[i] + "\"");
      full[i] = kinds[i] == "full_attention";
    }
  } else {
    const std::int64_t interval = r.positive_or("full_attention_interval", 4);
    for (std::size_t i = 0; i < n; ++i) full[i] = (static_cast<std::int64_t>(i) + 1) % interval == 0;
  }

  // Which layers are MoE.
  std::vector<bool> moe(n, false);
  moe_spec& e = m.moe;
  if (t == "qwen3_next" || t == "qwen3_5_moe_text") {
    e.num_experts = t == "qwen3_next" ? r.non_negative_or("num_experts", 0) : r.positive("num_experts");
    if (e.num_experts > 0) {
      e.experts_per_token = r.positive("num_experts_per_tok");
      e.expert_intermediate_size = r.positive("moe_intermediate_size");
      e.shared_intermediate_size = r.non_negative_or("shared_expert_intermediate_size", 0);
      e.shared_expert_gate = e.shared_intermediate_size > 0;  // shared_expert_gate: Linear(h, 1)
      check_top_k(r, "num_experts_per_tok", e);
      const std::int64_t step = t == "qwen3_next" ? r.positive_or("decoder_sparse_step", 1) : 1;
      std::vector<bool> dense(n, false);  // marked once: a search per layer is quadratic
      if (t == "qwen3_next")
        for (std::int64_t d : r.int_list_or_empty("mlp_only_layers"))
          if (d >= 0 && static_cast<std::uint64_t>(d) < n) dense[static_cast<std::size_t>(d)] = true;
      for (std::size_t i = 0; i < n; ++i) moe[i] = (static_cast<std::int64_t>(i) + 1) % step == 0 && !dense[i];
    }
  }
  bool any_dense = false;
  for (std::size_t i = 0; i < n; ++i) any_dense = any_dense || !moe[i];
  if (any_dense) m.mlp.intermediate_size = r.positive("intermediate_size");

  std::vector<layer_desc> layers(n);
  for (std::size_t i = 0; i < n; ++i) {
    layers[i].mixer = full[i] ? mixer_kind::attention : mixer_kind::linear_attention;
    layers[i].moe = moe[i];
  }
  set_layers(m, layers);
}

// mamba (state-spaces/mamba-*-hf) and falcon_mamba: every block is one RMSNorm and a Mamba-1
// mixer (in_proj h -> 2 inner, depthwise conv1d, x_proj, dt_proj with bias, A_log, D, out_proj);
// no attention, no MLP, no positions. Falcon-Mamba also normalises dt, B and C inside the mixer,
// but with weightless RMSNorms (rms_forward), so its parameters equal Mamba's.
void read_mamba(const reader& r, model_spec& m) {
  read_sizes(r, m, r.pick({"num_hidden_layers", "n_layer"}));
  no_attention(m);
  m.norms_per_layer = 1;
  m.tie_word_embeddings = r.boolean_or("tie_word_embeddings", true);
  ssm_spec& s = m.ssm;
  const std::int64_t expand = r.positive_or("expand", 2);
  s.inner = r.has("intermediate_size") ? r.positive("intermediate_size") : mul(expand, m.hidden_size);
  s.state_size = r.positive("state_size");
  s.conv_kernel = r.positive_or("conv_kernel", 4);
  s.dt_rank = dt_rank(r, "time_step_rank", m.hidden_size);
  s.conv_bias = r.boolean_or("use_conv_bias", true);
  s.proj_bias = r.boolean_or("use_bias", false);
  s.gated_norm = false;
  s.dt_bc_norms = false;  // Falcon-Mamba's dt/B/C norms carry no weights
  layer_desc d;
  d.mixer = mixer_kind::mamba;
  d.mlp = false;
  d.norms = 1;
  set_layers(m, std::vector<layer_desc>(static_cast<std::size_t>(m.num_layers), d));
}

// mamba2 (Mamba2ForCausalLM: Mamba-Codestral): every block one RMSNorm and a Mamba-2 mixer of
// num_heads x head_dim = expand x hidden, n_groups B/C groups, a gated RMSNorm before out_proj.
void read_mamba2(const reader& r, model_spec& m) {
  read_sizes(r, m, "num_hidden_layers");
  no_attention(m);
  m.norms_per_layer = 1;
  m.tie_word_embeddings = r.boolean_or("tie_word_embeddings", false);
  ssm_spec& s = m.ssm;
  s.inner = mul(r.positive_or("expand", 2), m.hidden_size);
  s.state_size = r.positive("state_size");
  s.conv_kernel = r.positive_or("conv_kernel", 4);
  s.num_heads = r.positive("num_heads");
  s.n_groups = r.positive_or("n_groups", 8);
  s.conv_bias = r.boolean_or("use_conv_bias", true);
  s.proj_bias = r.boolean_or("use_bias", false);
  s.gated_norm = true;
  check_mamba2_heads(r, "num_heads", "n_groups", r.positive("head_dim"), s);
  layer_desc d;
  d.mixer = mixer_kind::mamba2;
  d.mlp = false;
  d.norms = 1;
  set_layers(m, std::vector<layer_desc>(static_cast<std::size_t>(m.num_layers), d));
}

// jamba (Jamba-v0.1, Jamba-1.5): layer i is attention (no positional encoding, no biases) when
// i % attn_layer_period == attn_layer_offset, else a Mamba-1 mixer with RMSNorms on dt, B and C;
// its MLP is a mixture of num_experts SwiGLU experts of intermediate_size when
// i % expert_layer_period == expert_layer_offset (and num_experts > 1), else a dense one.
void read_jamba(const reader& r, model_spec& m) {
  read_sizes(r, m, "num_hidden_layers");
  m.norms_per_layer = 2;  // input_layernorm, pre_ff_layernorm
  m.position = position_kind::none;
  m.tie_word_embeddings = r.boolean_or("tie_word_embeddings", false);
  read_heads(r, m, "num_attention_heads", "num_key_value_heads", 0);
  m.attention.rotary_dim = 0;
  m.mlp.gated = true;
  m.mlp.activation = r.string_or("hidden_act", "silu");
  m.mlp.intermediate_size = r.positive("intermediate_size");

  ssm_spec& s = m.ssm;
  s.inner = mul(r.positive_or("mamba_expand", 2), m.hidden_size);
  s.state_size = r.positive_or("mamba_d_state", 16);
  s.conv_kernel = r.positive_or("mamba_d_conv", 4);
  s.dt_rank = dt_rank(r, "mamba_dt_rank", m.hidden_size);
  s.conv_bias = r.boolean_or("mamba_conv_bias", true);
  s.proj_bias = r.boolean_or("mamba_proj_bias", false);
  s.gated_norm = false;
  s.dt_bc_norms = true;  // dt_layernorm, b_layernorm, c_layernorm

  const auto period_offset = [&](std::string_view period_key, std::string_view offset_key, std::int64_t p,
                                 std::int64_t o) {
    const std::int64_t period = r.positive_or(period_key, p);
    const std::int64_t offset = r.non_negative_or(offset_key, o);
    if (offset >= period)
      range_error(r, offset_key,
                  "expected less than " + std::string(period_key) + " (" + str(period) + "), but got " + str(offset));
    return std::pair<std::int64_t, std::int64_t>{period, offset};
  };
  const auto [attn_period, attn_offset] = period_offset("attn_layer_period", "attn_layer_offset", 8, 4);
  const auto [expert_period, expert_offset] = period_offset("expert_layer_period", "expert_layer_offset", 2, 1);

  moe_spec& e = m.moe;
  const std::int64_t experts = r.positive_or("num_experts", 16);
  if (experts > 1) {
    e.num_experts = experts;
    e.experts_per_token = r.positive_or("num_experts_per_tok", 2);
    e.expert_intermediate_size = m.mlp.intermediate_size;
    check_top_k(r, "num_experts_per_tok", e);
  }
  std::vector<layer_desc> layers(static_cast<std::size_t>(m.num_layers));
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const auto li = static_cast<std::int64_t>(i);
    layers[i].mixer = li % attn_period == attn_offset ? mixer_kind::attention : mixer_kind::mamba;
    layers[i].moe = experts > 1 && li % expert_period == expert_offset;
  }
  set_layers(m, layers);
}

// falcon_h1 (Falcon-H1): every layer runs Llama attention (rotary, GQA) and a Mamba-2 mixer
// (mamba_d_ssm inner, mamba_n_heads heads, optional gated RMSNorm: mamba_rms_norm) side by side
// on the same normed input, then a SwiGLU MLP; two RMSNorms per layer. The mu-P multipliers
// scale activations and change no count.
void read_falcon_h1(const reader& r, model_spec& m) {
  read_sizes(r, m, "num_hidden_layers");
  m.norms_per_layer = 2;  // input_layernorm, pre_ff_layernorm
  m.position = position_kind::rotary;
  m.tie_word_embeddings = r.boolean_or("tie_word_embeddings", false);
  read_heads(r, m, "num_attention_heads", "num_key_value_heads", 0);
  m.attention.qkv_bias = m.attention.o_bias = r.boolean_or("attention_bias", false);
  m.mlp.gated = true;
  m.mlp.bias = r.boolean_or("mlp_bias", false);
  m.mlp.activation = r.string_or("hidden_act", "silu");
  m.mlp.intermediate_size = r.positive("intermediate_size");

  ssm_spec& s = m.ssm;
  s.inner = r.has("mamba_d_ssm") ? r.positive("mamba_d_ssm") : mul(r.positive_or("mamba_expand", 2), m.hidden_size);
  s.num_heads = r.positive_or("mamba_n_heads", 128);
  s.n_groups = r.positive_or("mamba_n_groups", 1);
  s.state_size = r.positive_or("mamba_d_state", 256);
  s.conv_kernel = r.positive_or("mamba_d_conv", 4);
  s.conv_bias = r.boolean_or("mamba_conv_bias", true);
  // in_proj takes mamba_proj_bias, out_proj projectors_bias (both false in every release).
  s.proj_bias = r.boolean_or("mamba_proj_bias", false);
  s.gated_norm = r.boolean_or("mamba_rms_norm", false);
  std::int64_t head_dim = 0;
  if (r.has("mamba_d_head") && r.at("mamba_d_head").is_string()) {
    const std::string v = r.at("mamba_d_head").get<std::string>();
    if (v != "auto") range_error(r, "mamba_d_head", "expected a positive integer or \"auto\", but got \"" + v + "\"");
    head_dim = s.inner / s.num_heads;
  } else {
    head_dim = r.has("mamba_d_head") ? r.positive("mamba_d_head") : s.inner / s.num_heads;
  }
  check_mamba2_heads(r, "mamba_n_heads", "mamba_n_groups", head_dim, s);

  layer_desc d;
  d.mixer = mixer_kind::attention;
  d.parallel_ssm = true;
  set_layers(m, std::vector<layer_desc>(static_cast<std::size_t>(m.num_layers), d));
}

// nemotron_h (Nemotron-H, Nemotron Nano 2, Nemotron 3 Nano): one block per character of
// hybrid_override_pattern (or per entry of layers_block_type), each an RMSNorm and one mixer:
// M a Mamba-2 mixer, * attention without positions, - a relu^2 up/down MLP, E a mixture of
// up/down experts with a router bias (e_score_correction_bias) and one shared up/down expert.
void read_nemotron_h(const reader& r, model_spec& m) {
  m.arch = architecture::decoder;
  m.hidden_size = r.positive("hidden_size");
  m.vocab_size = r.positive("vocab_size");
  m.max_position_embeddings = r.non_negative_or("max_position_embeddings", 0);
  m.norm = norm_kind::rmsnorm;
  m.norms_per_layer = 1;
  m.position = position_kind::none;
  m.tie_word_embeddings = r.boolean_or("tie_word_embeddings", false);

  // The block pattern.
  std::string pattern;
  std::string pattern_key = "hybrid_override_pattern";
  if (r.has("hybrid_override_pattern")) {
    pattern = r.string_or("hybrid_override_pattern", "");
    for (std::size_t i = 0; i < pattern.size(); ++i) {
      const char c = pattern[i];
      if (c != 'M' && c != '*' && c != '-' && c != 'E')
        range_error(r, "hybrid_override_pattern",
                    "expected only \"M\" (Mamba-2), \"*\" (attention), \"-\" (MLP) or \"E\" (MoE), but got \"" +
                        std::string(1, c) + "\" at position " + std::to_string(i));
    }
  } else if (r.has("layers_block_type")) {
    pattern_key = "layers_block_type";
    const std::vector<std::string> kinds = r.string_list_or_empty("layers_block_type");
    for (std::size_t i = 0; i < kinds.size(); ++i) {
      const std::string& k = kinds[i];
      if (k == "mamba" || k == "linear_attention")
        pattern += 'M';
      else if (k == "attention" || k == "full_attention")
        pattern += '*';
      else if (k == "mlp")
        pattern += '-';
      else if (k == "moe")
        pattern += 'E';
      else
        throw error(error_code::config_range, r.ptr("layers_block_type") + "/" + std::to_string(i),
                    "expected \"mamba\", \"attention\", \"mlp\" or \"moe\", but got \"" + k + "\"");
    }
  } else {
    throw error(error_code::config_missing, r.ptr("hybrid_override_pattern"),
                "required field is missing: expected a string of block kinds (M, *, -, E), one per layer");
  }
  if (pattern.empty()) range_error(r, pattern_key, "expected at least one block, but got none");
  if (pattern.size() > static_cast<std::size_t>(reader::k_max_layers))
    range_error(r, pattern_key, "expected at most 65536 blocks, but got " + std::to_string(pattern.size()));
  m.num_layers = static_cast<std::int64_t>(pattern.size());
  if (r.has("num_hidden_layers") && r.layers("num_hidden_layers") != m.num_layers)
    range_error(
        r, pattern_key,
        "expected " + str(r.layers("num_hidden_layers")) + " blocks (num_hidden_layers), but got " + str(m.num_layers));
  const auto count = [&](char c) {
    std::int64_t k = 0;
    for (char p : pattern) k += p == c ? 1 : 0;
    return k;
  };

  attention_spec& a = m.attention;
  if (count('*') > 0) {
    read_heads(r, m, "num_attention_heads", "num_key_value_heads", 0);
    if (r.has("attention_head_dim")) a.head_dim = a.v_head_dim = r.positive("attention_head_dim");
    a.rotary_dim = 0;
    a.qkv_bias = a.o_bias = r.boolean_or("attention_bias", false);
  }
  if (count('-') > 0) {
    m.mlp.intermediate_size = r.positive("intermediate_size");
    m.mlp.bias = r.boolean_or("mlp_bias", false);
  }
  m.mlp.gated = false;
  m.mlp.activation = r.string_or("mlp_hidden_act", "relu2");
  if (count('E') > 0) {
    if (r.has("moe_latent_size"))
      range_error(r, "moe_latent_size", "expected null (MoE latent projections are not supported), but got a value");
    moe_spec& e = m.moe;
    e.num_experts = r.positive("n_routed_experts");
    e.experts_per_token = r.positive("num_experts_per_tok");
    e.expert_intermediate_size = r.positive("moe_intermediate_size");
    e.shared_intermediate_size = r.non_negative_or("moe_shared_expert_intermediate_size", 0);
    e.router_bias = true;  // e_score_correction_bias
    e.gated_experts = false;
    check_top_k(r, "num_experts_per_tok", e);
    if (r.boolean_or("mlp_bias", false))
      range_error(r, "mlp_bias", "expected false with MoE blocks (expert biases are not supported), but got true");
  }
  if (count('M') > 0) {
    ssm_spec& s = m.ssm;
    s.num_heads = r.positive("mamba_num_heads");
    const std::int64_t head_dim = r.positive("mamba_head_dim");
    s.inner = mul(s.num_heads, head_dim);
    const std::string_view groups_key = r.pick({"n_groups", "mamba_n_groups"});
    s.n_groups = r.positive_or(groups_key, 8);
    s.state_size = r.positive("ssm_state_size");
    s.conv_kernel = r.positive_or(r.pick({"conv_kernel", "mamba_d_conv"}), 4);
    s.conv_bias = r.boolean_or(r.pick({"use_conv_bias", "mamba_conv_bias"}), true);
    s.proj_bias = r.boolean_or("use_bias", false);  // NemotronHMamba2Mixer: in_proj/out_proj bias=use_bias
    s.gated_norm = true;
    check_mamba2_heads(r, "mamba_num_heads", groups_key, head_dim, s);
  }

  std::vector<layer_desc> layers(pattern.size());
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    layer_desc& d = layers[i];
    d.norms = 1;
    switch (pattern[i]) {
      case 'M':
        d.mixer = mixer_kind::mamba2;
        d.mlp = false;
        break;
      case '*':
        d.mixer = mixer_kind::attention;
        d.mlp = false;
        break;
      case 'E':
        d.moe = true;
        d.mixer = mixer_kind::none;
        break;
      default:
        d.mixer = mixer_kind::none;
        break;
    }
  }
  set_layers(m, layers);
}

}  // namespace flopcast::detail
