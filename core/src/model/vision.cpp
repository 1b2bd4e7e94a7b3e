// The vision tower and projector of multimodal config.json wrappers (vision_config), counted
// exactly from the modules that transformers builds for each vision model_type, and the
// Qwen2-VL / Qwen2.5-VL reader (text fields at the top level, then the tower).
//
// Every count below follows one modeling_*.py of huggingface/transformers:
//   siglip_vision_model  SiglipVisionTransformer (modeling_siglip.py): Conv2d patch embedding
//                        with bias, a learned position table of (image/patch)^2 rows, pre-norm
//                        layers (LayerNorm, q/k/v/out_proj with biases, fc1/fc2 with biases),
//                        post_layernorm, and the attention-pooling head unless vision_use_head
//                        is false.
//   clip_vision_model    CLIPVisionTransformer (modeling_clip.py): class_embedding, Conv2d patch
//                        embedding without bias, (image/patch)^2 + 1 positions, pre_layrnorm,
//                        the same layers as SigLIP, post_layernorm.
//   pixtral              PixtralVisionModel (modeling_pixtral.py): Conv2d without bias, ln_pre
//                        RMSNorm, layers of attention_norm + q/k/v/o without bias + ffn_norm +
//                        gated gate/up/down MLP without bias; 2-D RoPE has no weights.
//   qwen2_vl             Qwen2VisionTransformerPretrainedModel (modeling_qwen2_vl.py): Conv3d
//                        patch embedding without bias, blocks of two LayerNorms, fused qkv and
//                        proj with biases, fc1/fc2 with biases (embed_dim x mlp_ratio), and the
//                        PatchMerger (LayerNorm ln_q, Linear(4e, 4e), Linear(4e, hidden_size)).
//   qwen2_5_vl           Qwen2_5_VisionTransformerPretrainedModel (modeling_qwen2_5_vl.py): the
//                        same with RMSNorms, a gated MLP with biases and out_hidden_size.
//   qwen3_vl, qwen3_vl_moe
//                        Qwen3VLVisionModel (modeling_qwen3_vl.py; Qwen3-VL-MoE's is the same):
//                        Conv3d patch embedding with bias, a learned position table of
//                        num_position_embeddings rows, blocks of two LayerNorms, fused qkv and
//                        proj with biases, linear_fc1/linear_fc2 with biases, the
//                        PatchMerger (LayerNorm over the width, Linear(4w, 4w), Linear(4w,
//                        out_hidden_size), biases) and one DeepStack merger per entry of
//                        deepstack_visual_indexes (the same, its LayerNorm over the merged 4w).
//   llama4_vision_model  Llama4VisionModel (modeling_llama4.py): unfold-linear patch embedding
//                        without bias, class_embedding, (image/patch)^2 + 1 positions,
//                        layernorm_pre/post, layers with biased q/k/v/o and fc1/fc2, and the
//                        pixel-shuffle MLP adapter (fc1, fc2 without bias).
// Projectors, by wrapper model_type:
//   gemma3     Gemma3MultiModalProjector: mm_input_projection_weight (vision x text hidden) and
//              the mm_soft_emb_norm RMSNorm (vision hidden).
//   paligemma  PaliGemmaMultiModalProjector: Linear(vision hidden, projection_dim) with bias.
//   llava, llava_next
//              LlavaMultiModalProjector ("mlp2x_gelu"): linear_1 (vision hidden x feature layers
//              -> text hidden), linear_2 (text -> text), biases unless
//              multimodal_projector_bias is false; LLaVA-NeXT adds image_newline (text hidden).
//   mistral3   Mistral3MultiModalProjector: RMSNorm (vision hidden), the patch merger's
//              merging_layer (vision hidden x spatial_merge_size^2 -> vision hidden, no bias),
//              linear_1 and linear_2 (biases only with multimodal_projector_bias).
//   qwen2_vl, qwen2_5_vl, qwen3_vl, qwen3_vl_moe
//              the merger is part of the tower.
//   llama4     Llama4MultiModalProjector: linear_1 (vision_output_dim -> text hidden, no bias).
#include <string>
#include <vector>

#include "base/detail.hpp"
#include "base/json_reader.hpp"
#include "model/hf_common.hpp"
#include "model/model_parts.hpp"

namespace flopcast::detail {

namespace {

using i64 = std::int64_t;

// A Linear layer's weights (and bias).
i64 linear(i64 in, i64 out, bool bias) { return add(mul(in, out), bias ? out : 0); }

// Width of one encoder layer's pieces, read with the vision model's own defaults.
struct vit_dims {
  i64 hidden = 0, intermediate = 0, layers = 0, heads = 0, channels = 0, image = 0, patch = 0;
};

vit_dims read_vit(const reader& v, i64 hidden, i64 intermediate, i64 layers, i64 heads, i64 image, i64 patch) {
  vit_dims d;
  d.hidden = v.positive_or("hidden_size", hidden);
  d.intermediate = v.positive_or("intermediate_size", intermediate);
  d.layers = v.has("num_hidden_layers") ? v.layers("num_hidden_layers") : layers;
  d.heads = v.positive_or("num_attention_heads", heads);
  d.channels = v.positive_or("num_channels", 3);
  d.image = v.positive_or("image_size", image);
  d.patch = v.positive_or("patch_size", patch);
  if (d.patch > d.image)
    range_error(v, "patch_size",
                "expected at most image_size (" + std::to_string(d.image) + "), but got " + std::to_string(d.patch));
  return d;
}

// Patches of one image side (transformers divides with floor: SigLIP-384 with 14-pixel patches
// has 27 x 27).
i64 patches(const vit_dims& d) { return mul(d.image / d.patch, d.image / d.patch); }

// A pre-norm ViT layer with LayerNorms, biased q/k/v/o and a biased fc1 -> act -> fc2 MLP
// (SigLIP, CLIP, Llama 4's vision encoder).
i64 biased_vit_layer(i64 h, i64 ff) {
  return add(add(mul(4, linear(h, h, true)), add(linear(h, ff, true), linear(ff, h, true))), 4 * h);
}

i64 siglip_tower(const reader& v) {
  const vit_dims d = read_vit(v, 768, 3072, 12, 12, 224, 16);
  const i64 h = d.hidden;
  i64 n = add(mul(h, d.channels, mul(d.patch, d.patch)), h);  // Conv2d with bias
  n = add(n, mul(patches(d), h));                             // position_embedding
  n = add(n, mul(d.layers, biased_vit_layer(h, d.intermediate)));
  n = add(n, 2 * h);  // post_layernorm
  if (v.boolean_or("vision_use_head", true)) {
    // SiglipMultiheadAttentionPoolingHead: probe, nn.MultiheadAttention (in_proj 3h x h + 3h,
    // out_proj), LayerNorm, MLP.
    n = add(n, add(add(h, linear(h, 3 * h, true)), linear(h, h, true)));
    n = add(n, add(2 * h, add(linear(h, d.intermediate, true), linear(d.intermediate, h, true))));
  }
  return n;
}

i64 clip_tower(const reader& v) {
  const vit_dims d = read_vit(v, 768, 3072, 12, 12, 224, 32);
  const i64 h = d.hidden;
  i64 n = h;                                              // class_embedding
  n = add(n, mul(h, d.channels, mul(d.patch, d.patch)));  // Conv2d, no bias
  n = add(n, mul(add(patches(d), 1), h));                 // position_embedding (+ class position)
  n = add(n, 2 * h);                                      // pre_layrnorm
  n = add(n, mul(d.layers, biased_vit_layer(h, d.intermediate)));
  return add(n, 2 * h);  // post_layernorm
}

i64 pixtral_tower(const reader& v) {
  const vit_dims d = read_vit(v, 1024, 4096, 24, 16, 1024, 16);
  const i64 h = d.hidden;
  i64 n = mul(h, d.channels, mul(d.patch, d.patch));  // patch_conv, no bias
  n = add(n, h);                                      // ln_pre (RMSNorm)
  const i64 layer = add(add(mul(4, mul(h, h)), mul(3, mul(h, d.intermediate))), 2 * h);
  return add(n, mul(d.layers, layer));
}

struct qwen_vit {
  i64 width = 0, depth = 0, heads = 0, patch_embed = 0, merge = 0;
};

qwen_vit read_qwen_vit(const reader& v, std::string_view width_key, i64 width_default) {
  qwen_vit q;
  q.width = v.positive_or(width_key, width_default);
  q.depth = v.has("depth") ? v.layers("depth") : 32;
  q.heads = v.positive_or("num_heads", 16);
  const i64 channels = v.positive_or(v.pick({"in_channels", "in_chans"}), 3);
  const i64 patch = v.positive_or("patch_size", 14);
  const i64 temporal = v.positive_or("temporal_patch_size", 2);
  q.patch_embed = mul(mul(q.width, channels), mul(temporal, mul(patch, patch)));  // Conv3d, no bias
  q.merge = v.positive_or("spatial_merge_size", 2);
  return q;
}

// The merger MLP: Linear(width x merge^2, same) -> GELU -> Linear(-, out), with biases.
i64 qwen_merger_mlp(const qwen_vit& q, i64 out) {
  const i64 merged = mul(q.width, mul(q.merge, q.merge));
  return add(linear(merged, merged, true), linear(merged, out, true));
}

i64 qwen2_vl_tower(const reader& v) {
  const qwen_vit q = read_qwen_vit(v, "embed_dim", 1280);
  const double ratio = v.number_or("mlp_ratio", 4.0, 0.0, 1e6);
  const i64 ff = static_cast<i64>(static_cast<double>(q.width) * ratio);  // int(embed_dim * mlp_ratio)
  if (ff <= 0) range_error(v, "mlp_ratio", "expected a positive MLP width, but got " + std::to_string(ff));
  const i64 e = q.width;
  const i64 block =
      add(add(4 * e, add(linear(e, 3 * e, true), linear(e, e, true))), add(linear(e, ff, true), linear(ff, e, true)));
  const i64 out = v.positive_or("hidden_size", 3584);
  return add(add(q.patch_embed, mul(q.depth, block)), add(2 * e, qwen_merger_mlp(q, out)));  // ln_q: LayerNorm
}

i64 qwen2_5_vl_tower(const reader& v) {
  const qwen_vit q = read_qwen_vit(v, "hidden_size", 3584);
  const i64 h = q.width;
  const i64 ff = v.positive_or("intermediate_size", 3420);
  const i64 block = add(add(2 * h, add(linear(h, 3 * h, true), linear(h, h, true))),
                        add(mul(2, linear(h, ff, true)), linear(ff, h, true)));
  const i64 out = v.positive_or("out_hidden_size", 3584);
  return add(add(q.patch_embed, mul(q.depth, block)), add(h, qwen_merger_mlp(q, out)));  // ln_q: RMSNorm
}

// Qwen3VLVisionConfig's defaults are Qwen3-VL's released towers (27 blocks of 1152, 16-pixel
// patches, three DeepStack mergers); only out_hidden_size changes with the text model.
i64 qwen3_vl_tower(const reader& v) {
  const i64 w = v.positive_or("hidden_size", 1152);
  const i64 ff = v.positive_or("intermediate_size", 4304);
  const i64 depth = v.has("depth") ? v.layers("depth") : 27;
  const i64 channels = v.positive_or("in_channels", 3);
  const i64 patch = v.positive_or("patch_size", 16);
  const i64 temporal = v.positive_or("temporal_patch_size", 2);
  const i64 merge = v.positive_or("spatial_merge_size", 2);
  const i64 out = v.positive_or("out_hidden_size", 3584);
  const i64 positions = v.positive_or("num_position_embeddings", 2304);
  // The default list [8, 16, 24]; an explicit empty list means no DeepStack mergers.
  const i64 deepstack =
      v.has("deepstack_visual_indexes") ? static_cast<i64>(v.int_list_or_empty("deepstack_visual_indexes").size()) : 3;
  const i64 patch_embed = add(mul(mul(w, channels), mul(temporal, mul(patch, patch))), w);  // Conv3d, bias
  const i64 block =
      add(add(4 * w, add(linear(w, 3 * w, true), linear(w, w, true))), add(linear(w, ff, true), linear(ff, w, true)));
  const i64 merged = mul(w, mul(merge, merge));
  const i64 mlp = add(linear(merged, merged, true), linear(merged, out, true));
  const i64 mergers = add(add(2 * w, mlp), mul(deepstack, add(2 * merged, mlp)));
  return add(add(patch_embed, mul(positions, w)), add(mul(depth, block), mergers));
}

i64 llama4_tower(const reader& v) {
  const vit_dims d = read_vit(v, 768, 5632, 34, 16, 448, 14);
  const i64 h = d.hidden;
  i64 n = mul(mul(d.channels, mul(d.patch, d.patch)), h);  // Llama4UnfoldConvolution.linear, no bias
  n = add(n, h);                                           // class_embedding
  n = add(n, mul(add(patches(d), 1), h));                  // positional_embedding_vlm
  n = add(n, 4 * h);                                       // layernorm_pre, layernorm_post
  n = add(n, mul(d.layers, biased_vit_layer(h, d.intermediate)));
  // Llama4VisionPixelShuffleMLP -> Llama4VisionMLP2: fc1 (intermediate_size -> projector_input_dim),
  // fc2 (projector_output_dim -> projector_output_dim), both without bias.
  const i64 proj_in = v.positive_or("projector_input_dim", 4096);
  const i64 proj_out = v.positive_or("projector_output_dim", 4096);
  return add(n, add(mul(d.intermediate, proj_in), mul(proj_out, proj_out)));
}

// vision_feature_layer: one index (one layer's features) or a list of them (concatenated).
i64 feature_layers(const reader& w) {
  if (!w.has("vision_feature_layer") || !w.at("vision_feature_layer").is_array()) return 1;
  const std::vector<i64> layers = w.int_list_or_empty("vision_feature_layer");
  if (layers.empty()) range_error(w, "vision_feature_layer", "expected a layer index or a non-empty list of them");
  return static_cast<i64>(layers.size());
}

// The projector of `wrapper` for a tower of width `vision_hidden`; -1 when the pair is unknown.
i64 projector(const reader& w, const std::string& wrapper, const std::string& tower, const reader& v, i64 vision_hidden,
              i64 text_hidden) {
  if (wrapper == "gemma3" && tower == "siglip_vision_model") return add(mul(vision_hidden, text_hidden), vision_hidden);
  if (wrapper == "paligemma" && tower == "siglip_vision_model")
    return linear(vision_hidden, v.positive_or("projection_dim", 2048), true);
  if ((wrapper == "llava" || wrapper == "llava_next") && (tower == "clip_vision_model" || tower == "pixtral")) {
    const bool bias = w.boolean_or("multimodal_projector_bias", true);
    const i64 n =
        add(linear(mul(vision_hidden, feature_layers(w)), text_hidden, bias), linear(text_hidden, text_hidden, bias));
    return wrapper == "llava_next" ? add(n, text_hidden) : n;  // LLaVA-NeXT image_newline
  }
  if (wrapper == "mistral3" && tower == "pixtral") {
    const bool bias = w.boolean_or("multimodal_projector_bias", false);
    const i64 s = w.positive_or("spatial_merge_size", 2);
    const i64 merger = mul(mul(vision_hidden, mul(s, s)), vision_hidden);
    return add(add(vision_hidden, merger), add(linear(mul(vision_hidden, feature_layers(w)), text_hidden, bias),
                                               linear(text_hidden, text_hidden, bias)));
  }
  if ((wrapper == "qwen2_vl" && tower == "qwen2_vl") || (wrapper == "qwen2_5_vl" && tower == "qwen2_5_vl")) return 0;
  if ((wrapper == "qwen3_vl" || wrapper == "qwen3_vl_moe") && (tower == "qwen3_vl" || tower == "qwen3_vl_moe"))
    return 0;
  if (wrapper == "llama4" && tower == "llama4_vision_model") return mul(v.positive("vision_output_dim"), text_hidden);
  return -1;
}

i64 tower_hidden(const reader& v, const std::string& tower) {
  if (tower == "siglip_vision_model" || tower == "clip_vision_model") return v.positive_or("hidden_size", 768);
  if (tower == "pixtral") return v.positive_or("hidden_size", 1024);
  if (tower == "llama4_vision_model") return v.positive_or("hidden_size", 768);
  return 0;
}

}  // namespace

void read_vision_tower(const reader& wrapper, model_spec& m) {
  if (!wrapper.has("vision_config")) return;
  const json& vc = wrapper.at("vision_config");
  if (!vc.is_object())
    throw error(error_code::config_type, wrapper.ptr("vision_config"), "expected an object, but got " + describe(vc));
  const reader v(vc, wrapper.ptr("vision_config"));
  const std::string wrapper_type = wrapper.string_or("model_type", "");
  // Qwen2-VL and Qwen2.5-VL checkpoints leave model_type out of vision_config.
  std::string tower = v.string_or("model_type", "");
  if (tower.empty() && (wrapper_type == "qwen2_vl" || wrapper_type == "qwen2_5_vl")) tower = wrapper_type;
  if (tower == "qwen2_5_vl_vision") tower = "qwen2_5_vl";
  m.vision_model_type = tower;
  m.vision_parameters = 0;

  i64 n = -1;
  if (tower == "siglip_vision_model")
    n = siglip_tower(v);
  else if (tower == "clip_vision_model")
    n = clip_tower(v);
  else if (tower == "pixtral")
    n = pixtral_tower(v);
  else if (tower == "qwen2_vl")
    n = qwen2_vl_tower(v);
  else if (tower == "qwen2_5_vl")
    n = qwen2_5_vl_tower(v);
  else if (tower == "qwen3_vl" || tower == "qwen3_vl_moe")
    n = qwen3_vl_tower(v);
  else if (tower == "llama4_vision_model")
    n = llama4_tower(v);
  if (n < 0) return;  // unknown tower: not counted, vision_model_type says which
  const i64 p = projector(wrapper, wrapper_type, tower, v, tower_hidden(v, tower), m.hidden_size);
  if (p < 0) return;  // the wrapper's projector for this tower is unknown: not counted
  m.vision_parameters = add(n, p);
}

json wrapper_text_config(const reader& wrapper, std::string_view key) {
  json text = wrapper.at(key);
  const std::string w = wrapper.string_or("model_type", "");
  // The wrappers' configuration classes name the text model when the checkpoint does not.
  if (!text.contains("model_type") || text["model_type"].is_null()) {
    if (w == "llava" || w == "llava_next")
      text["model_type"] = "llama";
    else if (w == "mistral3")
      text["model_type"] = "mistral";
    else if (w == "gemma3")
      text["model_type"] = "gemma3_text";
    else if (w == "paligemma")
      text["model_type"] = "gemma";
    else if (w == "qwen3_vl" || w == "qwen3_vl_moe")
      text["model_type"] = w + "_text";
  }
  // Qwen3-VL's configuration class keeps tie_word_embeddings on the wrapper; a text_config without
  // its own takes the wrapper's.
  if ((w == "qwen3_vl" || w == "qwen3_vl_moe") &&
      (!text.contains("tie_word_embeddings") || text["tie_word_embeddings"].is_null()) &&
      wrapper.has("tie_word_embeddings"))
    text["tie_word_embeddings"] = wrapper.at("tie_word_embeddings");
  // A partial LLaVA text_config (llava-1.5-7b-hf names only max_position_embeddings,
  // rms_norm_eps and vocab_size) takes LlamaConfig's defaults for the rest.
  if (text.value("model_type", json()).is_string() && text["model_type"] == "llama") {
    const std::pair<const char*, json> defaults[] = {
        {"hidden_size", 4096},       {"intermediate_size", 11008}, {"num_hidden_layers", 32},
        {"num_attention_heads", 32}, {"vocab_size", 32000},        {"max_position_embeddings", 2048},
    };
    for (const auto& [k, value] : defaults)
      if (!text.contains(k) || text[k].is_null()) text[k] = value;
  }
  return text;
}

// qwen2_vl, qwen2_5_vl: the text model's fields sit at the top level in a Qwen2 layout (newer
// saves nest them under text_config); the vision tower and its merger follow.
void read_qwen2_vl(const reader& r, model_spec& m) {
  const std::string wrapper_type = m.model_type;
  m.model_type = "qwen2";  // Qwen2's q/k/v biases and sliding-window rules
  if (!r.has("hidden_size") && r.has("text_config") && r.at("text_config").is_object())
    read_llama_family(reader(r.at("text_config"), r.ptr("text_config")), m);
  else
    read_llama_family(r, m);
  m.model_type = wrapper_type;
  read_vision_tower(r, m);
}

}  // namespace flopcast::detail
