// BitNet b1.58: Llama's modules plus attn_sub_norm (hidden width) and ffn_sub_norm (intermediate
// width), hand-counted from modeling_bitnet.py at bitnet-b1.58-2B-4T's sizes.
#include <catch2/catch.hpp>

#include "helpers.hpp"

using flopcast::count_parameters;
using test::json;

TEST_CASE("bitnet: the sub-norms on top of a tied Llama, and their FLOPs") {
  const flopcast::model_spec& m = test::model("microsoft/bitnet-b1.58-2B-4T");
  const auto p = count_parameters(m);
  // Per layer: q, o 2560^2; k, v 2560 x 640 (5 KV heads of 128); gate, up, down 2560 x 6912;
  // input/post-attention norms 2 x 2560, attn_sub_norm 2560, ffn_sub_norm 6912.
  const std::int64_t layer = 2 * 2560LL * 2560 + 2 * 2560LL * 640 + 3 * 2560LL * 6912 + 3 * 2560 + 6912;
  CHECK(p.norm == 30 * (3 * 2560 + 6912) + 2560);
  // 30 x 69,482,752 + final norm + 128256 x 2560 (tied) = the GGUF's 2,412,820,480.
  CHECK(p.total == 30 * layer + 2560 + 128256LL * 2560);
  CHECK(p.total == 2412820480);
  CHECK(m.mlp.activation == "relu2");

  // The same config read as llama lacks exactly the sub-norms' weights and their 4 FLOPs per element.
  json c = {{"model_type", "bitnet"},    {"hidden_size", 2560},        {"intermediate_size", 6912},
            {"num_attention_heads", 20}, {"num_key_value_heads", 5},   {"num_hidden_layers", 30},
            {"vocab_size", 128256},      {"tie_word_embeddings", true}};
  json llama = c;
  llama["model_type"] = "llama";
  CHECK(count_parameters(test::spec(c)).total - count_parameters(test::spec(llama)).total == 30 * (2560 + 6912));
  const double f = flopcast::forward_flops(test::spec(c), 1, 1, true).parts.norm;
  const double g = flopcast::forward_flops(test::spec(llama), 1, 1, true).parts.norm;
  CHECK(f - g == Approx(30 * 4.0 * (2560 + 6912)));
}
