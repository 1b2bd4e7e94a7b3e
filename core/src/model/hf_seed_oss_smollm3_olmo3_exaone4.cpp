// Config readers for Seed-OSS (seed_oss), SmolLM3 (smollm3), OLMo 3 (olmo3) and EXAONE 4.0
// (exaone4), registered in families() in hf_config.cpp. Each starts from read_llama_family (or
// read_olmo2) and sets what differs.
#include <string>
#include <vector>

#include "base/detail.hpp"
#include "base/json_reader.hpp"
#include "model/hf_common.hpp"

namespace flopcast::detail {

namespace {

// read_llama_family dispatches on model_type; these families are read as plain Llama first.
void seed_smol_olmo_exaone_as_llama(const reader& r, model_spec& m) {
  const std::string type = m.model_type;
  m.model_type = "llama";
  read_llama_family(r, m);
  m.model_type = type;
}

// "layer_types" when given, else `sliding(i)` per layer: the window of each layer (0: full).
std::vector<layer_desc> seed_smol_olmo_exaone_windows(const reader& r, const model_spec& m, std::int64_t window,
                                                      bool (*sliding)(std::int64_t, std::int64_t),
                                                      std::int64_t pattern) {
  const std::vector<std::string> kinds = window_layer_kinds(r, m.num_layers);
  std::vector<layer_desc> layers(static_cast<std::size_t>(m.num_layers));
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const bool slides =
        kinds.empty() ? sliding(static_cast<std::int64_t>(i), pattern) : kinds[i] == "sliding_attention";
    layers[i].window = slides && window > 0 ? window : 0;
  }
  return layers;
}

// sliding_window, `fallback` when absent (the family's config default); null means no window.
std::int64_t seed_smol_olmo_exaone_window(const reader& r, std::int64_t fallback) {
  const json& j = r.value();
  if (j.contains("sliding_window") && j.at("sliding_window").is_null()) return 0;
  return r.non_negative_or("sliding_window", fallback);
}

}  // namespace

// seed_oss (Seed-OSS-36B): Llama's layout; attention_bias puts biases on q, k and v,
// attention_out_bias on o, mlp_bias on the three MLP projections.
void read_seed_oss(const reader& r, model_spec& m) {
  seed_smol_olmo_exaone_as_llama(r, m);
  m.attention.qkv_bias = r.boolean_or("attention_bias", true);
  m.attention.o_bias = r.boolean_or("attention_out_bias", false);
  m.mlp.bias = r.boolean_or("mlp_bias", false);
  m.tie_word_embeddings = r.boolean_or("tie_word_embeddings", false);
}

// smollm3 (SmolLM3-3B): Llama's layout with tied embeddings; no_rope_layers (1: RoPE, 0: none;
// by default every no_rope_layer_interval-th layer has no positions) changes no weight. With
// use_sliding_window, the NoPE layers slide (SmolLM3Config), unless layer_types says otherwise.
void read_smollm3(const reader& r, model_spec& m) {
  seed_smol_olmo_exaone_as_llama(r, m);
  m.tie_word_embeddings = r.boolean_or("tie_word_embeddings", true);
  const std::int64_t interval = r.positive_or("no_rope_layer_interval", 4);
  std::vector<std::int64_t> rope = r.int_list_or_empty("no_rope_layers");
  if (rope.empty()) {
    for (std::int64_t i = 0; i < m.num_layers; ++i) rope.push_back((i + 1) % interval != 0 ? 1 : 0);
  }
  check_list_length(r, "no_rope_layers", rope.size(), m.num_layers);
  const std::int64_t window = r.boolean_or("use_sliding_window", false) ? r.non_negative_or("sliding_window", 0) : 0;
  const std::vector<std::string> kinds = window_layer_kinds(r, m.num_layers);
  std::vector<layer_desc> layers(static_cast<std::size_t>(m.num_layers));
  for (std::size_t i = 0; i < layers.size(); ++i) {
    layers[i].nope = rope[i] == 0;
    const bool slides = kinds.empty() ? layers[i].nope : kinds[i] == "sliding_attention";
    layers[i].window = slides ? window : 0;
  }
  set_layers(m, layers);
}

// olmo3 (OLMo 3 7B / 32B): OLMo 2's post-norms and full-width q/k RMSNorms, with three
// sliding-window layers before each full-attention one (layer_types).
void read_olmo3(const reader& r, model_spec& m) {
  read_olmo2(r, m);
  const std::int64_t window = seed_smol_olmo_exaone_window(r, 4096);
  set_layers(m, seed_smol_olmo_exaone_windows(
                    r, m, window, [](std::int64_t i, std::int64_t p) { return (i + 1) % p != 0; }, 4));
}

// exaone4 (EXAONE 4.0 32B / 1.2B): OLMo 2's post-norms (post_attention_layernorm,
// post_feedforward_layernorm) with per-head q/k RMSNorms. With a sliding_window, local layers
// follow sliding_window_pattern ("LLLG" or an interval: every pattern-th layer global) and the
// global layers have no positions; without one every layer is global with RoPE.
void read_exaone4(const reader& r, model_spec& m) {
  seed_smol_olmo_exaone_as_llama(r, m);
  m.attention.qkv_bias = m.attention.o_bias = false;
  m.attention.qk_norm = true;
  m.norms_per_layer = 2;
  m.tie_word_embeddings = r.boolean_or("tie_word_embeddings", false);
  const std::int64_t window = seed_smol_olmo_exaone_window(r, 4096);  // Exaone4Config's default
  std::string pattern;
  std::int64_t interval = 0;
  if (window > 0 && r.has("sliding_window_pattern")) {
    if (r.at("sliding_window_pattern").is_string()) {
      pattern = r.string_or("sliding_window_pattern", "");
      for (char c : pattern)
        if (c != 'L' && c != 'G')
          range_error(
              r, "sliding_window_pattern",
              "expected a string of \"L\" (local) and \"G\" (global), or an interval, but got \"" + pattern + "\"");
      if (pattern.empty())
        range_error(r, "sliding_window_pattern", "expected a non-empty string of \"L\" and \"G\", but got \"\"");
    } else {
      interval = r.positive("sliding_window_pattern");
    }
  } else if (window > 0) {
    interval = 4;
  }
  const std::vector<std::string> kinds = window_layer_kinds(r, m.num_layers);
  std::vector<layer_desc> layers(static_cast<std::size_t>(m.num_layers));
  for (std::size_t i = 0; i < layers.size(); ++i) {
    bool slides = false;
    if (!kinds.empty())
      slides = kinds[i] == "sliding_attention";
    else if (!pattern.empty())
      slides = pattern[i % pattern.size()] == 'L' && i + 1 != layers.size();  // the last layer is global
    else if (interval > 0)
      slides = (static_cast<std::int64_t>(i) + 1) % interval != 0;
    layers[i].window = slides ? window : 0;
    layers[i].nope = window > 0 && !slides;  // "global NoPE" of the hybrid models
  }
  set_layers(m, layers);
}

}  // namespace flopcast::detail
