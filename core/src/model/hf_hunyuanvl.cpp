// Config reader for HunyuanOCR (hunyuan_vl: a HunYuan dense text model with its vision tower and
// patch merger), registered in families() in hf_config.cpp.
#include <string>

#include "base/detail.hpp"
#include "base/json_reader.hpp"
#include "model/hf_common.hpp"

namespace flopcast::detail {

namespace {

using hunyuanvl_i64 = std::int64_t;

hunyuanvl_i64 hunyuanvl_linear(hunyuanvl_i64 in, hunyuanvl_i64 out) { return add(mul(in, out), out); }

// HunYuanVLVisionTransformer (transformers modular_hunyuan_vl.py), with HunYuanVLVisionConfig's
// defaults where vision_config leaves a field out:
//   embeddings    Conv2d(num_channels, hidden, patch x patch) with bias and a learned position
//                 table of (max_image_size / patch_size)^2 + 1 rows
//   layers        SigLIP encoder layers: two LayerNorms, q/k/v/o (heads x head_dim) with biases,
//                 fc1/fc2 with biases
//   patch_merger  before_rms RMSNorm(hidden), proj_conv Conv2d(hidden, 2 hidden, merge x merge)
//                 and proj_out Conv2d(2 hidden, 4 hidden, 1) with biases, image_newline (4 hidden),
//                 mlp Linear(4 hidden, text hidden) with bias, image_begin/end/sep and after_rms
//                 (text hidden each)
hunyuanvl_i64 hunyuanvl_vision_tower(const reader& v, hunyuanvl_i64 text_hidden) {
  const hunyuanvl_i64 h = v.positive_or("hidden_size", 1152);
  const hunyuanvl_i64 ff = v.positive_or("intermediate_size", 4304);
  const hunyuanvl_i64 layers = v.has("num_hidden_layers") ? v.layers("num_hidden_layers") : 27;
  const hunyuanvl_i64 heads = v.positive_or("num_attention_heads", 16);
  if (!v.has("head_dim") && h % heads != 0)
    range_error(v, "num_attention_heads",
                "expected a divisor of hidden_size (" + std::to_string(h) + "), but got " + std::to_string(heads));
  const hunyuanvl_i64 width = mul(heads, v.positive_or("head_dim", h / heads));
  const hunyuanvl_i64 channels = v.positive_or("num_channels", 3);
  const hunyuanvl_i64 patch = v.positive_or("patch_size", 16);
  const hunyuanvl_i64 image = v.positive_or("max_image_size", 2048);
  if (patch > image)
    range_error(v, "patch_size",
                "expected at most max_image_size (" + std::to_string(image) + "), but got " + std::to_string(patch));
  const hunyuanvl_i64 merge = v.positive_or("spatial_merge_size", 2);
  hunyuanvl_i64 n = add(mul(mul(channels, mul(patch, patch)), h), h);  // patch_embedding
  n = add(n, mul(add(mul(image / patch, image / patch), 1), h));       // position_embedding
  const hunyuanvl_i64 layer = add(add(mul(3, hunyuanvl_linear(h, width)), hunyuanvl_linear(width, h)),
                                  add(4 * h, add(hunyuanvl_linear(h, ff), hunyuanvl_linear(ff, h))));
  n = add(n, mul(layers, layer));
  const hunyuanvl_i64 merger = add(add(h, add(mul(mul(h, 2 * h), mul(merge, merge)), 2 * h)),  // before_rms, proj_conv
                                   add(hunyuanvl_linear(2 * h, 4 * h), 4 * h));  // proj_out, image_newline
  return add(n, add(merger, add(hunyuanvl_linear(4 * h, text_hidden), mul(4, text_hidden))));
}

}  // namespace

// hunyuan_vl (tencent/HunyuanOCR): HunYuanVLForConditionalGeneration. Its text model
// (text_config, or the top level in older flat saves) is HunYuan dense V1: Llama's layout with
// per-head q/k RMSNorms (query_layernorm, key_layernorm) and no biases; the head is tied unless
// tie_word_embeddings says otherwise (HunYuanVLTextConfig's default: tied).
void read_hunyuan_vl(const reader& r, model_spec& m) {
  const std::string type = m.model_type;
  const bool nested = r.has("text_config") && r.at("text_config").is_object();
  const reader t = nested ? reader(r.at("text_config"), r.ptr("text_config")) : r;
  m.model_type = "qwen3";  // per-head q/k RMSNorms, attention_bias
  read_llama_family(t, m);
  m.model_type = type;
  m.tie_word_embeddings = t.boolean_or("tie_word_embeddings", r.boolean_or("tie_word_embeddings", true));
  if (!r.has("vision_config")) return;
  const json& vc = r.at("vision_config");
  if (!vc.is_object())
    throw error(error_code::config_type, r.ptr("vision_config"), "expected an object, but got " + describe(vc));
  m.vision_model_type = "hunyuan_vl_vision";
  m.vision_parameters = hunyuanvl_vision_tower(reader(vc, r.ptr("vision_config")), m.hidden_size);
}

}  // namespace flopcast::detail
