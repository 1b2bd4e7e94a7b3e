// Bundled records of model types that had a reader but no record with a published count (issue
// 25): ERNIE-4.5-21B-A3B-PT (ernie4_5_moe) and Qwen3-VL-30B-A3B-Instruct (the qwen3_vl_moe
// wrapper). Counts hand-computed from transformers' modeling_ernie4_5_moe.py and
// modeling_qwen3_vl_moe.py, then checked against the published figures the records cite.
#include <catch2/catch.hpp>

#include "helpers.hpp"

using flopcast::count_parameters;

TEST_CASE("ernie4_5_moe record: ERNIE-4.5-21B-A3B-PT against its published 21.8B and 3B active", "[records_a]") {
  const auto& r = flopcast::find_model("ernie-4.5-21b-a3b");
  CHECK(r.family == "ernie4_5_moe");
  CHECK(r.spec.model_type == "ernie4_5_moe");
  const auto p = count_parameters(r.spec);
  const std::int64_t h = 2560;
  // Attention: q and o 2560^2, k and v 2560 x (4 x 128), no biases; two RMSNorms per layer.
  const std::int64_t attn = 2 * h * h + 2 * h * 512 + 2 * h;
  // Layer 0 is dense (moe_layer_start_index 1): gate, up, down 2560 x 12288.
  const std::int64_t dense = attn + 3 * h * 12288;
  // Layers 1..27: router 2560 x 64 plus its 64-wide e_score_correction_bias, 64 experts of
  // 3 x 2560 x 1536, and the two shared experts as one MLP of 2 x 1536.
  const std::int64_t expert = 3 * h * 1536;
  const std::int64_t moe = attn + h * 64 + 64 + 64 * expert + 3 * h * 3072;
  // Tied 103424-row embedding, final norm.
  const std::int64_t total = dense + 27 * moe + 103424 * h + h;
  CHECK(p.total == total);
  CHECK(p.total == 21825437888);
  // Per token 6 of the 64 routed experts run: 58 stay idle in each MoE layer.
  CHECK(p.active == total - 27 * 58 * expert);
  CHECK(p.active == 3352150208);
  // "21.8B" promises +-0.05B; the card's "3B activated" +-0.5B.
  CHECK(flopcast::matches_published(p.total, r.published_parameters, r.published_significant_digits));
  CHECK_FALSE(flopcast::matches_published(p.total + 100000000, r.published_parameters, 3));
  CHECK(flopcast::matches_published(p.active, r.published_active, r.published_active_significant_digits));
}

namespace {

// Qwen3VLVisionModel (modeling_qwen3_vl.py) of the released Qwen3-VL checkpoints: Conv3d patch
// embedding 1152 x 3 x 2 x 16 x 16 with bias, 2304 learned positions, 27 blocks (two LayerNorms,
// qkv 1152 -> 3456 and proj with biases, linear_fc1/fc2 1152 <-> 4304 with biases), the merger
// (LayerNorm 1152, Linear(4608, 4608), Linear(4608, out)) and three DeepStack mergers (the same
// with a LayerNorm over 4608).
std::int64_t records_a_qwen3_vl_tower(std::int64_t out) {
  const std::int64_t w = 1152, ff = 4304, merged = 4 * w;
  const std::int64_t block = 4 * w + (w * 3 * w + 3 * w) + (w * w + w) + (w * ff + ff) + (ff * w + w);
  const std::int64_t mlp = (merged * merged + merged) + (merged * out + out);
  return (w * 3 * 2 * 16 * 16 + w) + 2304 * w + 27 * block + (2 * w + mlp) + 3 * (2 * merged + mlp);
}

}  // namespace

TEST_CASE("qwen3_vl_moe record: Qwen3-VL-30B-A3B-Instruct, Qwen3-MoE text model and the vision tower", "[records_a]") {
  const auto& r = flopcast::find_model("qwen3-vl-30b-a3b-instruct");
  CHECK(r.family == "qwen3_vl_moe");  // the wrapper type: what the coverage lists name
  CHECK(r.spec.model_type == "qwen3_vl_moe_text");
  CHECK(r.spec.vision_model_type == "qwen3_vl_moe");
  const auto p = count_parameters(r.spec);
  // 48 x (q 2048 x 4096, k and v 2048 x 512, o 4096 x 2048, q/k RMSNorms 2 x 128, router
  // 2048 x 128, 128 experts of 3 x 2048 x 768, two RMSNorms) + untied embedding and head
  // 2 x 151936 x 2048 + final norm: the language-model GGUF's 30,532,122,624.
  const std::int64_t layer =
      2 * 2048LL * 4096 + 2 * 2048LL * 512 + 2 * 128 + 2048LL * 128 + 128 * 3 * 2048LL * 768 + 2 * 2048;
  const std::int64_t text = 48 * layer + 2 * 151936LL * 2048 + 2048;
  CHECK(text == 30532122624);
  CHECK(p.vision == records_a_qwen3_vl_tower(2048));
  CHECK(p.vision == 538631408);
  CHECK(p.total == text + p.vision);
  CHECK(p.total == r.published_parameters);  // 31,070,754,032
  // Per token: the language model less 120 of 128 experts in each of the 48 layers (the vision
  // tower runs on image tokens, not per generated token).
  CHECK(p.active == text - 48 * 120 * 3 * 2048LL * 768);
}

TEST_CASE("qwen3_vl record: Qwen3-VL-8B-Instruct is Qwen3-8B plus the vision tower, the Hub's 8,767,123,696",
          "[records_a]") {
  const auto& r = flopcast::find_model("qwen3-vl-8b-instruct");
  CHECK(r.family == "qwen3_vl");
  CHECK(r.spec.model_type == "qwen3_vl_text");
  const auto p = count_parameters(r.spec);
  // 36 x (q 4096 x 4096, k and v 4096 x 1024, o 4096 x 4096, q/k norms 2 x 128, 3 x 4096 x 12288,
  // two norms) + 2 x 151936 x 4096 + final norm: Qwen3-8B's 8,190,735,360.
  const std::int64_t layer = 2 * 4096LL * 4096 + 2 * 4096LL * 1024 + 2 * 128 + 3 * 4096LL * 12288 + 2 * 4096;
  const std::int64_t text = 36 * layer + 2 * 151936LL * 4096 + 4096;
  CHECK(text == 8190735360);
  CHECK(p.vision == records_a_qwen3_vl_tower(4096));
  CHECK(p.vision == 576388336);
  CHECK(p.total == text + p.vision);
  CHECK(p.total == 8767123696);
  CHECK(p.total == r.published_parameters);
  CHECK(p.active == text);  // the vision tower runs on image tokens, not per generated token
  // A vision_config that lists no DeepStack layers drops those three mergers.
  test::json c = test::json::parse(test::read_text("data/models/qwen3-vl-8b-instruct.json")).at("config");
  c["vision_config"]["deepstack_visual_indexes"] = test::json::array();
  const std::int64_t merged = 4 * 1152;
  CHECK(p.total - count_parameters(test::spec(c)).total ==
        3 * (2 * merged + (merged * merged + merged) + (merged * 4096 + 4096)));
  c["vision_config"]["depth"] = 0;
  CHECK_THROWS_WITH(test::spec(c), Catch::Contains("(/vision_config/depth)"));
}
