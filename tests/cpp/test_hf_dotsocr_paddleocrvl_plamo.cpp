// dots.ocr (dots_ocr), PaddleOCR-VL (paddleocr_vl) and PLaMo (plamo): the published counts and
// the structure behind them, summed by hand from vLLM's dots_ocr.py (DotsVisionTransformer beside
// Qwen2ForCausalLM), transformers' modular_paddleocr_vl.py and llama.cpp's src/models/plamo.cpp.
#include <catch2/catch.hpp>

#include "flopcast/flopcast.hpp"
#include "helpers.hpp"

using flopcast::count_parameters;
using test::json;

TEST_CASE("dots_ocr: Qwen2 text model and the DotsViT tower; dots.ocr to 3.04B") {
  const auto& m = test::model("rednote-hilab/dots.ocr");
  CHECK(m.model_type == "dots_ocr");
  CHECK(m.attention.qkv_bias);
  CHECK_FALSE(m.tie_word_embeddings);
  CHECK(m.vision_model_type == "dots_vit");
  const auto p = count_parameters(m);
  // Text: per layer q and o 1536x1536, k and v 1536x256, q/k/v biases 1536 + 2 x 256, gated MLP
  // 3 x 1536 x 8960, two RMSNorms = 46,797,824; 28 layers + embedding and untied head
  // 2 x 151936 x 1536 + final norm = 1,777,088,000.
  const std::int64_t layer = 2LL * 1536 * 1536 + 2LL * 1536 * 256 + (1536 + 2 * 256) + 3LL * 1536 * 8960 + 2 * 1536;
  CHECK(layer == 46797824);
  CHECK(p.per_layer[0] == layer);
  const std::int64_t text = 28 * layer + 2LL * 151936 * 1536 + 1536;
  CHECK(text == 1777088000);
  // Vision: Conv2d 3 x 14 x 14 -> 1536 with bias and its RMSNorm; 42 blocks of two RMSNorms,
  // qkv 1536 -> 4608, proj 1536 -> 1536, fc1 and fc3 1536 -> 4224, fc2 4224 -> 1536 (no biases:
  // use_bias false) = 28,904,448; post_trunk_norm; merger LayerNorm(1536), 6144 -> 6144 and
  // 6144 -> 1536 with biases.
  const std::int64_t block = 2 * 1536 + 1536LL * 4608 + 1536LL * 1536 + 2LL * 1536 * 4224 + 4224LL * 1536;
  CHECK(block == 28904448);
  const std::int64_t vision = (3LL * 14 * 14 * 1536 + 1536 + 1536) + 42 * block + 1536 +
                              (2 * 1536 + 6144LL * 6144 + 6144 + 6144LL * 1536 + 1536);
  CHECK(vision == 1262091264);
  CHECK(p.vision == vision);
  CHECK(p.total == text + vision);
  CHECK(p.total == 3039179264);  // 3.04B as listed
  CHECK(p.active == text);

  // use_bias puts biases on qkv, proj, fc1, fc3 and fc2 of every block.
  json c = json::parse(test::read_text("data/models/dots.ocr.json"))["config"];
  c["vision_config"]["use_bias"] = true;
  CHECK(count_parameters(test::spec(c)).vision == vision + 42 * (4608 + 1536 + 2 * 4224 + 1536));
  c["vision_config"]["post_norm"] = false;
  CHECK(count_parameters(test::spec(c)).vision == vision + 42 * (4608 + 1536 + 2 * 4224 + 1536) - 1536);
  c["vision_config"]["num_attention_heads"] = 7;
  CHECK_THROWS_WITH(test::spec(c), Catch::Contains("(/vision_config/num_attention_heads)"));
  c["vision_config"] = 3;
  CHECK_THROWS_WITH(test::spec(c), Catch::Contains("(/vision_config)"));
}

TEST_CASE("plamo: one norm feeding parallel attention and MLP, shared K/V heads; PLaMo-13B to 13B") {
  const auto& m = test::model("pfnet/plamo-13b");
  CHECK(m.model_type == "plamo");
  CHECK(m.parallel_attention);
  CHECK(m.norms_per_layer == 1);
  CHECK(m.attention.num_heads == 40);
  CHECK(m.attention.num_kv_heads == 5);  // 40 / n_shared_head 8, not num_key_value_heads (40)
  CHECK(m.attention.head_dim == 128);
  CHECK_FALSE(m.attention.qkv_bias);
  CHECK_FALSE(m.tie_word_embeddings);
  const auto p = count_parameters(m);
  // Per layer: q and o 5120x5120, k and v 5120x640 (5 heads of 128), gated MLP 3 x 5120 x 16640,
  // one RMSNorm of 5120 = 314,577,920.
  const std::int64_t layer = 2LL * 5120 * 5120 + 2LL * 5120 * 640 + 3LL * 5120 * 16640 + 5120;
  CHECK(layer == 314577920);
  CHECK(p.per_layer[0] == layer);
  // 40 layers + embedding and untied head 2 x 50432 x 5120 + final norm = 13,099,545,600: "13 billion".
  CHECK(p.total == 40 * layer + 2LL * 50432 * 5120 + 5120);
  CHECK(p.total == 13099545600);
  CHECK(p.active == p.total);

  json c = json::parse(test::read_text("data/models/plamo-13b.json"))["config"];
  c["n_shared_head"] = 1;  // every query head its own K/V head
  CHECK(count_parameters(test::spec(c)).total == p.total + 40 * (2LL * 5120 * (5120 - 640)));
  c["tie_word_embeddings"] = true;
  CHECK(count_parameters(test::spec(c)).total == p.total + 40 * (2LL * 5120 * (5120 - 640)) - 50432LL * 5120);
  c["n_shared_head"] = 3;
  CHECK_THROWS_WITH(test::spec(c), Catch::Contains("(/n_shared_head)"));
  c["n_shared_head"] = 0;
  CHECK_THROWS_WITH(test::spec(c), Catch::Contains("(/n_shared_head)"));
}

TEST_CASE("paddleocr_vl: ERNIE-4.5 text model and the PaddleOCR tower; PaddleOCR-VL to 0.9B") {
  const auto& m = test::model("PaddlePaddle/PaddleOCR-VL");
  CHECK(m.model_type == "paddleocr_vl");
  CHECK_FALSE(m.attention.qkv_bias);
  CHECK_FALSE(m.tie_word_embeddings);
  CHECK(m.attention.head_dim == 128);
  CHECK(m.vision_model_type == "paddleocr_vl_vision");
  const auto p = count_parameters(m);
  // Text: per layer q 1024 -> 2048 and o back, k and v 1024 -> 256, gated MLP 3 x 1024 x 3072,
  // two RMSNorms = 14,157,824; 18 layers + embedding and untied head 2 x 103424 x 1024 + final
  // norm = 466,654,208.
  const std::int64_t layer = 2LL * 1024 * 2048 + 2LL * 1024 * 256 + 3LL * 1024 * 3072 + 2 * 1024;
  CHECK(layer == 14157824);
  CHECK(p.per_layer[0] == layer);
  const std::int64_t text = 18 * layer + 2LL * 103424 * 1024 + 1024;
  CHECK(text == 466654208);
  // Vision: Conv2d 3 x 14 x 14 -> 1152 with bias, 27 x 27 positions; 27 layers of two
  // LayerNorms, q/k/v/out 1152 x 1152 with biases, fc1 1152 -> 4304 and fc2 back with biases
  // (15,239,504); post_layernorm; projector LayerNorm(1152), 4608 -> 4608 and 4608 -> 1024 with
  // biases.
  const std::int64_t vlayer = 4 * (1152LL * 1152 + 1152) + 4 * 1152 + (1152LL * 4304 + 4304) + (4304LL * 1152 + 1152);
  CHECK(vlayer == 15239504);
  const std::int64_t vision = (3LL * 14 * 14 * 1152 + 1152) + 729LL * 1152 + 27 * vlayer + 2 * 1152 +
                              (2 * 1152 + 4608LL * 4608 + 4608 + 4608LL * 1024 + 1024);
  CHECK(vision == 438947440);
  CHECK(p.vision == vision);
  CHECK(p.total == text + vision);
  CHECK(p.total == 905601648);  // the report's 0.9B
  CHECK(p.active == text);

  json c = json::parse(test::read_text("data/models/paddleocr-vl.json"))["config"];
  c["tie_word_embeddings"] = true;
  CHECK(count_parameters(test::spec(c)).total == p.total - 103424LL * 1024);
  c["vision_config"]["image_size"] = 448;  // 32 x 32 positions
  CHECK(count_parameters(test::spec(c)).vision == vision + (1024 - 729) * 1152LL);
  c["vision_config"]["patch_size"] = 500;
  CHECK_THROWS_WITH(test::spec(c), Catch::Contains("(/vision_config/patch_size)"));
  c["vision_config"] = json::array();
  CHECK_THROWS_WITH(test::spec(c), Catch::Contains("(/vision_config)"));
}
