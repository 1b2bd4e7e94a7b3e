// Config readers for two hybrid families: LFM2 (gated short convolutions beside GQA attention
// layers) and Granite 4.0's granitemoehybrid (Mamba-2 beside attention, every layer with a shared
// SwiGLU MLP and optionally a mixture of experts). Registered in families() in hf_config.cpp.
// Shapes follow transformers' modeling_lfm2.py and modular_granitemoehybrid.py.
#include <algorithm>
#include <string>
#include <vector>

#include "base/detail.hpp"
#include "base/json_reader.hpp"
#include "model/hf_common.hpp"

namespace flopcast::detail {

namespace {

std::string lfm2_hybrid_str(std::int64_t v) { return std::to_string(v); }

// A width that the modeling code takes as the hidden size must be the hidden size.
void lfm2_hybrid_same_as_hidden(const reader& r, std::string_view key, std::int64_t hidden) {
  if (r.has(key) && r.positive(key) != hidden)
    range_error(r, key,
                "expected the hidden size " + lfm2_hybrid_str(hidden) +
                    " (the modeling code uses hidden_size), but got " + lfm2_hybrid_str(r.positive(key)));
}

}  // namespace

// lfm2 (LFM2-350M / 700M / 1.2B / 2.6B) and lfm2_moe (LFM2-8B-A1B): layer i is GQA attention (q/k/v/out_proj without
// bias, per-head q and k RMSNorms, rotary) when layer_types says "full_attention" (or, in the first configs, when i is
// in full_attn_idxs; neither given: every layer), else a gated short conv (Lfm2ShortConv: in_proj h -> 3h, depthwise
// conv of conv_L_cache taps, out_proj; bias per conv_bias). Every layer has operator_norm, ffn_norm and a SwiGLU MLP
// (w1, w3, w2) whose width is block_ff_dim (or intermediate_size), and with block_auto_adjust_ff_dim: int(2 x ff / 3),
// times block_ffn_dim_multiplier, rounded up to block_multiple_of. The final embedding_norm, tied head.
void read_lfm2(const reader& r, model_spec& m) {
  read_decoder_basics(r, m);
  m.norms_per_layer = 2;  // operator_norm, ffn_norm
  m.position = position_kind::rotary;
  // Lfm2Config: tie_embedding (the original key) wins over tie_word_embeddings; default tied.
  m.tie_word_embeddings = r.boolean_or(r.pick({"tie_embedding", "tie_word_embeddings"}), true);
  lfm2_hybrid_same_as_hidden(r, "block_dim", m.hidden_size);
  lfm2_hybrid_same_as_hidden(r, "conv_dim", m.hidden_size);
  lfm2_hybrid_same_as_hidden(r, "conv_dim_out", m.hidden_size);

  read_heads(r, m, "num_attention_heads", "num_key_value_heads", 0);
  m.attention.qk_norm = true;  // q_layernorm, k_layernorm of head_dim

  // The MLP width (lfm2_moe's dense layers take intermediate_size as written).
  const bool moe = m.model_type == "lfm2_moe";
  const std::string_view ff_key = moe ? "intermediate_size" : r.pick({"block_ff_dim", "intermediate_size"});
  std::int64_t ff = moe ? r.positive(ff_key) : r.positive_or(ff_key, 12288);
  if (!moe && r.boolean_or("block_auto_adjust_ff_dim", true)) {
    ff = 2 * ff / 3;  // int(2 * ff_dim / 3) of a positive value
    if (r.has("block_ffn_dim_multiplier")) {
      const double mult = r.number_or("block_ffn_dim_multiplier", 1.0, 0.0, 1024.0);
      ff = static_cast<std::int64_t>(mult * static_cast<double>(ff));
    }
    const std::int64_t multiple = r.positive_or("block_multiple_of", 256);
    ff = multiple * ((ff + multiple - 1) / multiple);
    if (ff <= 0 || ff > reader::k_max_dim)
      range_error(r, ff_key,
                  "expected a feed-forward width from 1 to 2^30 after the adjustment, but got " + lfm2_hybrid_str(ff));
  }
  m.mlp.intermediate_size = ff;
  m.mlp.gated = true;
  m.mlp.activation = "silu";

  m.short_conv.conv_kernel = r.positive_or("conv_L_cache", 3);
  m.short_conv.bias = r.boolean_or("conv_bias", false);

  // Which layers attend.
  const auto n = static_cast<std::size_t>(m.num_layers);
  std::vector<bool> attention(n, true);
  if (r.has("layer_types")) {
    const std::vector<std::string> kinds = r.string_list_or_empty("layer_types");
    check_list_length(r, "layer_types", kinds.size(), m.num_layers);
    for (std::size_t i = 0; i < n; ++i) {
      if (kinds[i] != "full_attention" && kinds[i] != "conv")
        throw error(error_code::config_range, r.ptr("layer_types") + "/" + std::to_string(i),
                    "expected \"full_attention\" or \"conv\", but got \"" + kinds[i] + "\"");
      attention[i] = kinds[i] == "full_attention";
    }
  } else if (r.has("full_attn_idxs")) {
    std::fill(attention.begin(), attention.end(), false);
    const std::vector<std::int64_t> idxs = r.int_list_or_empty("full_attn_idxs");
    for (std::size_t k = 0; k < idxs.size(); ++k) {
      if (idxs[k] < 0 || idxs[k] >= m.num_layers)
        throw error(error_code::config_range, r.ptr("full_attn_idxs") + "/" + std::to_string(k),
                    "expected a layer index from 0 to " + lfm2_hybrid_str(m.num_layers - 1) + ", but got " +
                        lfm2_hybrid_str(idxs[k]));
      attention[static_cast<std::size_t>(idxs[k])] = true;
    }
  }
  // lfm2_moe (Lfm2MoeSparseMoeBlock): from layer num_dense_layers on, a bias-free router over
  // num_experts SwiGLU experts of moe_intermediate_size (no shared expert) and, with
  // use_expert_bias, a per-expert routing bias.
  std::int64_t dense_layers = m.num_layers;
  if (moe) {
    moe_spec& e = m.moe;
    e.num_experts = r.positive("num_experts");
    e.experts_per_token = r.positive("num_experts_per_tok");
    e.expert_intermediate_size = r.positive("moe_intermediate_size");
    e.router_bias = r.boolean_or("use_expert_bias", true);
    check_top_k(r, "num_experts_per_tok", e);
    dense_layers = r.non_negative_or("num_dense_layers", 2);
  }
  std::vector<layer_desc> layers(n);
  for (std::size_t i = 0; i < n; ++i) {
    layers[i].mixer = attention[i] ? mixer_kind::attention : mixer_kind::short_conv;
    layers[i].moe = static_cast<std::int64_t>(i) >= dense_layers;
  }
  set_layers(m, layers);
}

// granitemoehybrid (Granite 4.0 H and the attention-only Granite 4.0 micro): layer i is a Mamba-2
// mixer (BambaMixer: mamba_expand x hidden inner, mamba_n_heads heads, mamba_n_groups B/C groups,
// gated RMSNorm) or attention (q/k/v/o with attention_bias, rotary only when
// position_embedding_type is "rope") as layer_types (or layers_block_type) says; no list: every
// layer Mamba. Every layer then has input_layernorm, post_attention_layernorm and a shared SwiGLU
// MLP of shared_intermediate_size, plus, when num_local_experts > 0, a mixture of SwiGLU experts of
// intermediate_size with a bias-free router.
void read_granitemoehybrid(const reader& r, model_spec& m) {
  read_decoder_basics(r, m);
  m.norms_per_layer = 2;
  m.tie_word_embeddings = r.boolean_or("tie_word_embeddings", false);
  m.position = r.string_or("position_embedding_type", "") == "rope" ? position_kind::rotary : position_kind::none;

  const auto n = static_cast<std::size_t>(m.num_layers);
  std::vector<bool> attention(n, false);
  const std::string_view types_key = r.pick({"layer_types", "layers_block_type"});
  if (r.has(types_key)) {
    const std::vector<std::string> kinds = r.string_list_or_empty(types_key);
    check_list_length(r, types_key, kinds.size(), m.num_layers);
    for (std::size_t i = 0; i < n; ++i) {
      if (kinds[i] != "mamba" && kinds[i] != "attention")
        throw error(error_code::config_range, r.ptr(types_key) + "/" + std::to_string(i),
                    "expected \"mamba\" or \"attention\", but got \"" + kinds[i] + "\"");
      attention[i] = kinds[i] == "attention";
    }
  }
  bool any_attention = false, any_mamba = false;
  for (std::size_t i = 0; i < n; ++i) (attention[i] ? any_attention : any_mamba) = true;

  if (any_attention) {
    read_heads(r, m, "num_attention_heads", "num_key_value_heads", 0);
    m.attention.qkv_bias = m.attention.o_bias = r.boolean_or("attention_bias", false);
    if (m.position == position_kind::none) m.attention.rotary_dim = 0;
  } else {
    m.attention = attention_spec{};
  }
  if (any_mamba) {
    ssm_spec& s = m.ssm;
    s.inner = mul(r.positive_or("mamba_expand", 2), m.hidden_size);
    s.num_heads = r.positive_or("mamba_n_heads", 128);
    s.n_groups = r.positive_or("mamba_n_groups", 1);
    s.state_size = r.positive_or("mamba_d_state", 256);
    s.conv_kernel = r.positive_or("mamba_d_conv", 4);
    s.conv_bias = r.boolean_or("mamba_conv_bias", true);
    s.proj_bias = r.boolean_or("mamba_proj_bias", false);
    s.gated_norm = true;
    if (s.inner % s.num_heads != 0)
      range_error(r, "mamba_n_heads",
                  "expected a divisor of mamba_expand x hidden_size (" + lfm2_hybrid_str(s.inner) + "), but got " +
                      lfm2_hybrid_str(s.num_heads));
    if (r.has("mamba_d_head") &&
        !(r.at("mamba_d_head").is_string() && r.at("mamba_d_head").get<std::string>() == "auto")) {
      const std::int64_t head_dim = r.positive("mamba_d_head");
      if (head_dim * s.num_heads != s.inner)
        range_error(r, "mamba_d_head",
                    "expected mamba_expand x hidden_size / mamba_n_heads (" + lfm2_hybrid_str(s.inner / s.num_heads) +
                        "), but got " + lfm2_hybrid_str(head_dim));
    }
    if (s.n_groups > s.num_heads || s.num_heads % s.n_groups != 0)
      range_error(r, "mamba_n_groups",
                  "expected a divisor of the number of heads (" + lfm2_hybrid_str(s.num_heads) + "), but got " +
                      lfm2_hybrid_str(s.n_groups));
  }

  // The shared MLP is on every layer; with experts it rides beside them as a shared expert.
  m.mlp.gated = true;
  m.mlp.activation = r.string_or("hidden_act", "silu");
  const std::int64_t shared = r.positive_or("shared_intermediate_size", 1024);
  const std::int64_t experts = r.non_negative_or("num_local_experts", 8);
  moe_spec& e = m.moe;
  if (experts > 0) {
    e.num_experts = experts;
    e.experts_per_token = r.positive_or("num_experts_per_tok", 2);
    e.expert_intermediate_size = r.positive_or("intermediate_size", 11008);
    e.shared_intermediate_size = shared;
    check_top_k(r, "num_experts_per_tok", e);
  } else {
    m.mlp.intermediate_size = shared;
  }
  std::vector<layer_desc> layers(n);
  for (std::size_t i = 0; i < n; ++i) {
    layers[i].mixer = attention[i] ? mixer_kind::attention : mixer_kind::mamba2;
    layers[i].moe = experts > 0;
  }
  set_layers(m, layers);
}

}  // namespace flopcast::detail
