// Config readers for OLMo 2, StarCoder2, Phi (Phi-1/1.5/2) and Gemma 3 (text), registered in
// families() in hf_config.cpp. Each starts from read_llama_family and sets what differs.
#include <string>
#include <vector>

#include "base/detail.hpp"
#include "base/json_reader.hpp"
#include "model/hf_common.hpp"

namespace flopcast::detail {

// olmo2: Llama shapes, but the norms come after attention and after the MLP (still two
// per layer, no input norm) and q/k RMSNorms span the full projection width.
void read_olmo2(const reader& r, model_spec& m) {
  read_llama_family(r, m);
  m.attention.qkv_bias = m.attention.o_bias = r.boolean_or("attention_bias", false);
  m.attention.qk_norm = true;
  m.attention.qk_norm_full_width = true;
  m.norms_per_layer = 2;  // post_attention_layernorm, post_feedforward_layernorm
}

// starcoder2: LayerNorm with bias, biases on every projection (use_bias), a plain
// c_fc -> gelu -> c_proj MLP, GQA and a sliding window on every layer.
void read_starcoder2(const reader& r, model_spec& m) {
  read_llama_family(r, m);
  const bool bias = r.boolean_or("use_bias", true);
  m.norm = norm_kind::layernorm;
  m.attention.qkv_bias = m.attention.o_bias = bias;
  m.mlp.gated = false;
  m.mlp.bias = bias;
  m.mlp.activation = r.string_or("hidden_act", "gelu_pytorch_tanh");
  m.tie_word_embeddings = r.boolean_or("tie_word_embeddings", true);
  layer_desc d;
  d.window = r.non_negative_or("sliding_window", 0);
  set_layers(m, std::vector<layer_desc>(static_cast<std::size_t>(m.num_layers), d));
}

// phi (Phi-1, Phi-1.5, Phi-2): attention and MLP in parallel after one LayerNorm per layer,
// partial rotary, biases everywhere, a plain fc1 -> gelu -> fc2 MLP, an untied LM head
// with a bias.
void read_phi(const reader& r, model_spec& m) {
  if (r.boolean_or("qk_layernorm", false))
    range_error(r, "qk_layernorm", "expected false (Phi's q/k LayerNorms are not supported), but got true");
  read_llama_family(r, m);
  m.norm = norm_kind::layernorm;
  m.norms_per_layer = 1;  // input_layernorm, shared by attention and MLP
  m.parallel_attention = true;
  m.attention.qkv_bias = m.attention.o_bias = true;
  m.mlp.gated = false;
  m.mlp.bias = true;
  m.mlp.activation = r.string_or("hidden_act", "gelu_new");
  m.tie_word_embeddings = r.boolean_or("tie_word_embeddings", false);
  m.lm_head_bias = true;
}

namespace {

// Gemma3TextConfig's defaults: the text_config of a multimodal Gemma 3 checkpoint
// (gemma-3-4b/12b/27b) leaves most sizes at these.
json with_gemma3_defaults(const json& j) {
  json out = j;
  const std::pair<const char*, json> defaults[] = {
      {"vocab_size", 262208},      {"hidden_size", 2304},
      {"intermediate_size", 9216}, {"num_hidden_layers", 26},
      {"num_attention_heads", 8},  {"num_key_value_heads", 4},
      {"head_dim", 256},           {"max_position_embeddings", 131072},
      {"sliding_window", 4096},
  };
  for (const auto& [key, value] : defaults)
    if (!out.contains(key)) out[key] = value;
  return out;
}

}  // namespace

// gemma3_text: Gemma 2's four norms per layer, per-head q/k RMSNorms, tied embeddings,
// and sliding_window_pattern - 1 sliding layers before each global one (5:1), or
// layer_types when given.
void read_gemma3_text(const reader& outer, model_spec& m) {
  const json merged = with_gemma3_defaults(outer.value());
  const reader r(merged, outer.base());
  read_llama_family(r, m);
  m.norms_per_layer = 4;
  m.scale_embeddings = true;
  m.tie_word_embeddings = r.boolean_or("tie_word_embeddings", true);
  m.mlp.activation = r.string_or(r.pick({"hidden_activation", "hidden_act"}), "gelu_pytorch_tanh");
  m.attention.qkv_bias = m.attention.o_bias = r.boolean_or("attention_bias", false);
  m.attention.qk_norm = true;

  const std::int64_t w = r.non_negative_or("sliding_window", 4096);
  const std::vector<std::string> kinds = window_layer_kinds(r, m.num_layers);
  const std::int64_t pattern = r.positive_or("sliding_window_pattern", 6);
  std::vector<layer_desc> layers(static_cast<std::size_t>(m.num_layers));
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const bool sliding =
        kinds.empty() ? (static_cast<std::int64_t>(i) + 1) % pattern != 0 : kinds[i] == "sliding_attention";
    layers[i].window = sliding ? w : 0;
  }
  set_layers(m, layers);
}

}  // namespace flopcast::detail
