// Vision towers and projectors of multimodal wrappers (vision.cpp): published figures for each
// tower, the bundled multimodal records, and how config fields move the count.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>

#include "helpers.hpp"

using flopcast::count_parameters;
using i64 = std::int64_t;

namespace {

// The text model's count: total less the vision part, whether or not count_parameters has
// folded vision_parameters into its total yet.
i64 text_total(const flopcast::model_spec& m) {
  const auto p = count_parameters(m);
  return p.total - p.vision;
}

// `x` written with `digits` significant digits equals `published`.
bool rounds_to(i64 x, double published, int digits) {
  const double unit = std::pow(10.0, std::floor(std::log10(published)) - digits + 1);
  return std::fabs(static_cast<double>(x) - published) <= 0.5 * unit;
}

// SigLIP So400m as Gemma 3 configures it (google/gemma-3-4b-it config.json vision_config).
test::json gemma3_wrapper() {
  return {
      {"model_type", "gemma3"},
      {"mm_tokens_per_image", 256},
      {"text_config",
       {{"model_type", "gemma3_text"}, {"hidden_size", 2560}, {"intermediate_size", 10240}, {"num_hidden_layers", 34}}},
      {"vision_config",
       {{"model_type", "siglip_vision_model"},
        {"hidden_size", 1152},
        {"image_size", 896},
        {"intermediate_size", 4304},
        {"num_attention_heads", 16},
        {"num_hidden_layers", 27},
        {"patch_size", 14},
        {"vision_use_head", false}}}};
}

// A LLaVA-1.5 wrapper around a CLIP tower (llava-hf/llava-1.5-7b-hf's fields).
test::json llava_wrapper(i64 image_size) {
  return {{"model_type", "llava"},
          {"text_config", {{"model_type", "llama"}, {"vocab_size", 32064}}},
          {"vision_config",
           {{"model_type", "clip_vision_model"},
            {"hidden_size", 1024},
            {"image_size", image_size},
            {"intermediate_size", 4096},
            {"num_attention_heads", 16},
            {"num_hidden_layers", 24},
            {"patch_size", 14},
            {"projection_dim", 768}}},
          {"vision_feature_layer", -2}};
}

// LlavaMultiModalProjector (mlp2x_gelu): linear_1 1024 -> 4096 and linear_2 4096 -> 4096, biased.
constexpr i64 llava_7b_projector = 1024 * 4096 + 4096 + 4096 * 4096 + 4096;

// Qwen2-VL-7B-Instruct's config.json: a Qwen2-7B text model at the top level, the ViT in
// vision_config (no model_type there).
test::json qwen2_vl_7b() {
  return {{"model_type", "qwen2_vl"},
          {"hidden_size", 3584},
          {"intermediate_size", 18944},
          {"num_attention_heads", 28},
          {"num_hidden_layers", 28},
          {"num_key_value_heads", 4},
          {"vocab_size", 152064},
          {"tie_word_embeddings", false},
          {"vision_config",
           {{"depth", 32},
            {"embed_dim", 1280},
            {"mlp_ratio", 4},
            {"num_heads", 16},
            {"in_chans", 3},
            {"hidden_size", 3584},
            {"patch_size", 14},
            {"spatial_merge_size", 2},
            {"spatial_patch_size", 14},
            {"temporal_patch_size", 2}}}};
}

// Llama 4 Scout's vision_config fields (meta-llama/Llama-4-Scout-17B-16E-Instruct), under a
// small Llama text model so that this test does not depend on the llama4_text reader.
test::json llama4_wrapper() {
  test::json text = test::llama_config();
  text["hidden_size"] = 5120;
  text["num_attention_heads"] = 40;
  text["num_key_value_heads"] = 8;
  text["num_hidden_layers"] = 1;
  return {{"model_type", "llama4"},
          {"text_config", text},
          {"vision_config",
           {{"model_type", "llama4_vision_model"},
            {"hidden_size", 1408},
            {"image_size", 336},
            {"intermediate_size", 5632},
            {"num_attention_heads", 16},
            {"num_channels", 3},
            {"num_hidden_layers", 34},
            {"patch_size", 14},
            {"pixel_shuffle_ratio", 0.5},
            {"projector_input_dim", 4096},
            {"projector_output_dim", 4096},
            {"vision_output_dim", 4096}}}};
}

}  // namespace

TEST_CASE("vision: bundled multimodal records match their published totals, text plus vision") {
  struct ref {
    const char* id;
    i64 published;  // sources in each data/models record
  };
  const ref refs[] = {
      {"google/gemma-3-4b-it", 4300079472},        {"google/gemma-3-12b-it", 12187325040},
      {"google/gemma-3-27b-it", 27432406640},      {"Qwen/Qwen2.5-VL-3B-Instruct", 3754622976},
      {"Qwen/Qwen2.5-VL-7B-Instruct", 8292166656}, {"mistralai/Mistral-Small-3.1-24B-Instruct-2503", 24011361280},
      {"llava-hf/llava-1.5-7b-hf", 7063427072},
  };
  for (const auto& r : refs) {
    INFO(r.id);
    const auto& m = test::model(r.id);
    CHECK(m.vision_parameters > 0);
    CHECK(text_total(m) + m.vision_parameters == r.published);
  }
  // Qwen2.5-VL-72B-Instruct: the Hub's "73.4B params".
  const auto& big = test::model("Qwen/Qwen2.5-VL-72B-Instruct");
  CHECK(rounds_to(text_total(big) + big.vision_parameters, 73.4e9, 3));
}

TEST_CASE("vision: the Gemma 3 SigLIP encoder has the 417M of the Gemma 3 report") {
  // Gemma 3 Technical Report (arXiv:2503.19786) Table 1: vision encoder 417M for 4B, 12B and
  // 27B. The projector (mm_input_projection_weight 1152 x text hidden, mm_soft_emb_norm 1152)
  // comes on top and grows with the text model.
  const struct {
    const char* id;
    i64 text_hidden;
    i64 non_embedding_m;  // Table 1, millions
  } sizes[] = {{"google/gemma-3-4b-it", 2560, 3209},
               {"google/gemma-3-12b-it", 3840, 10759},
               {"google/gemma-3-27b-it", 5376, 25600}};
  for (const auto& s : sizes) {
    INFO(s.id);
    const auto& m = test::model(s.id);
    CHECK(m.vision_model_type == "siglip_vision_model");
    const i64 encoder = m.vision_parameters - (1152 * s.text_hidden + 1152);
    CHECK(rounds_to(encoder, 417e6, 3));
    // Table 1's non-embedding count is the text model less its (tied) embedding table.
    const auto p = count_parameters(m);
    CHECK(rounds_to(text_total(m) - p.embedding, static_cast<double>(s.non_embedding_m) * 1e6,
                    s.non_embedding_m >= 10000 ? 5 : 4));
  }
}

TEST_CASE("vision: Qwen2-VL's ViT has the 675M of the Qwen2-VL paper") {
  // Qwen2-VL paper (arXiv:2409.12191), Table 1: the vision encoder has 675M parameters, the
  // same for 2B, 7B and 72B (the printed figure is truncated: 675.8M reads as 675M there).
  const auto m = test::spec(qwen2_vl_7b());
  CHECK(m.model_type == "qwen2_vl");
  CHECK(m.vision_model_type == "qwen2_vl");
  CHECK(m.vision_parameters >= 675000000);
  CHECK(m.vision_parameters < 676000000);
  // The text part has Qwen2-7B's shapes: 7,615,616,512 (the Hub's safetensors total for
  // Qwen/Qwen2-7B and Qwen/Qwen2.5-7B, bundled records).
  CHECK(text_total(m) == 7615616512);
}

TEST_CASE("vision: Qwen2.5-VL-7B splits into the published visual and language parts") {
  // A public parameter printout of Qwen2_5_VLForConditionalGeneration loaded from
  // Qwen/Qwen2.5-VL-7B-Instruct: visual 676,550,144 of 8,292,166,656.
  const auto& m = test::model("Qwen/Qwen2.5-VL-7B-Instruct");
  CHECK(m.vision_parameters == 676550144);
  CHECK(text_total(m) == 8292166656 - 676550144);
  CHECK(m.attention.qkv_bias);  // read as Qwen2
  CHECK_FALSE(m.tie_word_embeddings);
}

TEST_CASE("vision: CLIP ViT-L/14 has OpenAI CLIP's 303.97M image tower") {
  // open_clip's model profile (docs/model_profile.csv, ViT-L-14 at 224): image_mparams 303.97,
  // which includes the visual projection (width 1024 x embed_dim 768) that LLaVA does not load.
  const auto m = test::spec(llava_wrapper(224));
  CHECK(m.vision_model_type == "clip_vision_model");
  const i64 tower = m.vision_parameters - llava_7b_projector;
  CHECK(rounds_to(tower + 1024 * 768, 303.97e6, 5));
  // LLaVA-1.5 uses the 336-pixel tower: 24 x 24 patches instead of 16 x 16, one position each
  // (plus the class position in both).
  const auto big = test::spec(llava_wrapper(336));
  CHECK(big.vision_parameters - m.vision_parameters == (576 - 256) * 1024);
}

TEST_CASE("vision: LLaVA counts every CLIP layer the checkpoint holds") {
  // vision_feature_layer -2 reads the penultimate layer, but llava-1.5-7b-hf stores all 24
  // layers and post_layernorm (its published total needs them): the count does not drop any.
  auto c = llava_wrapper(336);
  const auto base = test::spec(c).vision_parameters;
  c["vision_feature_layer"] = -1;
  CHECK(test::spec(c).vision_parameters == base);
  // A list of feature layers concatenates them: linear_1's input widens by one tower width.
  c["vision_feature_layer"] = test::json::array({-2, -5});
  CHECK(test::spec(c).vision_parameters - base == 1024 * 4096);
  // multimodal_projector_bias false drops linear_1's and linear_2's biases.
  c["vision_feature_layer"] = -2;
  c["multimodal_projector_bias"] = false;
  CHECK(base - test::spec(c).vision_parameters == 2 * 4096);
}

TEST_CASE("vision: a partial LLaVA text_config takes LlamaConfig's defaults") {
  const auto& m = test::model("llava-hf/llava-1.5-7b-hf");
  CHECK(m.hidden_size == 4096);
  CHECK(m.num_layers == 32);
  CHECK(m.mlp.intermediate_size == 11008);
  CHECK(m.attention.num_kv_heads == 32);
  CHECK(m.vocab_size == 32064);
  // Vicuna-7B (Llama 2 shapes) with 64 extra rows in both tables: Llama-2-7B's published
  // 6,738,415,616 plus 2 x 64 x 4096.
  CHECK(text_total(m) == 6738415616 + 2 * 64 * 4096);
  CHECK(m.vision_parameters == 303507456 + llava_7b_projector);
}

TEST_CASE("vision: Pixtral-12B's encoder has its published 400M") {
  // Pixtral 12B (mistralai, arXiv:2410.07073): "a new 400M parameter vision encoder".
  // mistral-community/pixtral-12b's vision_config: 24 layers of width 1024, 16-pixel patches.
  const test::json c = {{"model_type", "mistral3"},
                        {"text_config",
                         {{"model_type", "mistral"},
                          {"hidden_size", 5120},
                          {"intermediate_size", 14336},
                          {"num_attention_heads", 32},
                          {"num_key_value_heads", 8},
                          {"head_dim", 128},
                          {"num_hidden_layers", 40},
                          {"vocab_size", 131072}}},
                        {"vision_config",
                         {{"model_type", "pixtral"},
                          {"hidden_size", 1024},
                          {"image_size", 1024},
                          {"intermediate_size", 4096},
                          {"num_attention_heads", 16},
                          {"num_hidden_layers", 24},
                          {"patch_size", 16}}}};
  const auto m = test::spec(c);
  // Mistral3MultiModalProjector: norm 1024, merging_layer 4096 x 1024, linear_1 1024 x 5120,
  // linear_2 5120 x 5120 (multimodal_projector_bias defaults to false).
  const i64 projector = 1024 + 4096 * 1024 + 1024 * 5120 + 5120 * 5120;
  CHECK(rounds_to(m.vision_parameters - projector, 400e6, 2));
  // RoPE-2D: image_size moves nothing; 14-pixel patches shrink only the patch convolution.
  auto c2 = c;
  c2["vision_config"]["image_size"] = 1540;
  CHECK(test::spec(c2).vision_parameters == m.vision_parameters);
  c2["vision_config"]["patch_size"] = 14;
  CHECK(m.vision_parameters - test::spec(c2).vision_parameters == 1024 * 3 * (256 - 196));
}

TEST_CASE("vision: SigLIP structure follows the config") {
  const auto base = test::spec(gemma3_wrapper());
  SECTION("a larger image_size changes only the position table") {
    auto c = gemma3_wrapper();
    c["vision_config"]["image_size"] = 448;
    const auto small = test::spec(c);
    CHECK(base.vision_parameters - small.vision_parameters == (64 * 64 - 32 * 32) * 1152);
    CHECK(text_total(small) == text_total(base));
  }
  SECTION("one more layer adds one layer's weights") {
    auto c = gemma3_wrapper();
    c["vision_config"]["num_hidden_layers"] = 28;
    const i64 layer = 4 * (1152 * 1152 + 1152) + 1152 * 4304 + 4304 + 4304 * 1152 + 1152 + 4 * 1152;
    CHECK(test::spec(c).vision_parameters - base.vision_parameters == layer);
  }
  SECTION("vision_use_head adds the attention-pooling head") {
    auto c = gemma3_wrapper();
    c["vision_config"]["vision_use_head"] = true;
    // probe, in_proj (3h x h + 3h), out_proj, LayerNorm, MLP.
    const i64 head =
        1152 + 3 * 1152 * 1152 + 3 * 1152 + 1152 * 1152 + 1152 + 2 * 1152 + 1152 * 4304 + 4304 + 4304 * 1152 + 1152;
    CHECK(test::spec(c).vision_parameters - base.vision_parameters == head);
  }
  SECTION("the Gemma 3 projector follows the text width") {
    auto c = gemma3_wrapper();
    c["text_config"]["hidden_size"] = 3840;
    c["text_config"]["intermediate_size"] = 15360;
    CHECK(test::spec(c).vision_parameters - base.vision_parameters == 1152 * (3840 - 2560));
  }
  SECTION("PaliGemma projects with a biased Linear to projection_dim") {
    auto c = gemma3_wrapper();
    c["model_type"] = "paligemma";
    c["text_config"] = {{"model_type", "gemma"},    {"hidden_size", 2048},      {"intermediate_size", 16384},
                        {"num_attention_heads", 8}, {"num_key_value_heads", 1}, {"num_hidden_layers", 18},
                        {"vocab_size", 257216}};
    c["vision_config"]["projection_dim"] = 2048;
    const i64 gemma3_projector = 1152 * 2560 + 1152;
    CHECK(test::spec(c).vision_parameters - (base.vision_parameters - gemma3_projector) == 1152 * 2048 + 2048);
  }
}

TEST_CASE("vision: Qwen2.5-VL structure follows the config") {
  auto c = qwen2_vl_7b();
  c["model_type"] = "qwen2_5_vl";
  c["vision_config"] = {{"depth", 32},
                        {"hidden_size", 1280},
                        {"intermediate_size", 3420},
                        {"num_heads", 16},
                        {"in_chans", 3},
                        {"out_hidden_size", 3584},
                        {"patch_size", 14},
                        {"spatial_merge_size", 2},
                        {"temporal_patch_size", 2},
                        {"window_size", 112},
                        {"fullatt_block_indexes", {7, 15, 23, 31}}};
  const auto m = test::spec(c);
  CHECK(m.vision_parameters == 676550144);  // the same tower as Qwen2.5-VL-7B-Instruct
  // Newer saves nest the text model under text_config: the same count.
  test::json nested = {{"model_type", "qwen2_5_vl"}, {"vision_config", c["vision_config"]}};
  test::json text = c;
  text.erase("vision_config");
  text["model_type"] = "qwen2_5_vl_text";
  nested["text_config"] = text;
  const auto n = test::spec(nested);
  CHECK(n.vision_parameters == m.vision_parameters);
  CHECK(text_total(n) == text_total(m));
  // out_hidden_size sets only the merger's last Linear.
  c["vision_config"]["out_hidden_size"] = 2048;
  CHECK(m.vision_parameters - test::spec(c).vision_parameters == 5120 * (3584 - 2048) + (3584 - 2048));
}

TEST_CASE("vision: Llama 4's vision encoder and projector") {
  const auto m = test::spec(llama4_wrapper());
  CHECK(m.vision_model_type == "llama4_vision_model");
  // Llama4VisionModel: unfold linear 588 x 1408, class embedding, 577 positions, two
  // LayerNorms, 34 biased layers, the pixel-shuffle MLP (5632 x 4096, 4096 x 4096); then
  // Llama4MultiModalProjector 4096 x 5120.
  const i64 layer = 4 * (1408 * 1408 + 1408) + 1408 * 5632 + 5632 + 5632 * 1408 + 1408 + 4 * 1408;
  const i64 encoder = 588 * 1408 + 1408 + 577 * 1408 + 4 * 1408 + 34 * layer + 5632 * 4096 + 4096 * 4096;
  CHECK(m.vision_parameters == encoder + 4096 * 5120);
  auto c = llama4_wrapper();
  c["vision_config"].erase("vision_output_dim");
  try {
    (void)test::spec(c);
    FAIL("expected an error");
  } catch (const flopcast::error& e) {
    CHECK(e.pointer() == "/vision_config/vision_output_dim");
    CHECK(e.code() == flopcast::error_code::config_missing);
  }
}

TEST_CASE("vision: unknown towers and projectors are recorded, not counted") {
  SECTION("an unknown vision model_type") {
    auto c = llava_wrapper(336);
    c["vision_config"]["model_type"] = "intern_vit_6b";
    const auto m = test::spec(c);
    CHECK(m.vision_parameters == 0);
    CHECK(m.vision_model_type == "intern_vit_6b");
    CHECK(m.hidden_size == 4096);  // the text model is still read
  }
  SECTION("a known tower under a wrapper whose projector is unknown") {
    auto c = llava_wrapper(336);
    c["model_type"] = "some_new_vlm";
    const auto m = test::spec(c);
    CHECK(m.vision_parameters == 0);
    CHECK(m.vision_model_type == "clip_vision_model");
  }
  SECTION("no vision_config") {
    auto c = llava_wrapper(336);
    c.erase("vision_config");
    const auto m = test::spec(c);
    CHECK(m.vision_parameters == 0);
    CHECK(m.vision_model_type.empty());
  }
  SECTION("a text-only model") {
    CHECK(test::model("Qwen/Qwen2.5-7B").vision_parameters == 0);
    CHECK(test::model("Qwen/Qwen2.5-7B").vision_model_type.empty());
  }
}

TEST_CASE("vision: a malformed vision_config gives an error pointing into it") {
  const auto fails_at = [](const test::json& c, const std::string& pointer, flopcast::error_code code) {
    try {
      (void)test::spec(c);
      FAIL("expected an error at " << pointer);
    } catch (const flopcast::error& e) {
      CHECK(e.pointer() == pointer);
      CHECK(e.code() == code);
    }
  };
  auto c = gemma3_wrapper();
  c["vision_config"]["hidden_size"] = "1152";
  fails_at(c, "/vision_config/hidden_size", flopcast::error_code::config_type);
  c = gemma3_wrapper();
  c["vision_config"]["num_hidden_layers"] = 0;
  fails_at(c, "/vision_config/num_hidden_layers", flopcast::error_code::config_range);
  c = gemma3_wrapper();
  c["vision_config"]["num_attention_heads"] = 0;
  fails_at(c, "/vision_config/num_attention_heads", flopcast::error_code::config_range);
  c = gemma3_wrapper();
  c["vision_config"]["patch_size"] = 1000;
  fails_at(c, "/vision_config/patch_size", flopcast::error_code::config_range);
  c = gemma3_wrapper();
  c["vision_config"]["vision_use_head"] = "no";
  fails_at(c, "/vision_config/vision_use_head", flopcast::error_code::config_type);
  c = gemma3_wrapper();
  c["vision_config"] = test::json::array({1, 2});
  fails_at(c, "/vision_config", flopcast::error_code::config_type);
  auto q = qwen2_vl_7b();
  q["vision_config"]["depth"] = -1;
  fails_at(q, "/vision_config/depth", flopcast::error_code::config_range);
  q = qwen2_vl_7b();
  q["vision_config"]["mlp_ratio"] = "4";
  fails_at(q, "/vision_config/mlp_ratio", flopcast::error_code::config_type);
  auto l = llava_wrapper(336);
  l["vision_feature_layer"] = test::json::array();
  fails_at(l, "/vision_feature_layer", flopcast::error_code::config_range);
}
