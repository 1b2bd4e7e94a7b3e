// The Qwen3-VL wrappers: their text_config (qwen3_vl_text, qwen3_vl_moe_text) counts as Qwen3 /
// Qwen3-MoE; vision.cpp counts the vision tower (the bundled records check it against published
// totals in test_hf_ernie45moe_qwen3vl_records.cpp).
#include <catch2/catch.hpp>

#include "helpers.hpp"

using flopcast::count_parameters;
using test::json;

TEST_CASE("qwen3_vl: the text model through the wrapper path, tying from the wrapper") {
  // Qwen/Qwen3-VL-8B-Instruct's text sizes.
  json text = {
      {"model_type", "qwen3_vl_text"},
      {"hidden_size", 4096},
      {"intermediate_size", 12288},
      {"num_hidden_layers", 36},
      {"num_attention_heads", 32},
      {"num_key_value_heads", 8},
      {"head_dim", 128},
      {"vocab_size", 151936},
      {"rope_scaling", {{"mrope_interleaved", true}, {"mrope_section", {24, 20, 20}}, {"rope_type", "default"}}}};
  json wrapper = {{"model_type", "qwen3_vl"},
                  {"tie_word_embeddings", false},
                  {"text_config", text},
                  {"vision_config", {{"model_type", "qwen3_vl"}, {"depth", 27}, {"hidden_size", 1152}}}};
  const flopcast::model_spec m = test::spec(wrapper);
  const auto p = count_parameters(m);
  // 36 x (q 4096 x 4096, k and v 4096 x 1024, o 4096 x 4096, q/k norms 2 x 128, 3 x 4096 x 12288,
  // 2 norms) + 2 x 151936 x 4096 + final norm: Qwen3-8B's layout.
  const std::int64_t layer = 2 * 4096LL * 4096 + 2 * 4096LL * 1024 + 2 * 128 + 3 * 4096LL * 12288 + 2 * 4096;
  CHECK(p.total - p.vision == 36 * layer + 2 * 151936LL * 4096 + 4096);
  CHECK(p.vision > 0);  // Qwen3VLVisionConfig's defaults for the fields this vision_config leaves out
  CHECK(m.vision_model_type == "qwen3_vl");
  json qwen3 = text;
  qwen3["model_type"] = "qwen3";
  CHECK(count_parameters(test::spec(qwen3)).total == p.total - p.vision);
  // The small Qwen3-VL models tie the head on the wrapper.
  wrapper["tie_word_embeddings"] = true;
  CHECK(p.total - count_parameters(test::spec(wrapper)).total == 151936LL * 4096);
  // A text_config without model_type is the wrapper's text model.
  wrapper["text_config"].erase("model_type");
  CHECK(count_parameters(test::spec(wrapper)).total == p.total - 151936LL * 4096);
}

TEST_CASE("qwen3_vl_moe: routed experts of Qwen3-MoE") {
  // Qwen/Qwen3-VL-30B-A3B-Instruct's text sizes: 48 layers, 128 experts of 768, top 8.
  json text = {{"model_type", "qwen3_vl_moe_text"}, {"hidden_size", 2048},     {"intermediate_size", 6144},
               {"moe_intermediate_size", 768},      {"num_experts", 128},      {"num_experts_per_tok", 8},
               {"decoder_sparse_step", 1},          {"num_hidden_layers", 48}, {"num_attention_heads", 32},
               {"num_key_value_heads", 4},          {"head_dim", 128},         {"vocab_size", 151936}};
  const json wrapper = {{"model_type", "qwen3_vl_moe"}, {"tie_word_embeddings", false}, {"text_config", text}};
  const auto p = count_parameters(test::spec(wrapper));
  json moe = text;
  moe["model_type"] = "qwen3_moe";
  CHECK(count_parameters(test::spec(moe)).total == p.total);
  CHECK(p.total - p.active == 48 * 120 * 3 * 2048LL * 768);
}
