// HunyuanOCR (hunyuan_vl): the published count and the structure behind it, summed by hand from
// transformers' modular_hunyuan_vl.py (HunYuan dense text model, vision tower and patch merger).
#include <catch2/catch.hpp>

#include "flopcast/flopcast.hpp"
#include "helpers.hpp"

using flopcast::count_parameters;
using test::json;

TEST_CASE("hunyuan_vl: HunYuan dense text model, SigLIP-style tower and conv patch merger; HunyuanOCR to 1B") {
  const auto& m = test::model("tencent/HunyuanOCR");
  CHECK(m.model_type == "hunyuan_vl");
  CHECK(m.attention.qk_norm);
  CHECK_FALSE(m.attention.qk_norm_full_width);
  CHECK_FALSE(m.attention.qkv_bias);
  CHECK(m.tie_word_embeddings);
  CHECK(m.attention.num_kv_heads == 8);
  CHECK(m.vision_model_type == "hunyuan_vl_vision");
  const auto p = count_parameters(m);
  // Text: per layer q 1024 -> 2048 and o back, k and v 1024 -> 1024 (8 heads of 128), per-head q
  // and k RMSNorms 2 x 128, gated MLP 3 x 1024 x 3584, two RMSNorms = 17,303,808; 24 layers, tied
  // embedding 120818 x 1024 and final norm = 539,010,048.
  const std::int64_t layer = 2LL * 1024 * 2048 + 2LL * 1024 * 1024 + 2 * 128 + 3LL * 1024 * 3584 + 2 * 1024;
  CHECK(layer == 17303808);
  CHECK(p.per_layer[0] == layer);
  const std::int64_t text = 24 * layer + 120818LL * 1024 + 1024;
  CHECK(text == 539010048);
  // Vision: Conv2d 3 x 16 x 16 -> 1152 with bias, (2048 / 16)^2 + 1 positions; 27 layers of two
  // LayerNorms, q/k/v/o 1152 x 1152 with biases, fc1 1152 -> 4304 and fc2 back with biases
  // (15,239,504); merger before_rms 1152, proj_conv 1152 -> 2304 over 2 x 2 with bias, proj_out
  // 2304 -> 4608 with bias, image_newline 4608, mlp 4608 -> 1024 with bias, image_begin/end/sep
  // and after_rms 1024 each.
  const std::int64_t vlayer = 4 * (1152LL * 1152 + 1152) + 4 * 1152 + (1152LL * 4304 + 4304) + (4304LL * 1152 + 1152);
  CHECK(vlayer == 15239504);
  const std::int64_t merger =
      1152 + (1152LL * 2304 * 4 + 2304) + (2304LL * 4608 + 4608) + 4608 + (4608LL * 1024 + 1024) + 4 * 1024;
  CHECK(merger == 25970048);
  const std::int64_t vision = (3LL * 16 * 16 * 1152 + 1152) + (128LL * 128 + 1) * 1152 + 27 * vlayer + merger;
  CHECK(vision == 457198064);
  CHECK(p.vision == vision);
  CHECK(p.total == text + vision);
  CHECK(p.total == 996208112);  // the report's 1B
  CHECK(p.active == text);

  json c = json::parse(test::read_text("data/models/hunyuanocr.json"))["config"];
  c["text_config"]["tie_word_embeddings"] = false;
  CHECK(count_parameters(test::spec(c)).total == p.total + 120818LL * 1024);
  // Older flat saves keep the text fields at the top level.
  json flat = c["text_config"];
  flat["model_type"] = "hunyuan_vl";
  flat["tie_word_embeddings"] = true;
  flat["vision_config"] = c["vision_config"];
  CHECK(count_parameters(test::spec(flat)).total == p.total);
  c["vision_config"]["max_image_size"] = 1024;  // 64 x 64 + 1 positions
  CHECK(count_parameters(test::spec(c)).vision == vision - (128LL * 128 - 64 * 64) * 1152);
  c["vision_config"]["patch_size"] = 2048;
  CHECK_THROWS_WITH(test::spec(c), Catch::Contains("(/vision_config/patch_size)"));
  c["vision_config"].erase("patch_size");
  c["vision_config"]["num_attention_heads"] = 7;
  CHECK_THROWS_WITH(test::spec(c), Catch::Contains("(/vision_config/num_attention_heads)"));
  c["text_config"]["num_key_value_heads"] = 3;
  CHECK_THROWS_WITH(test::spec(c), Catch::Contains("(/text_config/num_key_value_heads)"));
}
