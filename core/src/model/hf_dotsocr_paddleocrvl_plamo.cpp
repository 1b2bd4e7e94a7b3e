// Config readers for dots.ocr (dots_ocr: a Qwen2 text model with the DotsViT vision tower),
// PaddleOCR-VL (paddleocr_vl: an ERNIE-4.5 text model with a SigLIP-style tower) and PLaMo
// (plamo), registered in families() in hf_config.cpp.
#include <string>
#include <vector>

#include "base/detail.hpp"
#include "base/json_reader.hpp"
#include "model/hf_common.hpp"

namespace flopcast::detail {

namespace {

using dotsocr_i64 = std::int64_t;

dotsocr_i64 dotsocr_linear(dotsocr_i64 in, dotsocr_i64 out, bool bias) { return add(mul(in, out), bias ? out : 0); }

// DotsVisionTransformer (rednote-hilab/dots.ocr modeling_dots_vision.py; vLLM dots_ocr.py), with
// DotsVisionConfig's defaults where vision_config leaves a field out:
//   patch_embed.patchifier  Conv2d(num_channels, embed_dim, patch x patch) with bias, RMSNorm
//   blocks x num_hidden_layers
//                           norm1, norm2 (RMSNorm); attn.qkv (embed -> 3 embed) and attn.proj;
//                           SwiGLU mlp fc1, fc3 (embed -> intermediate) and fc2 (back); every
//                           linear with a bias only when use_bias
//   post_trunk_norm         RMSNorm, when post_norm
//   merger                  PatchMerger: ln_q LayerNorm(embed), Linear(embed x merge^2, same)
//                           and Linear(-, hidden_size), both biased
dotsocr_i64 dotsocr_vision_tower(const reader& v) {
  const dotsocr_i64 e = v.positive_or("embed_dim", 1536);
  const dotsocr_i64 ff = v.positive_or("intermediate_size", 4224);
  const dotsocr_i64 layers = v.has("num_hidden_layers") ? v.layers("num_hidden_layers") : 42;
  const dotsocr_i64 heads = v.positive_or("num_attention_heads", 12);
  if (e % heads != 0)
    range_error(v, "num_attention_heads",
                "expected a divisor of embed_dim (" + std::to_string(e) + "), but got " + std::to_string(heads));
  const dotsocr_i64 channels = v.positive_or("num_channels", 3);
  const dotsocr_i64 patch = v.positive_or("patch_size", 14);
  const dotsocr_i64 merge = v.positive_or("spatial_merge_size", 2);
  const dotsocr_i64 out = v.positive_or("hidden_size", 1536);
  const bool bias = v.boolean_or("use_bias", false);
  dotsocr_i64 n = add(mul(mul(channels, mul(patch, patch)), e), add(e, e));  // conv weight + bias, RMSNorm
  const dotsocr_i64 block = add(add(2 * e, add(dotsocr_linear(e, 3 * e, bias), dotsocr_linear(e, e, bias))),
                                add(mul(2, dotsocr_linear(e, ff, bias)), dotsocr_linear(ff, e, bias)));
  n = add(n, mul(layers, block));
  if (v.boolean_or("post_norm", true)) n = add(n, e);
  const dotsocr_i64 merged = mul(e, mul(merge, merge));
  return add(n, add(2 * e, add(dotsocr_linear(merged, merged, true), dotsocr_linear(merged, out, true))));
}

// PaddleOCRVisionModel and PaddleOCRProjector (transformers modular_paddleocr_vl.py), with
// PaddleOCRVisionConfig's defaults where vision_config leaves a field out:
//   embeddings      SigLIP's: Conv2d(num_channels, hidden, patch x patch) with bias and a learned
//                   position table of (image_size / patch_size)^2 rows
//   encoder layers  layer_norm1, q/k/v/out_proj with biases, layer_norm2, fc1/fc2 with biases
//   post_layernorm  LayerNorm(hidden)
//   projector       pre_norm LayerNorm(hidden), linear_1 (hidden x merge^2, same) and linear_2
//                   (-, text hidden), both biased
// The checkpoint also stores a packing_position_embedding and an attention-pooling head that
// the model never builds (transformers ignores them on load); they are not counted.
dotsocr_i64 paddleocrvl_vision_tower(const reader& v, dotsocr_i64 text_hidden) {
  const dotsocr_i64 h = v.positive_or("hidden_size", 1152);
  const dotsocr_i64 ff = v.positive_or("intermediate_size", 4304);
  const dotsocr_i64 layers = v.has("num_hidden_layers") ? v.layers("num_hidden_layers") : 27;
  const dotsocr_i64 channels = v.positive_or("num_channels", 3);
  const dotsocr_i64 image = v.positive_or("image_size", 384);
  const dotsocr_i64 patch = v.positive_or("patch_size", 14);
  if (patch > image)
    range_error(v, "patch_size",
                "expected at most image_size (" + std::to_string(image) + "), but got " + std::to_string(patch));
  const dotsocr_i64 merge = v.positive_or("spatial_merge_size", 2);
  dotsocr_i64 n = add(mul(mul(channels, mul(patch, patch)), h), h);  // patch_embedding with bias
  n = add(n, mul(mul(image / patch, image / patch), h));             // position_embedding
  const dotsocr_i64 layer = add(add(mul(4, dotsocr_linear(h, h, true)), 4 * h),
                                add(dotsocr_linear(h, ff, true), dotsocr_linear(ff, h, true)));
  n = add(n, add(mul(layers, layer), 2 * h));  // encoder layers, post_layernorm
  const dotsocr_i64 merged = mul(h, mul(merge, merge));
  return add(n, add(2 * h, add(dotsocr_linear(merged, merged, true), dotsocr_linear(merged, text_hidden, true))));
}

}  // namespace

// dots_ocr (rednote-hilab/dots.ocr): DotsOCRForCausalLM is Qwen2ForCausalLM (q/k/v biases,
// untied head as tie_word_embeddings says) with its fields at the top level, plus the DotsViT
// tower under vision_config, whose model_type the checkpoint may leave out.
void read_dots_ocr(const reader& r, model_spec& m) {
  const std::string type = m.model_type;
  m.model_type = "qwen2";  // Qwen2's q/k/v biases and sliding-window rules
  read_llama_family(r, m);
  m.model_type = type;
  if (!r.has("vision_config")) return;
  const json& vc = r.at("vision_config");
  if (!vc.is_object())
    throw error(error_code::config_type, r.ptr("vision_config"), "expected an object, but got " + describe(vc));
  m.vision_model_type = "dots_vit";
  m.vision_parameters = dotsocr_vision_tower(reader(vc, r.ptr("vision_config")));
}

// paddleocr_vl (PaddlePaddle/PaddleOCR-VL): PaddleOCRVLForConditionalGeneration, an ERNIE-4.5
// text model (its fields at the top level, or under text_config in newer saves) and the
// PaddleOCR vision tower with its projector under vision_config.
void read_paddleocr_vl(const reader& r, model_spec& m) {
  const std::string type = m.model_type;
  m.model_type = "ernie4_5";
  if (!r.has("hidden_size") && r.has("text_config") && r.at("text_config").is_object())
    read_ernie4_5(reader(r.at("text_config"), r.ptr("text_config")), m);
  else
    read_ernie4_5(r, m);
  m.model_type = type;
  if (!r.has("vision_config")) return;
  const json& vc = r.at("vision_config");
  if (!vc.is_object())
    throw error(error_code::config_type, r.ptr("vision_config"), "expected an object, but got " + describe(vc));
  m.vision_model_type = "paddleocr_vl_vision";
  m.vision_parameters = paddleocrvl_vision_tower(reader(vc, r.ptr("vision_config")), m.hidden_size);
}

// plamo (pfnet/plamo-13b, PlamoForCausalLM; modeling_plamo.py, llama.cpp src/models/plamo.cpp):
// Llama's q/k/v/o projections and SiLU-gated MLP without biases, rotary positions, but one
// RMSNorm per layer whose output feeds attention and MLP side by side (both added to the
// residual), and K/V heads each shared by n_shared_head query heads. PlamoConfig's
// num_key_value_heads is not what the model builds (plamo-13b's config says 40 while its k/v
// projections hold 40 / 8 = 5 heads), so it is not read.
void read_plamo(const reader& r, model_spec& m) {
  read_decoder_basics(r, m);
  m.norms_per_layer = 1;
  m.parallel_attention = true;
  m.position = position_kind::rotary;
  m.tie_word_embeddings = r.boolean_or("tie_word_embeddings", false);
  m.mlp.gated = true;
  m.mlp.activation = "silu";
  m.mlp.intermediate_size = r.positive("intermediate_size");
  const std::int64_t shared = r.positive_or("n_shared_head", 8);
  read_heads(r, m, "num_attention_heads", "__none__", 0);
  if (m.attention.num_heads % shared != 0)
    range_error(r, "n_shared_head",
                "expected a divisor of num_attention_heads (" + std::to_string(m.attention.num_heads) + "), but got " +
                    std::to_string(shared));
  m.attention.num_kv_heads = m.attention.num_heads / shared;
  uniform_layers(m);
}

}  // namespace flopcast::detail
