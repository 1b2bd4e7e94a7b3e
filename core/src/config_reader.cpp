// Reads Hugging Face config.json files (and accelerator records) into flopcast's
// value types. The only place besides the result writer that includes nlohmann_json.
#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "detail.hpp"
#include "flopcast/config.hpp"
#include "flopcast/error.hpp"
#include "flopcast/registry.hpp"
#include "flopcast/training.hpp"

namespace flopcast {
namespace {

using json = nlohmann::json;

std::string describe(const json& v) {
  std::string text = v.dump();
  if (text.size() > 40) text = text.substr(0, 37) + "...";
  return std::string(v.type_name()) + " " + text;
}

// An integer in [min, max]; integral floats (4096.0) are accepted.
std::int64_t to_integer(const json& v, const std::string& ptr, std::int64_t min, std::int64_t max,
                        const char* expected) {
  std::int64_t out = 0;
  if (v.is_number_integer()) {
    if (v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(max))
      throw error(error_code::config_range, ptr, std::string("expected ") + expected + ", but got " + v.dump());
    out = v.get<std::int64_t>();
  } else if (v.is_number_float() && std::isfinite(v.get<double>()) && std::floor(v.get<double>()) == v.get<double>() &&
             std::fabs(v.get<double>()) < 9.0e15) {
    out = static_cast<std::int64_t>(v.get<double>());
  } else {
    throw error(error_code::config_type, ptr, std::string("expected ") + expected + ", but got " + describe(v));
  }
  if (out < min || out > max)
    throw error(error_code::config_range, ptr, std::string("expected ") + expected + ", but got " + v.dump());
  return out;
}

// Typed, range-checked access to one JSON object, with errors that name the field.
class reader {
 public:
  reader(const json& j, std::string base = "") : j_(j), base_(std::move(base)) {}

  [[nodiscard]] bool has(std::string_view key) const {
    auto it = j_.find(std::string(key));
    return it != j_.end() && !it->is_null();
  }
  [[nodiscard]] std::string ptr(std::string_view key) const { return base_ + "/" + std::string(key); }
  // The first of `keys` present (some families renamed fields over time).
  [[nodiscard]] std::string_view pick(std::initializer_list<std::string_view> keys) const {
    for (auto k : keys)
      if (has(k)) return k;
    return *keys.begin();
  }

  [[nodiscard]] std::int64_t integer(std::string_view key, std::int64_t min, std::int64_t max,
                                     const char* expected) const {
    if (!has(key))
      throw error(error_code::config_missing, ptr(key), std::string("required field is missing: expected ") + expected);
    return to_integer(j_.at(std::string(key)), ptr(key), min, max, expected);
  }
  [[nodiscard]] std::int64_t positive(std::string_view key) const {
    return integer(key, 1, k_max_dim, "a positive integer (at most 2^30)");
  }
  [[nodiscard]] std::int64_t positive_or(std::string_view key, std::int64_t fallback) const {
    return has(key) ? positive(key) : fallback;
  }
  [[nodiscard]] std::int64_t non_negative_or(std::string_view key, std::int64_t fallback) const {
    return has(key) ? integer(key, 0, k_max_dim, "a non-negative integer (at most 2^30)") : fallback;
  }
  [[nodiscard]] bool boolean_or(std::string_view key, bool fallback) const {
    if (!has(key)) return fallback;
    const json& v = j_.at(std::string(key));
    if (!v.is_boolean())
      throw error(error_code::config_type, ptr(key), "expected true or false, but got " + describe(v));
    return v.get<bool>();
  }
  [[nodiscard]] double number_or(std::string_view key, double fallback, double min, double max) const {
    if (!has(key)) return fallback;
    const json& v = j_.at(std::string(key));
    if (!v.is_number()) throw error(error_code::config_type, ptr(key), "expected a number, but got " + describe(v));
    const double d = v.get<double>();
    if (!(d >= min && d <= max))
      throw error(error_code::config_range, ptr(key),
                  "expected a number in [" + detail::format_number(min) + ", " + detail::format_number(max) +
                      "], but got " + v.dump());
    return d;
  }
  [[nodiscard]] std::string string_or(std::string_view key, std::string fallback) const {
    if (!has(key)) return fallback;
    const json& v = j_.at(std::string(key));
    if (!v.is_string()) throw error(error_code::config_type, ptr(key), "expected a string, but got " + describe(v));
    return v.get<std::string>();
  }
  [[nodiscard]] std::vector<std::int64_t> int_list_or_empty(std::string_view key) const {
    std::vector<std::int64_t> out;
    if (!has(key)) return out;
    const json& v = j_.at(std::string(key));
    if (!v.is_array())
      throw error(error_code::config_type, ptr(key), "expected an array of integers, but got " + describe(v));
    for (std::size_t i = 0; i < v.size(); ++i) {
      if (!v[i].is_number_integer())
        throw error(error_code::config_type, ptr(key) + "/" + std::to_string(i),
                    "expected an integer, but got " + describe(v[i]));
      out.push_back(v[i].get<std::int64_t>());
    }
    return out;
  }
  [[nodiscard]] std::vector<std::string> string_list_or_empty(std::string_view key) const {
    std::vector<std::string> out;
    if (!has(key)) return out;
    const json& v = j_.at(std::string(key));
    if (!v.is_array())
      throw error(error_code::config_type, ptr(key), "expected an array of strings, but got " + describe(v));
    for (std::size_t i = 0; i < v.size(); ++i) {
      if (!v[i].is_string())
        throw error(error_code::config_type, ptr(key) + "/" + std::to_string(i),
                    "expected a string, but got " + describe(v[i]));
      out.push_back(v[i].get<std::string>());
    }
    return out;
  }

  static constexpr std::int64_t k_max_dim = std::int64_t{1} << 30;

 private:
  const json& j_;
  std::string base_;
};

[[noreturn]] void range_error(const reader& r, std::string_view key, const std::string& message) {
  throw error(error_code::config_range, r.ptr(key), message);
}

// One layer before grouping.
struct layer_desc {
  bool encoder = false, cross = false, moe = false;
  std::int64_t window = 0;
  bool operator<(const layer_desc& o) const {
    return std::tie(encoder, cross, moe, window) < std::tie(o.encoder, o.cross, o.moe, o.window);
  }
};

void set_layers(model_spec& m, const std::vector<layer_desc>& layers) {
  m.groups.clear();
  m.layer_group_of.clear();
  std::map<layer_desc, std::size_t> index;
  for (const layer_desc& d : layers) {
    auto it = index.find(d);
    if (it == index.end()) {
      if (m.groups.size() == max_layer_groups)
        throw error(error_code::config_range, "", "too many distinct layer shapes (more than 8)");
      layer_group g;
      g.encoder = d.encoder;
      g.cross_attention = d.cross;
      g.moe = d.moe;
      g.window = d.window;
      m.groups.push_back(g);
      it = index.emplace(d, m.groups.size() - 1).first;
    }
    ++m.groups[it->second].count;
    m.layer_group_of.push_back(static_cast<std::uint8_t>(it->second));
  }
}

// Heads and head size of standard (non-MLA) attention.
void read_heads(const reader& r, model_spec& m, std::string_view heads_key, std::string_view kv_key,
                std::int64_t kv_default) {
  attention_spec& a = m.attention;
  a.num_heads = r.positive(heads_key);
  a.num_kv_heads = r.has(kv_key) ? r.positive(kv_key) : kv_default == 0 ? a.num_heads : kv_default;
  if (a.num_kv_heads > a.num_heads || a.num_heads % a.num_kv_heads != 0)
    range_error(r, kv_key,
                "expected a divisor of " + std::string(heads_key) + " (" + std::to_string(a.num_heads) + "), but got " +
                    std::to_string(a.num_kv_heads));
  if (r.has("head_dim")) {
    a.head_dim = r.positive("head_dim");
  } else {
    if (m.hidden_size % a.num_heads != 0)
      range_error(r, heads_key,
                  "expected a divisor of the hidden size " + std::to_string(m.hidden_size) +
                      " (no head_dim given), but got " + std::to_string(a.num_heads));
    a.head_dim = m.hidden_size / a.num_heads;
  }
  a.v_head_dim = a.head_dim;
  a.rotary_dim = a.head_dim;
}

std::vector<std::string> window_layer_kinds(const reader& r, std::int64_t layers) {
  std::vector<std::string> kinds = r.string_list_or_empty("layer_types");
  if (!kinds.empty() && static_cast<std::int64_t>(kinds.size()) != layers)
    range_error(
        r, "layer_types",
        "expected " + std::to_string(layers) + " entries (one per layer), but got " + std::to_string(kinds.size()));
  for (std::size_t i = 0; i < kinds.size(); ++i)
    if (kinds[i] != "sliding_attention" && kinds[i] != "full_attention")
      throw error(error_code::config_range, r.ptr("layer_types") + "/" + std::to_string(i),
                  "expected \"sliding_attention\" or \"full_attention\", but got \"" + kinds[i] + "\"");
  return kinds;
}

// llama, mistral, mixtral, qwen2, qwen2_moe, qwen3, qwen3_moe, gemma, gemma2, phi3,
// deepseek_v2, deepseek_v3: pre-norm RMSNorm decoders with rotary positions and gated MLPs.
void read_llama_family(const reader& r, model_spec& m) {
  const std::string& t = m.model_type;
  const bool deepseek = t == "deepseek_v2" || t == "deepseek_v3";
  const bool gemma = t == "gemma" || t == "gemma2";
  const bool qwen_moe = t == "qwen2_moe" || t == "qwen3_moe";
  m.arch = architecture::decoder;
  m.hidden_size = r.positive("hidden_size");
  m.num_layers = r.positive("num_hidden_layers");
  m.vocab_size = r.positive("vocab_size");
  m.max_position_embeddings = r.non_negative_or("max_position_embeddings", 0);
  m.norm = norm_kind::rmsnorm;
  m.norms_per_layer = t == "gemma2" ? 4 : 2;
  m.position = position_kind::rotary;
  m.scale_embeddings = gemma;
  m.tie_word_embeddings = r.boolean_or("tie_word_embeddings", gemma);
  m.mlp.gated = true;
  m.mlp.activation = gemma ? r.string_or(r.pick({"hidden_activation", "hidden_act"}), "gelu_pytorch_tanh")
                           : r.string_or("hidden_act", "silu");
  const bool dense_layers_exist = true;
  (void)dense_layers_exist;

  attention_spec& a = m.attention;
  if (deepseek) {
    a.mla = true;
    a.num_heads = r.positive("num_attention_heads");
    a.num_kv_heads = a.num_heads;
    a.q_lora_rank = r.non_negative_or("q_lora_rank", 0);
    a.kv_lora_rank = r.positive("kv_lora_rank");
    a.qk_nope_head_dim = r.positive("qk_nope_head_dim");
    a.qk_rope_head_dim = r.positive("qk_rope_head_dim");
    a.v_head_dim = r.positive("v_head_dim");
    a.head_dim = a.qk_nope_head_dim + a.qk_rope_head_dim;
    a.rotary_dim = a.qk_rope_head_dim;
    a.qkv_bias = a.o_bias = r.boolean_or("attention_bias", false);
  } else {
    read_heads(r, m, "num_attention_heads", "num_key_value_heads", 0);
    const double partial = r.number_or("partial_rotary_factor", 1.0, 0.0, 1.0);
    a.rotary_dim = static_cast<std::int64_t>(static_cast<double>(a.head_dim) * partial);
    if (t == "qwen2" || t == "qwen2_moe") {
      a.qkv_bias = true;  // Qwen2 always has q/k/v biases and no o bias
    } else if (t == "llama" || t == "qwen3" || t == "qwen3_moe" || gemma) {
      a.qkv_bias = a.o_bias = r.boolean_or("attention_bias", false);
    }
    a.qk_norm = t == "qwen3" || t == "qwen3_moe";
  }
  if (t == "llama") m.mlp.bias = r.boolean_or("mlp_bias", false);

  // MoE layout.
  moe_spec& e = m.moe;
  std::vector<bool> is_moe(static_cast<std::size_t>(m.num_layers), false);
  if (t == "mixtral") {
    e.num_experts = r.positive("num_local_experts");
    e.experts_per_token = r.positive("num_experts_per_tok");
    e.expert_intermediate_size = r.positive("intermediate_size");
    std::fill(is_moe.begin(), is_moe.end(), true);
  } else if (qwen_moe) {
    e.num_experts = r.non_negative_or("num_experts", 0);
    if (e.num_experts > 0) {
      e.experts_per_token = r.positive("num_experts_per_tok");
      e.expert_intermediate_size = r.positive("moe_intermediate_size");
      if (t == "qwen2_moe") {
        e.shared_intermediate_size = r.non_negative_or("shared_expert_intermediate_size", 0);
        e.shared_expert_gate = e.shared_intermediate_size > 0;
      }
      const std::int64_t step = r.positive_or("decoder_sparse_step", 1);
      const std::vector<std::int64_t> dense_only = r.int_list_or_empty("mlp_only_layers");
      for (std::int64_t i = 0; i < m.num_layers; ++i)
        is_moe[static_cast<std::size_t>(i)] =
            (i + 1) % step == 0 && std::find(dense_only.begin(), dense_only.end(), i) == dense_only.end();
    }
  } else if (deepseek) {
    e.num_experts = r.non_negative_or("n_routed_experts", 0);
    if (e.num_experts > 0) {
      e.experts_per_token = r.positive("num_experts_per_tok");
      e.expert_intermediate_size = r.positive("moe_intermediate_size");
      e.shared_intermediate_size = detail::mul(r.non_negative_or("n_shared_experts", 0), e.expert_intermediate_size);
      e.router_bias = t == "deepseek_v3";
      const std::int64_t first_dense = r.non_negative_or("first_k_dense_replace", 0);
      const std::int64_t freq = r.positive_or("moe_layer_freq", 1);
      for (std::int64_t i = 0; i < m.num_layers; ++i)
        is_moe[static_cast<std::size_t>(i)] = i >= first_dense && i % freq == 0;
    }
  }
  if (e.num_experts > 0 && e.experts_per_token > e.num_experts)
    range_error(r, "num_experts_per_tok",
                "expected at most the number of experts (" + std::to_string(e.num_experts) + "), but got " +
                    std::to_string(e.experts_per_token));
  const bool any_dense = std::find(is_moe.begin(), is_moe.end(), false) != is_moe.end();
  if (any_dense) m.mlp.intermediate_size = r.positive("intermediate_size");

  // Sliding-window layout.
  std::vector<std::int64_t> window(static_cast<std::size_t>(m.num_layers), 0);
  std::int64_t w = 0;
  if (t == "qwen2" || t == "qwen2_moe" || t == "qwen3" || t == "qwen3_moe") {
    if (r.boolean_or("use_sliding_window", false)) w = r.non_negative_or("sliding_window", 0);
  } else if (t == "mistral" || t == "mixtral" || t == "phi3" || t == "gemma2") {
    w = r.non_negative_or("sliding_window", 0);
  }
  if (w > 0) {
    const std::vector<std::string> kinds = window_layer_kinds(r, m.num_layers);
    const std::int64_t max_window_layers = r.non_negative_or("max_window_layers", 0);
    for (std::int64_t i = 0; i < m.num_layers; ++i) {
      bool sliding = true;
      if (!kinds.empty())
        sliding = kinds[static_cast<std::size_t>(i)] == "sliding_attention";
      else if (t == "gemma2")
        sliding = i % 2 == 0;
      else if (t.rfind("qwen", 0) == 0)
        sliding = i >= max_window_layers;
      window[static_cast<std::size_t>(i)] = sliding ? w : 0;
    }
  }

  std::vector<layer_desc> layers(static_cast<std::size_t>(m.num_layers));
  for (std::size_t i = 0; i < layers.size(); ++i) {
    layers[i].moe = is_moe[i];
    layers[i].window = window[i];
  }
  set_layers(m, layers);
}

// Sizes shared by the single-stack families with plain multi-head attention (GPT-2, NeoX,
// OPT, BLOOM, BERT): no rotary unless the family sets it, LayerNorm.
void read_mha_stack(const reader& r, model_spec& m, architecture arch, std::string_view hidden, std::string_view layers,
                    std::string_view heads) {
  m.arch = arch;
  m.hidden_size = r.positive(hidden);
  m.num_layers = r.positive(layers);
  m.vocab_size = r.positive("vocab_size");
  read_heads(r, m, heads, "__none__", 0);
  m.attention.rotary_dim = 0;
  m.norm = norm_kind::layernorm;
}

// Every layer alike (encoder layers for encoder-only models).
void uniform_layers(model_spec& m) {
  layer_desc d;
  d.encoder = m.arch == architecture::encoder;
  set_layers(m, std::vector<layer_desc>(static_cast<std::size_t>(m.num_layers), d));
}

void read_falcon(const reader& r, model_spec& m) {
  m.arch = architecture::decoder;
  m.hidden_size = r.positive(r.pick({"hidden_size", "n_embed"}));
  m.num_layers = r.positive(r.pick({"num_hidden_layers", "n_layer"}));
  m.vocab_size = r.positive("vocab_size");
  const bool new_arch = m.model_type == "RefinedWeb" || r.boolean_or("new_decoder_architecture", false);
  const bool multi_query = r.boolean_or("multi_query", true);
  const std::string_view heads = r.pick({"num_attention_heads", "n_head"});
  const std::string_view kv = r.pick({"num_kv_heads", "n_head_kv"});
  std::int64_t kv_default = 0;
  if (!new_arch) kv_default = multi_query ? 1 : 0;
  if (new_arch || !multi_query)
    read_heads(r, m, heads, kv, kv_default);
  else {
    // Falcon-7B style multi-query: one shared K/V head whatever num_kv_heads says.
    read_heads(r, m, heads, "__none__", 1);
  }
  const bool alibi = r.boolean_or("alibi", false);
  m.position = alibi ? position_kind::alibi : position_kind::rotary;
  if (alibi) m.attention.rotary_dim = 0;
  const bool bias = r.boolean_or("bias", false);
  m.attention.qkv_bias = m.attention.o_bias = bias;
  m.mlp.bias = bias;
  m.mlp.gated = false;
  m.mlp.activation = r.string_or("activation", "gelu");
  m.mlp.intermediate_size = r.positive_or("ffn_hidden_size", 4 * m.hidden_size);
  m.parallel_attention = r.boolean_or("parallel_attn", true);
  m.norm = norm_kind::layernorm;
  if (new_arch)
    m.norms_per_layer = r.positive_or("num_ln_in_parallel_attn", 2) == 1 ? 1 : 2;
  else
    m.norms_per_layer = m.parallel_attention ? 1 : 2;
  m.tie_word_embeddings = r.boolean_or("tie_word_embeddings", true);
  m.max_position_embeddings = r.non_negative_or("max_position_embeddings", 0);
  uniform_layers(m);
}

void read_gpt2(const reader& r, model_spec& m) {
  read_mha_stack(r, m, architecture::decoder, "n_embd", "n_layer", "n_head");
  m.attention.qkv_bias = m.attention.o_bias = true;
  m.mlp.intermediate_size = r.positive_or("n_inner", 4 * m.hidden_size);
  m.mlp.bias = true;
  m.mlp.activation = r.string_or("activation_function", "gelu_new");
  m.position = position_kind::learned;
  m.learned_positions = r.positive_or("n_positions", 1024);
  m.max_position_embeddings = m.learned_positions;
  m.tie_word_embeddings = r.boolean_or("tie_word_embeddings", true);
  uniform_layers(m);
}

void read_gpt_neox(const reader& r, model_spec& m) {
  read_mha_stack(r, m, architecture::decoder, "hidden_size", "num_hidden_layers", "num_attention_heads");
  const double pct = r.number_or("rotary_pct", 0.25, 0.0, 1.0);
  m.attention.rotary_dim = static_cast<std::int64_t>(static_cast<double>(m.attention.head_dim) * pct);
  m.attention.qkv_bias = m.attention.o_bias = r.boolean_or("attention_bias", true);
  m.mlp.intermediate_size = r.positive("intermediate_size");
  m.mlp.bias = true;
  m.mlp.activation = r.string_or("hidden_act", "gelu");
  m.parallel_attention = r.boolean_or("use_parallel_residual", true);
  m.tie_word_embeddings = r.boolean_or("tie_word_embeddings", false);
  m.max_position_embeddings = r.non_negative_or("max_position_embeddings", 0);
  uniform_layers(m);
}

void read_opt(const reader& r, model_spec& m) {
  read_mha_stack(r, m, architecture::decoder, "hidden_size", "num_hidden_layers", "num_attention_heads");
  const bool bias = r.boolean_or("enable_bias", true);
  m.attention.qkv_bias = m.attention.o_bias = bias;
  m.mlp.bias = bias;
  m.mlp.intermediate_size = r.positive("ffn_dim");
  m.mlp.activation = r.string_or("activation_function", "relu");
  if (!r.boolean_or("layer_norm_elementwise_affine", true))
    range_error(r, "layer_norm_elementwise_affine",
                "expected true (LayerNorm without weights is not supported), but got false");
  m.final_norm = r.boolean_or("do_layer_norm_before", true) && !r.boolean_or("_remove_final_layer_norm", false);
  m.position = position_kind::learned;
  m.max_position_embeddings = r.positive("max_position_embeddings");
  m.learned_positions = m.max_position_embeddings + 2;  // OPT offsets positions by 2
  const std::int64_t proj = r.positive_or("word_embed_proj_dim", m.hidden_size);
  m.embed_proj_dim = proj == m.hidden_size ? 0 : proj;
  m.tie_word_embeddings = r.boolean_or("tie_word_embeddings", true);
  uniform_layers(m);
}

void read_bloom(const reader& r, model_spec& m) {
  read_mha_stack(r, m, architecture::decoder, r.pick({"hidden_size", "n_embed"}),
                 r.pick({"n_layer", "num_hidden_layers"}), r.pick({"n_head", "num_attention_heads"}));
  m.attention.qkv_bias = m.attention.o_bias = true;
  m.mlp.intermediate_size = 4 * m.hidden_size;
  m.mlp.bias = true;
  m.mlp.activation = "bloom_gelu";
  m.embedding_norm = true;
  m.position = position_kind::alibi;
  m.tie_word_embeddings = r.boolean_or("tie_word_embeddings", true);
  uniform_layers(m);
}

void read_bert(const reader& r, model_spec& m) {
  read_mha_stack(r, m, architecture::encoder, "hidden_size", "num_hidden_layers", "num_attention_heads");
  m.attention.qkv_bias = m.attention.o_bias = true;
  const std::string pos = r.string_or("position_embedding_type", "absolute");
  if (pos != "absolute")
    range_error(r, "position_embedding_type",
                "expected \"absolute\" (relative_key variants are not supported), but got \"" + pos + "\"");
  m.mlp.intermediate_size = r.positive("intermediate_size");
  m.mlp.bias = true;
  m.mlp.activation = r.string_or("hidden_act", "gelu");
  m.embedding_norm = true;
  m.final_norm = false;  // post-norm: every layer ends with its own LayerNorm
  m.position = position_kind::learned;
  m.max_position_embeddings = r.positive("max_position_embeddings");
  m.learned_positions = m.max_position_embeddings;
  m.token_type_vocab = r.non_negative_or("type_vocab_size", 2);
  m.lm_head = false;
  m.pooler = true;
  uniform_layers(m);
}

void read_t5(const reader& r, model_spec& m) {
  m.arch = architecture::encoder_decoder;
  m.hidden_size = r.positive("d_model");
  m.vocab_size = r.positive("vocab_size");
  m.num_encoder_layers = r.positive("num_layers");
  m.num_layers = r.positive_or("num_decoder_layers", m.num_encoder_layers);
  attention_spec& a = m.attention;
  a.num_heads = a.num_kv_heads = r.positive("num_heads");
  a.head_dim = a.v_head_dim = r.positive("d_kv");
  a.rotary_dim = 0;
  const std::string ff = r.string_or("feed_forward_proj", "relu");
  m.mlp.gated = ff.rfind("gated-", 0) == 0;
  m.mlp.activation = m.mlp.gated ? ff.substr(6) : ff;
  if (m.mlp.activation.empty())
    range_error(r, "feed_forward_proj", "expected \"relu\", \"gelu\" or \"gated-<act>\", but got \"" + ff + "\"");
  m.mlp.intermediate_size = r.positive("d_ff");
  m.norm = norm_kind::rmsnorm;  // T5LayerNorm: scale only, no mean subtraction
  m.position = position_kind::relative_bias;
  m.relative_buckets = r.positive_or("relative_attention_num_buckets", 32);
  m.tie_word_embeddings = r.boolean_or("tie_word_embeddings", true);
  std::vector<layer_desc> layers(static_cast<std::size_t>(m.num_encoder_layers + m.num_layers));
  for (std::size_t i = 0; i < layers.size(); ++i) {
    if (static_cast<std::int64_t>(i) < m.num_encoder_layers)
      layers[i].encoder = true;
    else
      layers[i].cross = true;
  }
  set_layers(m, layers);
}

using family_reader = void (*)(const reader&, model_spec&);
const std::vector<std::pair<std::string, family_reader>>& families() {
  static const std::vector<std::pair<std::string, family_reader>> k = {
      {"llama", read_llama_family},
      {"mistral", read_llama_family},
      {"mixtral", read_llama_family},
      {"qwen2", read_llama_family},
      {"qwen2_moe", read_llama_family},
      {"qwen3", read_llama_family},
      {"qwen3_moe", read_llama_family},
      {"gemma", read_llama_family},
      {"gemma2", read_llama_family},
      {"phi3", read_llama_family},
      {"deepseek_v2", read_llama_family},
      {"deepseek_v3", read_llama_family},
      {"falcon", read_falcon},
      {"RefinedWeb", read_falcon},
      {"RefinedWebModel", read_falcon},
      {"gpt2", read_gpt2},
      {"gpt_neox", read_gpt_neox},
      {"opt", read_opt},
      {"bloom", read_bloom},
      {"bert", read_bert},
      {"roberta", read_bert},
      {"t5", read_t5},
  };
  return k;
}

json parse_object(std::string_view text, const char* what) {
  json j;
  try {
    j = json::parse(text.begin(), text.end());
  } catch (const json::parse_error& e) {
    // nlohmann's message carries line and column.
    std::string msg = e.what();
    const auto pos = msg.find("] ");
    throw error(error_code::config_parse, "",
                std::string(what) + " is not valid JSON: " + (pos == std::string::npos ? msg : msg.substr(pos + 2)));
  }
  if (!j.is_object())
    throw error(error_code::config_type, "",
                std::string("expected ") + what + " to be a JSON object, but got " + describe(j));
  return j;
}

}  // namespace

const std::vector<std::string>& supported_model_types() {
  static const std::vector<std::string> k = [] {
    std::vector<std::string> out;
    for (const auto& f : families()) out.push_back(f.first);
    return out;
  }();
  return k;
}

model_spec read_hf_config(std::string_view json_text, std::string name) {
  const json j = parse_object(json_text, "config.json");
  const reader r(j);
  model_spec m;
  if (!r.has("model_type")) {
    std::string list;
    for (const auto& t : supported_model_types()) list += (list.empty() ? "" : ", ") + t;
    throw error(error_code::config_missing, "/model_type", "required field is missing: expected one of " + list);
  }
  m.model_type = r.string_or("model_type", "");
  auto it = std::find_if(families().begin(), families().end(), [&](const auto& f) { return f.first == m.model_type; });
  if (it == families().end()) {
    std::string list;
    for (const auto& t : supported_model_types()) list += (list.empty() ? "" : ", ") + t;
    throw error(error_code::unsupported_model, "/model_type",
                "unsupported model_type \"" + m.model_type + "\": supported are " + list);
  }
  if (name.empty()) name = r.string_or("_name_or_path", "");
  m.name = name.empty() ? m.model_type : name;
  it->second(r, m);
  return m;
}

hardware_spec read_hardware(std::string_view json_text) {
  const json j = parse_object(json_text, "the GPU description");
  const reader r(j);
  hardware_spec h;
  h.name = r.string_or("name", "");
  if (h.name.empty())
    throw error(error_code::config_missing, "/name", "required field is missing: expected a non-empty string");
  if (r.has("aliases")) h.aliases = r.string_list_or_empty("aliases");
  h.vendor = r.string_or("vendor", "");
  constexpr double big = 1e30;
  auto positive_number = [&](std::string_view key) {
    if (!r.has(key))
      throw error(error_code::config_missing, r.ptr(key), "required field is missing: expected a positive number");
    const double v = r.number_or(key, 0, -big, big);
    if (!(v > 0))
      throw error(error_code::config_range, r.ptr(key),
                  "expected a positive number, but got " + j.at(std::string(key)).dump());
    return v;
  };
  h.memory_bytes = positive_number("memory_bytes");
  h.memory_bandwidth_bytes_per_s = positive_number("memory_bandwidth_bytes_per_s");
  h.tdp_watts = positive_number("tdp_watts");
  h.cost_per_hour_usd = r.number_or("cost_per_hour_usd", 0, 0, big);
  if (!r.has("peak_flops"))
    throw error(
        error_code::config_missing, "/peak_flops",
        "required field is missing: expected an object of dense peak FLOP/s by precision, e.g. {\"bf16\": 989e12}");
  const json& peaks = j.at("peak_flops");
  if (!peaks.is_object())
    throw error(error_code::config_type, "/peak_flops",
                "expected an object of dense peak FLOP/s by precision, but got " + describe(peaks));
  for (auto it = peaks.begin(); it != peaks.end(); ++it) {
    const precision p = parse_precision(it.key(), "/peak_flops/" + it.key());
    const reader pr(peaks, "/peak_flops");
    const double v = pr.number_or(it.key(), 0, 0, big);
    if (!(v > 0))
      throw error(error_code::config_range, "/peak_flops/" + it.key(),
                  "expected a positive number, but got " + it.value().dump());
    h.peak_flops_per_s[static_cast<std::size_t>(p)] = v;
  }
  bool any = false;
  for (const auto& p : h.peak_flops_per_s) any = any || p.has_value();
  if (!any) throw error(error_code::config_range, "/peak_flops", "expected at least one precision");
  if (r.has("interconnect")) {
    const json& ic = j.at("interconnect");
    if (!ic.is_object())
      throw error(error_code::config_type, "/interconnect",
                  "expected an object {name, bandwidth_bytes_per_s}, but got " + describe(ic));
    const reader ir(ic, "/interconnect");
    h.interconnect_name = ir.string_or("name", "");
    h.interconnect_bandwidth_bytes_per_s = ir.number_or("bandwidth_bytes_per_s", 0, 0, big);
  }
  if (r.has("sources")) {
    const json& s = j.at("sources");
    if (s.is_object())
      for (auto it = s.begin(); it != s.end(); ++it)
        if (it.value().is_string()) h.source_note += it.key() + ": " + it.value().get<std::string>() + "\n";
  }
  return h;
}

compare_request read_compare_request(std::string_view json_text, bool allow_lists) {
  const json j = parse_object(json_text, "the request");
  const reader r(j);
  static const char* const known[] = {"model",
                                      "batch_size",
                                      "sequence_length",
                                      "num_generated_tokens",
                                      "precision",
                                      "kv_cache_precision",
                                      "gpu",
                                      "training",
                                      "optimizer",
                                      "gradient_checkpointing",
                                      "causal",
                                      "flash_attention",
                                      "compute_efficiency",
                                      "mem_efficiency",
                                      "power_utilization",
                                      "carbon_intensity",
                                      "cost_per_hour",
                                      "parallelism",
                                      "calibration"};
  for (auto it = j.begin(); it != j.end(); ++it)
    if (std::find(std::begin(known), std::end(known), it.key()) == std::end(known))
      throw error(error_code::invalid_argument, "/" + it.key(),
                  "unknown request field: expected one of model, batch_size, sequence_length, num_generated_tokens, "
                  "precision, kv_cache_precision, gpu, training, optimizer, gradient_checkpointing, causal, "
                  "flash_attention, compute_efficiency, mem_efficiency, power_utilization, carbon_intensity, "
                  "cost_per_hour, parallelism, calibration");
  compare_request q;
  compare_plan& plan = q.plan;
  settings& s = plan.base;

  // Calls read(value, pointer) for a scalar, or for each element of an array when lists are allowed.
  const auto each = [&](const char* key, auto&& read) {
    const json& v = j.at(key);
    const std::string ptr = std::string("/") + key;
    if (v.is_array() && allow_lists) {
      if (v.empty()) throw error(error_code::invalid_argument, ptr, "expected a non-empty list");
      for (std::size_t i = 0; i < v.size(); ++i) read(v[i], ptr + "/" + std::to_string(i));
    } else {
      read(v, ptr);
    }
  };
  // Errors from a nested config or GPU object are re-anchored under `base`; errors of a
  // name lookup take the pointer of the name.
  const auto nested = [](const std::string& base, auto&& fn) {
    try {
      return fn();
    } catch (const error& e) {
      throw error(e.code(), base + e.pointer(), e.message());
    }
  };
  const auto named = [](const std::string& ptr, auto&& fn) -> decltype(auto) {
    try {
      return fn();
    } catch (const error& e) {
      throw error(e.code(), ptr, e.message());
    }
  };

  if (!r.has("model"))
    throw error(error_code::config_missing, "/model",
                "required field is missing: expected a model name or a config.json object");
  each("model", [&](const json& v, const std::string& ptr) {
    if (v.is_string()) {
      plan.models.push_back(&named(ptr, [&]() -> const model_spec& { return find_model(v.get<std::string>()).spec; }));
    } else if (v.is_object()) {
      q.inline_models.push_back(nested(ptr, [&] { return read_hf_config(v.dump()); }));
      plan.models.push_back(&q.inline_models.back());
    } else {
      throw error(error_code::config_type, ptr,
                  "expected a model name or a config.json object, but got " + describe(v));
    }
  });

  constexpr std::int64_t max_size = std::int64_t{1} << 40;
  const auto sizes = [&](const char* key, std::int64_t fallback, std::int64_t min, std::vector<std::int64_t>& out) {
    if (!r.has(key)) {
      out.push_back(fallback);
      return;
    }
    each(key, [&](const json& v, const std::string& ptr) {
      out.push_back(
          to_integer(v, ptr, min, max_size,
                     min == 0 ? "a non-negative integer (at most 2^40)" : "a positive integer (at most 2^40)"));
    });
  };
  sizes("batch_size", s.batch_size, 1, plan.batch_sizes);
  sizes("sequence_length", s.sequence_length, 1, plan.sequence_lengths);
  sizes("num_generated_tokens", s.num_generated_tokens, 0, plan.generated_tokens);

  const auto text = [&](const json& v, const std::string& ptr, const char* expected) {
    if (!v.is_string())
      throw error(error_code::config_type, ptr, std::string("expected ") + expected + ", but got " + describe(v));
    return v.get<std::string>();
  };
  if (r.has("precision")) {
    each("precision", [&](const json& v, const std::string& ptr) {
      plan.precisions.push_back(parse_precision(text(v, ptr, "a precision name"), ptr));
    });
  } else {
    plan.precisions.push_back(s.weight_precision);
  }
  if (r.has("kv_cache_precision"))
    s.kv_cache_precision = parse_precision(text(j.at("kv_cache_precision"), "/kv_cache_precision", "a precision name"),
                                           "/kv_cache_precision");
  s.training = r.boolean_or("training", s.training);
  if (r.has("optimizer"))
    s.optim = parse_optimizer(text(j.at("optimizer"), "/optimizer", "an optimizer name"), "/optimizer");
  s.gradient_checkpointing = r.boolean_or("gradient_checkpointing", s.gradient_checkpointing);
  s.causal = r.boolean_or("causal", s.causal);
  s.flash_attention = r.boolean_or("flash_attention", s.flash_attention);
  const auto fraction = [&](const char* key, double fallback) {
    if (!r.has(key)) return fallback;
    const double v = r.number_or(key, fallback, -1e300, 1e300);
    if (!(v > 0 && v <= 1))
      throw error(error_code::invalid_argument, r.ptr(key), "expected a number in (0, 1], but got " + j.at(key).dump());
    return v;
  };
  if (r.has("compute_efficiency")) {
    s.compute_efficiency = fraction("compute_efficiency", s.compute_efficiency);
    s.compute_efficiency_origin = efficiency_origin::explicit_value;
  }
  if (r.has("mem_efficiency")) {
    s.mem_efficiency = fraction("mem_efficiency", s.mem_efficiency);
    s.mem_efficiency_origin = efficiency_origin::explicit_value;
  }
  if (r.has("parallelism")) {
    const json& pj = j.at("parallelism");
    if (!pj.is_object())
      throw error(error_code::config_type, "/parallelism",
                  "expected an object {tensor_parallel, pipeline_parallel, ...}, but got " + describe(pj));
    static const char* const layout_keys[] = {"tensor_parallel",
                                              "pipeline_parallel",
                                              "data_parallel",
                                              "expert_parallel",
                                              "sequence_parallel",
                                              "num_microbatches",
                                              "interconnect_bandwidth_bytes_per_s",
                                              "link_latency_s"};
    for (auto it = pj.begin(); it != pj.end(); ++it)
      if (std::find(std::begin(layout_keys), std::end(layout_keys), it.key()) == std::end(layout_keys))
        throw error(
            error_code::invalid_argument, "/parallelism/" + it.key(),
            "unknown field: expected one of tensor_parallel, pipeline_parallel, data_parallel, expert_parallel, "
            "sequence_parallel, num_microbatches, interconnect_bandwidth_bytes_per_s, link_latency_s");
    const reader pr(pj, "/parallelism");
    parallel_layout& l = s.parallel;
    const auto ranks = [&](const char* key, std::int64_t fallback) {
      return pr.has(key) ? pr.integer(key, 1, 65536, "an integer in [1, 65536]") : fallback;
    };
    l.tensor_parallel = ranks("tensor_parallel", 1);
    l.pipeline_parallel = ranks("pipeline_parallel", 1);
    l.data_parallel = ranks("data_parallel", 1);
    l.expert_parallel = ranks("expert_parallel", 1);
    l.num_microbatches = ranks("num_microbatches", 1);
    l.sequence_parallel = pr.boolean_or("sequence_parallel", false);
    if (pr.has("interconnect_bandwidth_bytes_per_s")) {
      const double bw = pr.number_or("interconnect_bandwidth_bytes_per_s", 0, -1e300, 1e300);
      if (!(bw > 0))
        throw error(error_code::invalid_argument, "/parallelism/interconnect_bandwidth_bytes_per_s",
                    "expected a positive number of bytes/s, but got " + detail::format_number(bw));
      l.interconnect_bandwidth_bytes_per_s = bw;
    }
    l.link_latency_s = pr.number_or("link_latency_s", l.link_latency_s, 0, 0.999);
  }
  if (r.has("calibration")) {
    try {
      plan.calibrations = read_calibration(j.at("calibration").dump());
    } catch (const error& e) {
      throw error(e.code(), "/calibration" + e.pointer(), e.message());
    }
  }
  s.power_utilization = fraction("power_utilization", s.power_utilization);
  if (r.has("carbon_intensity")) s.carbon_intensity_g_per_kwh = r.number_or("carbon_intensity", 0, 0, 1e6);
  if (r.has("cost_per_hour")) s.cost_per_hour_usd = r.number_or("cost_per_hour", 0, 0, 1e9);

  if (!j.contains("gpu")) {
    plan.gpus.push_back(&find_gpu("A100"));
  } else {
    each("gpu", [&](const json& v, const std::string& ptr) {
      if (v.is_null() || (v.is_string() && v.get<std::string>() == "none")) {
        plan.gpus.push_back(nullptr);
      } else if (v.is_string()) {
        plan.gpus.push_back(&named(ptr, [&]() -> const hardware_spec& { return find_gpu(v.get<std::string>()); }));
      } else if (v.is_object()) {
        q.inline_gpus.push_back(nested(ptr, [&] { return read_hardware(v.dump()); }));
        plan.gpus.push_back(&q.inline_gpus.back());
      } else {
        throw error(error_code::config_type, ptr, "expected a GPU name, a GPU object or null, but got " + describe(v));
      }
    });
  }
  s.batch_size = plan.batch_sizes.front();
  s.sequence_length = plan.sequence_lengths.front();
  s.num_generated_tokens = plan.generated_tokens.front();
  s.weight_precision = plan.precisions.front();
  validate(s);
  return q;
}

namespace {
// Splits `key` off a request object: returns the rest as text, the part in `part`.
std::string take_part(std::string_view json_text, const char* key, json& part) {
  json j = parse_object(json_text, "the request");
  if (j.contains(key)) {
    part = j.at(key);
    j.erase(key);
  }
  return j.dump();
}
}  // namespace

serving_request read_serving_request(std::string_view json_text) {
  json part = json::object();
  const std::string rest = take_part(json_text, "serving", part);
  serving_request q;
  q.request = read_compare_request(rest, false);
  if (!part.is_object())
    throw error(error_code::config_type, "/serving",
                "expected an object of serving settings, but got " + describe(part));
  static const char* const keys[] = {
      "prompt_tokens", "output_tokens",          "concurrency", "gpu_memory_utilization", "paged",
      "block_size",    "chunked_prefill_tokens", "draft",       "speculative_tokens",     "acceptance_rate"};
  for (auto it = part.begin(); it != part.end(); ++it)
    if (std::find(std::begin(keys), std::end(keys), it.key()) == std::end(keys))
      throw error(
          error_code::invalid_argument, "/serving/" + it.key(),
          "unknown field: expected one of prompt_tokens, output_tokens, concurrency, gpu_memory_utilization, paged, "
          "block_size, chunked_prefill_tokens, draft, speculative_tokens, acceptance_rate");
  const reader r(part, "/serving");
  serving_settings& s = q.serving;
  const compare_plan::point p = q.request.plan.at(0);
  s.base = p.config;
  constexpr std::int64_t big = std::int64_t{1} << 30;
  if (r.has("prompt_tokens")) s.prompt_tokens = r.integer("prompt_tokens", 1, big, "a positive integer (at most 2^30)");
  if (r.has("output_tokens")) s.output_tokens = r.integer("output_tokens", 1, big, "a positive integer (at most 2^30)");
  if (r.has("concurrency")) s.concurrency = r.integer("concurrency", 1, big, "a positive integer (at most 2^30)");
  s.gpu_memory_utilization = r.number_or("gpu_memory_utilization", s.gpu_memory_utilization, -1e300, 1e300);
  s.paged = r.boolean_or("paged", s.paged);
  if (r.has("block_size")) s.block_size = r.integer("block_size", 1, 65536, "an integer in [1, 65536]");
  if (r.has("chunked_prefill_tokens"))
    s.chunked_prefill_tokens = r.integer("chunked_prefill_tokens", 0, big, "an integer in [0, 2^30]");
  if (r.has("draft")) {
    const json& d = part.at("draft");
    if (d.is_string()) {
      try {
        s.draft = &find_model(d.get<std::string>()).spec;
      } catch (const error& e) {
        throw error(e.code(), "/serving/draft", e.message());
      }
    } else if (d.is_object()) {
      try {
        q.drafts.push_back(read_hf_config(d.dump()));
      } catch (const error& e) {
        throw error(e.code(), "/serving/draft" + e.pointer(), e.message());
      }
      s.draft = &q.drafts.back();
    } else {
      throw error(error_code::config_type, "/serving/draft",
                  "expected a model name or a config.json object, but got " + describe(d));
    }
    if (r.has("speculative_tokens"))
      s.speculative_tokens = r.integer("speculative_tokens", 1, 64, "an integer in [1, 64]");
    s.acceptance_rate = r.number_or("acceptance_rate", s.acceptance_rate, -1e300, 1e300);
  }
  return q;
}

training_request read_training_request(std::string_view json_text) {
  json part = json::object();
  const std::string rest = take_part(json_text, "training_analysis", part);
  training_request q;
  q.request = read_compare_request(rest, false);
  if (!part.is_object())
    throw error(error_code::config_type, "/training_analysis", "expected an object, but got " + describe(part));
  static const char* const keys[] = {"recompute", "gradient_clipping", "fused_optimizer", "tokens",        "mfu",
                                     "gpus",      "lora_rank",         "lora_targets",    "base_precision"};
  for (auto it = part.begin(); it != part.end(); ++it)
    if (std::find(std::begin(keys), std::end(keys), it.key()) == std::end(keys))
      throw error(
          error_code::invalid_argument, "/training_analysis/" + it.key(),
          "unknown field: expected one of recompute, gradient_clipping, fused_optimizer, tokens, mfu, gpus, lora_rank, "
          "lora_targets, base_precision");
  const reader r(part, "/training_analysis");
  training_settings& t = q.training;
  t.base = q.request.plan.at(0).config;
  t.base.training = true;
  if (r.has("recompute"))
    t.recompute = parse_recompute_policy(r.string_or("recompute", ""), "/training_analysis/recompute");
  t.gradient_clipping = r.boolean_or("gradient_clipping", t.gradient_clipping);
  t.fused_optimizer = r.boolean_or("fused_optimizer", t.fused_optimizer);
  if (r.has("tokens")) t.tokens = r.number_or("tokens", 0, -1e300, 1e300);
  if (r.has("mfu")) t.mfu = r.number_or("mfu", 0, -1e300, 1e300);
  if (r.has("gpus")) t.gpus = r.integer("gpus", 1, 1 << 24, "a positive integer");
  if (r.has("lora_rank")) t.lora.rank = r.integer("lora_rank", 0, 1 << 20, "a non-negative integer");
  if (r.has("lora_targets"))
    t.lora.targets = parse_lora_targets(r.string_or("lora_targets", ""), "/training_analysis/lora_targets");
  if (r.has("base_precision"))
    t.lora.base_precision = parse_precision(r.string_or("base_precision", ""), "/training_analysis/base_precision");
  return q;
}

calibration_request read_calibration_request(std::string_view json_text) {
  json part = json::object();
  json j = parse_object(json_text, "the request");
  calibration_request q;
  if (j.contains("all_models")) {
    if (!j.at("all_models").is_boolean())
      throw error(error_code::config_type, "/all_models",
                  "expected true or false, but got " + describe(j.at("all_models")));
    q.all_models = j.at("all_models").get<bool>();
    j.erase("all_models");
  }
  const std::string rest = take_part(j.dump(), "measured", part);
  q.request = read_compare_request(rest, false);
  if (!part.is_object() || part.empty())
    throw error(error_code::config_missing, "/measured",
                "expected {decode_tokens_per_second, time_to_first_token_s} with at least one measured figure");
  const reader r(part, "/measured");
  if (r.has("decode_tokens_per_second"))
    q.measured.decode_tokens_per_second = r.number_or("decode_tokens_per_second", 0, -1e300, 1e300);
  if (r.has("time_to_first_token_s"))
    q.measured.time_to_first_token_s = r.number_or("time_to_first_token_s", 0, -1e300, 1e300);
  return q;
}

std::vector<calibration_entry> read_calibration(std::string_view json_text, const std::string& where) {
  json j;
  try {
    j = json::parse(json_text.begin(), json_text.end());
  } catch (const json::parse_error& e) {
    std::string msg = e.what();
    const auto pos = msg.find("] ");
    throw error(error_code::config_parse, "",
                "the calibration store " + where +
                    " is not valid JSON: " + (pos == std::string::npos ? msg : msg.substr(pos + 2)));
  }
  const json* list = &j;
  std::string base;
  if (j.is_object()) {
    if (!j.contains("entries"))
      throw error(error_code::config_missing, "/entries",
                  "required field is missing: expected an array of calibration entries");
    list = &j.at("entries");
    base = "/entries";
  }
  if (!list->is_array())
    throw error(error_code::config_type, base, "expected an array of calibration entries, but got " + describe(*list));
  std::vector<calibration_entry> out;
  for (std::size_t i = 0; i < list->size(); ++i) {
    const json& item = (*list)[i];
    const std::string ptr = base + "/" + std::to_string(i);
    if (!item.is_object())
      throw error(error_code::config_type, ptr, "expected a calibration entry object, but got " + describe(item));
    const reader r(item, ptr);
    calibration_entry e;
    e.model = r.string_or("model", "*");
    e.gpu = r.string_or("gpu", "");
    if (e.gpu.empty())
      throw error(error_code::config_missing, ptr + "/gpu", "required field is missing: expected a GPU name");
    e.precision = r.string_or("precision", "*");
    if (e.precision != "*") e.precision = std::string(to_string(parse_precision(e.precision, ptr + "/precision")));
    for (const char* key : {"compute_efficiency", "mem_efficiency"}) {
      if (!r.has(key)) continue;
      const double v = r.number_or(key, 0, -1e300, 1e300);
      if (!(v > 0 && v <= 1))
        throw error(error_code::config_range, r.ptr(key),
                    "expected a number in (0, 1], but got " + item.at(key).dump());
      (std::string(key) == "compute_efficiency" ? e.compute_efficiency : e.mem_efficiency) = v;
    }
    e.source = r.string_or("source", "");
    out.push_back(std::move(e));
  }
  return out;
}

}  // namespace flopcast
