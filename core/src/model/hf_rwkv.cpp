// Config readers for the RWKV recurrent families: rwkv6 (RWKV-6 "Finch", the Hugging Face
// Rwkv6ForCausalLM of RWKV/v6-Finch-*-HF and BBuf/RWKV-World-HF-Tokenizer's modeling_rwkv6.py) and
// rwkv7 (RWKV-7 "Goose", flash-linear-attention's RWKV7ForCausalLM of fla-hub/rwkv7-* and
// RWKV/RWKV7-Goose-*-HF). Every layer is a time mix (mixer_kind::rwkv) and a channel mix (the MLP:
// key h -> width, relu^2, value width -> h behind token-shift mixes, and in RWKV-6 a receptance
// gate); ln1/ln2 LayerNorms with bias, the first block's extra LayerNorm on the embeddings
// (pre_ln / pre_norm: flopcast's embedding_norm), a final LayerNorm and an untied head. No
// positions: RWKV has no context limit, so max_position_embeddings stays 0 (unknown).
// Registered in families() in hf_config.cpp. Parameter layouts as in llama.cpp's
// convert_hf_to_gguf.py (Rwkv6Model, Rwkv7Model) and src/models/rwkv6*.cpp, rwkv7*.cpp.
#include <cmath>
#include <string>
#include <vector>

#include "base/detail.hpp"
#include "base/json_reader.hpp"
#include "model/hf_common.hpp"

namespace flopcast::detail {

namespace {

std::string rwkv_str(std::int64_t v) { return std::to_string(v); }

// The sizes both versions share: hidden, layers, vocabulary, LayerNorms with bias, no attention.
void rwkv_common(const reader& r, model_spec& m) {
  m.arch = architecture::decoder;
  m.hidden_size = r.positive("hidden_size");
  m.num_layers = r.layers("num_hidden_layers");
  m.vocab_size = r.positive("vocab_size");
  m.max_position_embeddings = 0;
  m.attention = attention_spec{};
  m.position = position_kind::none;
  m.norm = norm_kind::layernorm;
  m.norms_per_layer = 2;  // ln1 / attn_norm, ln2 / ffn_norm
  m.final_norm = true;    // ln_out / norm
  m.tie_word_embeddings = r.boolean_or("tie_word_embeddings", false);
  m.mlp.gated = false;
  m.mlp.activation = "relu2";
}

// The time mix's heads must tile its width.
void rwkv_check_heads(const reader& r, std::string_view key, std::int64_t width, std::int64_t head_size) {
  if (width % head_size != 0)
    range_error(
        r, key,
        "expected a head size that divides the time-mix width " + rwkv_str(width) + ", but got " + rwkv_str(head_size));
}

// A LoRA rank of RWKV-7: the config's value; absent, RWKV7Config's default; null, fla's
// RWKV7Attention formula max(32, round(scale x sqrt(hidden) x factor / 32) x 32).
std::int64_t rwkv7_rank(const reader& r, std::string_view key, std::int64_t fallback, double scale, double factor,
                        std::int64_t hidden) {
  if (r.has(key)) return r.positive(key);
  const auto it = r.value().find(std::string(key));
  if (it == r.value().end()) return fallback;
  const double v = std::round(scale * std::sqrt(static_cast<double>(hidden)) * factor / 32.0) * 32.0;
  return std::max<std::int64_t>(32, static_cast<std::int64_t>(v));
}

}  // namespace

// rwkv6 (Rwkv6ForCausalLM): head_size (default 64) splits attention_hidden_size (default
// hidden_size); the feed-forward width is intermediate_size, or int(hidden x 3.5) // 32 x 32 when
// null. The token-shift LoRA rank is 32 and the decay LoRA rank 64, 64 and 128 at hidden 4096
// (TIME_MIX_EXTRA_DIM / TIME_DECAY_EXTRA_DIM as convert_hf_to_gguf.py's Rwkv6Model sets them).
void read_rwkv6(const reader& r, model_spec& m) {
  rwkv_common(r, m);
  rwkv_spec& k = m.rwkv;
  k.version = 6;
  k.head_size = r.positive_or("head_size", 64);
  k.attention_size = r.positive_or("attention_hidden_size", m.hidden_size);
  if (k.attention_size != m.hidden_size)  // ln_x is a GroupNorm over hidden_size channels of the heads' output
    range_error(r, "attention_hidden_size",
                "expected the hidden size " + rwkv_str(m.hidden_size) +
                    " (ln_x normalises hidden_size channels), but got " + rwkv_str(k.attention_size));
  rwkv_check_heads(r, "head_size", k.attention_size, k.head_size);
  k.mix_rank = m.hidden_size == 4096 ? 64 : 32;
  k.decay_rank = m.hidden_size == 4096 ? 128 : 64;
  m.mlp.intermediate_size = r.has("intermediate_size")
                                ? r.positive("intermediate_size")
                                : mul(m.hidden_size, 7) / 2 / 32 * 32;  // int(h * 3.5) // 32 * 32
  m.mlp.token_shift = 2;                                                // time_maa_k, time_maa_r
  m.mlp.receptance = true;
  m.embedding_norm = true;  // blocks.0.pre_ln
  layer_desc d;
  d.mixer = mixer_kind::rwkv;
  set_layers(m, std::vector<layer_desc>(static_cast<std::size_t>(m.num_layers), d));
}

// rwkv7 (fla's RWKV7Config; RWKV's own HF configs name head_size and the lora_rank_* keys that
// convert_hf_to_gguf.py's Rwkv7Model also reads): head_dim (default 64; or num_heads dividing the
// hidden size), the w/a/v/g LoRA ranks decay_low_rank_dim, a_low_rank_dim, v_low_rank_dim,
// gate_low_rank_dim (defaults 64, 64, 16, 128; null: fla's formula), the feed-forward width
// intermediate_size or hidden x hidden_ratio (default 4) rounded up to 32. norm_bias (default
// true) and norm_first (default true: layer 0's pre_norm). The first layer has no v LoRA.
void read_rwkv7(const reader& r, model_spec& m) {
  rwkv_common(r, m);
  rwkv_spec& k = m.rwkv;
  k.version = 7;
  const std::int64_t h = m.hidden_size;
  const std::string_view head_key = r.pick({"head_dim", "head_size"});
  if (r.has(head_key)) {
    k.head_size = r.positive(head_key);
  } else if (r.has("num_heads")) {
    const std::int64_t heads = r.positive("num_heads");
    rwkv_check_heads(r, "num_heads", h, heads);
    k.head_size = h / heads;
  } else {
    k.head_size = 64;
  }
  rwkv_check_heads(r, head_key, h, k.head_size);
  k.attention_size = h;  // key_dim is the hidden size
  if (r.has("value_dim") && r.positive("value_dim") != h)
    range_error(r, "value_dim",
                "expected the hidden size " + rwkv_str(h) + " (a wider value is not read), but got " +
                    rwkv_str(r.positive("value_dim")));
  if (r.has("attn"))  // fla's hybrid layers (softmax attention in some layers) are not read
    range_error(r, "attn", "expected null (RWKV-7 layers only); hybrid attention layers are not read");
  const double factor = static_cast<double>(k.head_size) / 64.0;
  k.decay_rank = rwkv7_rank(r, r.pick({"decay_low_rank_dim", "lora_rank_decay"}), 64, 2.5, factor, h);
  k.a_rank = rwkv7_rank(r, r.pick({"a_low_rank_dim", "lora_rank_iclr"}), 64, 2.5, factor, h);
  k.value_rank = rwkv7_rank(r, r.pick({"v_low_rank_dim", "lora_rank_value_residual_mix"}), 16, 1.7, factor, h);
  k.gate_rank = rwkv7_rank(r, r.pick({"gate_low_rank_dim", "lora_rank_gate"}), 128, 5.0, 1.0, h);

  if (r.has("intermediate_size")) {
    m.mlp.intermediate_size = r.positive("intermediate_size");
  } else {
    const double ratio = r.number_or("hidden_ratio", 4.0, 0.0, 1024.0);
    const auto width = static_cast<std::int64_t>(static_cast<double>(h) * ratio);
    if (width <= 0 || width > reader::k_max_dim)
      range_error(r, "hidden_ratio",
                  "expected a feed-forward width (hidden x hidden_ratio) from 1 to 2^30, but got " + rwkv_str(width));
    m.mlp.intermediate_size = 32 * ((width + 31) / 32);
  }
  m.mlp.token_shift = 1;  // x_k
  m.norm_bias = r.boolean_or("norm_bias", true);
  m.embedding_norm = r.boolean_or("norm_first", true);  // layers.0.pre_norm

  std::vector<layer_desc> layers(static_cast<std::size_t>(m.num_layers));
  for (auto& d : layers) d.mixer = mixer_kind::rwkv;
  layers[0].rwkv_first = true;
  set_layers(m, layers);
}

}  // namespace flopcast::detail
