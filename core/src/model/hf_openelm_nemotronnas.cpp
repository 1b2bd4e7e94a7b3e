// Config readers for Apple OpenELM (openelm) and NVIDIA's Nemotron-NAS / DeciLM (nemotron-nas,
// DeciLMForCausalLM), registered in families() in hf_config.cpp. Both give layers their own
// attention layout and MLP width (layer_group::attention, layer_group::intermediate_size).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "base/detail.hpp"
#include "base/json_reader.hpp"
#include "model/hf_common.hpp"

namespace flopcast::detail {

namespace {

// MobileNet's make_divisible as OpenELM's configuration_openelm.py has it: the nearest multiple
// of divisor (at least divisor), one divisor more when that rounds down by over 10%.
std::int64_t openelm_make_divisible(double v, std::int64_t divisor) {
  const double dv = static_cast<double>(divisor);
  auto out = std::max(divisor, static_cast<std::int64_t>(v + dv / 2) / divisor * divisor);
  if (static_cast<double>(out) < 0.9 * v) out += divisor;
  return out;
}

// Python's round(v, 2): the correctly rounded decimal (printf rounds the exact binary value,
// as Python does).
double openelm_round2(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return std::strtod(buf, nullptr);
}

// numpy.linspace(lo, hi, n) rounded to 2 decimals, as OpenELMConfig.__post_init__ expands a
// two-number multiplier range.
std::vector<double> openelm_linspace(double lo, double hi, std::int64_t n) {
  std::vector<double> out(static_cast<std::size_t>(n));
  const double step = n > 1 ? (hi - lo) / static_cast<double>(n - 1) : 0.0;
  for (std::int64_t i = 0; i < n; ++i)
    out[static_cast<std::size_t>(i)] = openelm_round2(i == n - 1 && n > 1 ? hi : lo + static_cast<double>(i) * step);
  return out;
}

// A multiplier field: one number for every layer, a [first, last] range spread over the layers,
// or (allow_list) one value per layer. Each value must lie in (0, 64].
std::vector<double> openelm_multipliers(const reader& r, std::string_view key, double fallback, std::int64_t layers,
                                        bool allow_list) {
  const auto check = [&](const json& v, const std::string& ptr) {
    if (!v.is_number()) throw error(error_code::config_type, ptr, "expected a number, but got " + describe(v));
    const double x = v.get<double>();
    if (!(x > 0 && x <= 64))
      throw error(error_code::config_range, ptr, "expected a multiplier in (0, 64], but got " + describe(v));
    return x;
  };
  if (!r.has(key)) return std::vector<double>(static_cast<std::size_t>(layers), fallback);
  const json& v = r.at(key);
  if (!v.is_array()) return std::vector<double>(static_cast<std::size_t>(layers), check(v, r.ptr(key)));
  std::vector<double> values;
  for (std::size_t i = 0; i < v.size(); ++i) values.push_back(check(v[i], r.ptr(key) + "/" + std::to_string(i)));
  if (values.size() == 2) return openelm_linspace(values[0], values[1], layers);  // as __post_init__ does
  if (allow_list && static_cast<std::int64_t>(values.size()) == layers) return values;
  range_error(r, key,
              std::string("expected one number or a [first, last] pair") +
                  (allow_list ? " or one value per layer (" + std::to_string(layers) + ")" : "") + ", but got " +
                  std::to_string(values.size()) + " values");
}

// DeciLM's _ffn_mult_to_intermediate_size: int(2 * ffn_mult * hidden / 3) rounded up to a
// multiple of 256 (vLLM nemotron_nas.py, transformers-style modeling_decilm.py).
std::int64_t nemotron_nas_ffn_width(double ffn_mult, std::int64_t hidden) {
  const auto n = static_cast<std::int64_t>(2.0 * ffn_mult * static_cast<double>(hidden) / 3.0);
  return n % 256 == 0 ? n : n + 256 - n % 256;
}

}  // namespace

// openelm (Apple OpenELM; configuration_openelm.py / modeling_openelm.py on the Hub): pre-norm
// RMSNorm decoder, no biases, RoPE. Layer i has num_query_heads[i] query heads of head_dim =
// make_divisible(model_dim x qkv_multiplier[i], head_dim x num_gqa_groups) / head_dim and
// query heads / num_gqa_groups KV heads (a fused qkv_proj, out_proj), per-head q/k RMSNorms
// (normalize_qk_projections), and a SwiGLU (ffn_with_glu: proj_1 h -> 2 I, proj_2 I -> h) of
// I = make_divisible(ffn_multiplier[i] x model_dim, ffn_dim_divisor). The config's per-layer
// head lists are recomputed from qkv_multipliers as __post_init__ does when the model loads;
// ffn_multipliers is a number, a range or one value per layer. Embeddings shared with the head
// (share_input_output_layers).
void read_openelm(const reader& r, model_spec& m) {
  m.arch = architecture::decoder;
  m.hidden_size = r.positive("model_dim");
  m.num_layers = r.layers("num_transformer_layers");
  m.vocab_size = r.positive("vocab_size");
  m.max_position_embeddings = r.non_negative_or("max_context_length", 2048);
  m.norm = norm_kind::rmsnorm;
  const std::string norm = r.string_or("normalization_layer_name", "rms_norm");
  if (norm != "rms_norm")
    range_error(r, "normalization_layer_name",
                "expected \"rms_norm\" (the checkpoints' norm), but got \"" + norm + "\"");
  m.norms_per_layer = 2;  // attn_norm, ffn_norm
  m.position = position_kind::rotary;
  m.tie_word_embeddings = r.boolean_or("share_input_output_layers", false);
  m.mlp.gated = r.boolean_or("ffn_with_glu", true);
  m.mlp.activation = r.string_or("activation_fn_name", "swish");

  const std::int64_t head_dim = r.positive_or("head_dim", 128);
  const std::int64_t groups = r.positive_or("num_gqa_groups", 1);
  const std::int64_t ffn_divisor = r.positive_or("ffn_dim_divisor", 256);
  const std::vector<double> qkv = openelm_multipliers(r, "qkv_multipliers", 1.0, m.num_layers, false);
  const std::vector<double> ffn = openelm_multipliers(r, "ffn_multipliers", 4.0, m.num_layers, true);

  attention_spec base;
  base.head_dim = base.v_head_dim = base.rotary_dim = head_dim;
  base.qk_norm = r.boolean_or("normalize_qk_projections", false);
  std::vector<layer_desc> layers(static_cast<std::size_t>(m.num_layers));
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const double width = static_cast<double>(m.hidden_size) * qkv[i];
    const std::int64_t query_dim = openelm_make_divisible(width, mul(head_dim, groups));
    attention_spec a = base;
    a.num_heads = query_dim / head_dim;
    a.num_kv_heads = a.num_heads / groups;  // at least 1: query_dim is at least head_dim x groups
    const std::int64_t ffn_width = openelm_make_divisible(ffn[i] * static_cast<double>(m.hidden_size), ffn_divisor);
    if (i == 0) {
      m.attention = a;
      m.mlp.intermediate_size = ffn_width;
    }
    if (a != m.attention) layers[i].attention = a;
    if (ffn_width != m.mlp.intermediate_size) layers[i].intermediate_size = ffn_width;
  }
  set_layers(m, layers);
}

// nemotron-nas (DeciLMForCausalLM: Llama-3.x-Nemotron Super/Ultra/51B; vLLM nemotron_nas.py):
// a Llama decoder whose layers each follow block_configs[i]. attention.no_op drops the layer's
// attention and its input_layernorm; otherwise it is Llama attention with num_attention_heads /
// attention.n_heads_in_group KV heads. ffn.no_op drops the MLP and post_attention_layernorm;
// otherwise a SwiGLU of _ffn_mult_to_intermediate_size(ffn.ffn_mult). replace_with_linear (a
// single hidden x hidden matrix in place of the block) is not expressible and is refused.
void read_nemotron_nas(const reader& r, model_spec& m) {
  read_decoder_basics(r, m);
  m.norms_per_layer = 2;
  m.position = position_kind::rotary;
  m.tie_word_embeddings = r.boolean_or("tie_word_embeddings", false);
  m.mlp.gated = true;
  m.mlp.activation = r.string_or("hidden_act", "silu");
  m.mlp.bias = r.boolean_or("mlp_bias", false);

  attention_spec& a = m.attention;
  a.num_heads = r.positive("num_attention_heads");
  if (r.has("head_dim") && !r.at("head_dim").is_null()) {
    a.head_dim = r.positive("head_dim");
  } else {
    if (m.hidden_size % a.num_heads != 0)
      range_error(r, "num_attention_heads",
                  "expected a divisor of the hidden size " + std::to_string(m.hidden_size) + ", but got " +
                      std::to_string(a.num_heads));
    a.head_dim = m.hidden_size / a.num_heads;
  }
  a.v_head_dim = a.rotary_dim = a.head_dim;
  a.qkv_bias = a.o_bias = r.boolean_or("attention_bias", false);

  if (!r.has("block_configs") || !r.at("block_configs").is_array())
    throw error(error_code::config_missing, r.ptr("block_configs"), "expected an array of per-layer block configs");
  const json& blocks = r.at("block_configs");
  check_list_length(r, "block_configs", blocks.size(), m.num_layers);

  std::vector<layer_desc> layers(static_cast<std::size_t>(m.num_layers));
  bool have_attention = false, have_mlp = false;
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const std::string base = r.ptr("block_configs") + "/" + std::to_string(i);
    if (!blocks[i].is_object())
      throw error(error_code::config_type, base, "expected an object, but got " + describe(blocks[i]));
    const reader block(blocks[i], base);
    const auto part = [&](std::string_view key) {
      if (!block.has(key) || !block.at(key).is_object())
        throw error(error_code::config_missing, block.ptr(key), "expected an object");
      return reader(block.at(key), block.ptr(key));
    };
    const reader att = part("attention");
    const reader ffn = part("ffn");
    layer_desc& d = layers[i];
    d.norms = 0;
    if (att.boolean_or("replace_with_linear", false))
      range_error(att, "replace_with_linear", "a linear layer in place of attention is not supported");
    if (ffn.boolean_or("replace_with_linear", false))
      range_error(ffn, "replace_with_linear", "a linear layer in place of the FFN is not supported");
    if (att.boolean_or("no_op", false)) {
      d.mixer = mixer_kind::none;
    } else {
      const std::int64_t group = att.positive("n_heads_in_group");
      if (a.num_heads % group != 0)
        range_error(att, "n_heads_in_group",
                    "expected a divisor of num_attention_heads (" + std::to_string(a.num_heads) + "), but got " +
                        std::to_string(group));
      attention_spec own = a;
      own.num_kv_heads = a.num_heads / group;
      if (!have_attention) {
        a.num_kv_heads = own.num_kv_heads;
        have_attention = true;
      }
      if (own != a) d.attention = own;
      d.norms += 1;  // input_layernorm
    }
    if (ffn.boolean_or("no_op", false)) {
      d.mlp = false;
    } else {
      if (!ffn.has("ffn_mult")) throw error(error_code::config_missing, ffn.ptr("ffn_mult"), "expected a number");
      const double mult = ffn.number_or("ffn_mult", 0.0, 1e-6, 1024.0);
      const std::int64_t width = nemotron_nas_ffn_width(mult, m.hidden_size);
      if (!have_mlp) {
        m.mlp.intermediate_size = width;
        have_mlp = true;
      }
      if (width != m.mlp.intermediate_size) d.intermediate_size = width;
      d.norms += 1;  // post_attention_layernorm
    }
  }
  if (!have_attention) a.num_kv_heads = a.num_heads;
  set_layers(m, layers);
}

}  // namespace flopcast::detail
