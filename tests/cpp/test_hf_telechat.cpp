// TeleChat (telechat): counts hand-computed from TeleChat2's layout (vLLM's telechat2.py, the
// weight map of the official TeleChat2-115B checkpoint) at the sizes of its published config.
#include <catch2/catch.hpp>

#include "helpers.hpp"

using flopcast::count_parameters;
using test::json;

TEST_CASE("telechat: TeleChat2-115B, biases on dense and down_proj only", "[hf_telechat]") {
  json c = {{"model_type", "telechat"},    {"hidden_size", 8192},      {"n_layer", 96},        {"n_head", 64},
            {"num_key_value_heads", 8},    {"ffn_hidden_size", 40960}, {"vocab_size", 131072}, {"seq_length", 8192},
            {"tie_word_embeddings", false}};
  const auto s = test::spec(c);
  CHECK(!s.attention.qkv_bias);
  CHECK(s.attention.o_bias);
  CHECK(s.mlp.gated);
  CHECK(!s.mlp.bias);
  CHECK(s.mlp.down_bias);
  CHECK(s.attention.num_kv_heads == 8);
  const auto p = count_parameters(s);
  // Per layer: query 8192^2, key_value 8192 x 2 x 8 x 128, dense 8192^2 + bias 8192, gate and up
  // 2 x 8192 x 40960, down 40960 x 8192 + bias 8192, two RMSNorms; word_embeddings and lm_head
  // 131072 x 8192; ln_f.
  const std::int64_t layer =
      8192LL * 8192 + 8192LL * 2048 + (8192LL * 8192 + 8192) + 2 * 8192LL * 40960 + (40960LL * 8192 + 8192) + 2 * 8192;
  CHECK(p.total == 96 * layer + 2 * 131072LL * 8192 + 8192);
  // The checkpoint's safetensors index: 453,131,665,408 bytes of float32.
  CHECK(p.total * 4 == 453131665408);
  CHECK(p.total == count_parameters(test::model("telechat2-115b")).total);
  // Without num_key_value_heads every head keeps its own key and value.
  c.erase("num_key_value_heads");
  CHECK(count_parameters(test::spec(c)).total - p.total == 96 * 2 * 8192LL * (8192 - 1024));
  // down_bias alone adds the hidden size per layer; the full mlp bias covers it.
  flopcast::model_spec both = s;
  both.mlp.bias = true;
  CHECK(count_parameters(both).total - p.total == 96 * 2 * 40960LL);
  c["num_key_value_heads"] = 7;
  CHECK_THROWS_WITH(test::spec(c), Catch::Contains("(/num_key_value_heads)"));
  c["num_key_value_heads"] = 8;
  c.erase("ffn_hidden_size");
  CHECK_THROWS_WITH(test::spec(c), Catch::Contains("ffn_hidden_size"));
}
