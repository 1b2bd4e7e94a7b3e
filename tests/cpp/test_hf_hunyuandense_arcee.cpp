// hunyuan_v1_dense and arcee: Llama's decoder with per-head q/k RMSNorms (Hunyuan's dense models)
// or an ungated up/down MLP (Arcee's AFM). Counts hand-computed from transformers'
// modeling_hunyuan_v1_dense.py and modular_arcee.py.
#include <catch2/catch.hpp>

#include "helpers.hpp"

using flopcast::count_parameters;
using test::json;

namespace {

// tencent/Hunyuan-7B-Instruct's sizing fields as a public TensorRT integration's test copies its
// config.json (32 layers of 4096, 32 query and 8 KV heads, MLP 14336, 128167 tokens).
json hunyuan_dense_arcee_test_hunyuan_7b() {
  return {{"model_type", "hunyuan_v1_dense"},
          {"architectures", {"HunYuanDenseV1ForCausalLM"}},
          {"num_hidden_layers", 32},
          {"hidden_size", 4096},
          {"intermediate_size", 14336},
          {"num_attention_heads", 32},
          {"num_key_value_heads", 8},
          {"vocab_size", 128167},
          {"max_position_embeddings", 262144},
          {"use_qk_norm", true},
          {"use_cla", false},
          {"rope_theta", 10000},
          {"rope_scaling", {{"type", "dynamic"}, {"alpha", 1000}, {"factor", 1}}}};
}

}  // namespace

TEST_CASE("hunyuan_v1_dense: Llama with per-head q/k RMSNorms, untied unless told", "[hf_hunyuandense_arcee]") {
  json c = hunyuan_dense_arcee_test_hunyuan_7b();
  const auto s = test::spec(c);
  CHECK(s.model_type == "hunyuan_v1_dense");
  CHECK(s.attention.num_kv_heads == 8);
  CHECK(s.attention.head_dim == 128);
  CHECK(s.attention.qk_norm);
  const auto p = count_parameters(s);
  // Per layer: q and o 4096^2, k and v 4096 x 1024, query_layernorm and key_layernorm 128 each,
  // gate/up/down 3 x 4096 x 14336, two RMSNorms; embedding and head 128167 x 4096; final norm.
  const std::int64_t layer = 2 * 4096LL * 4096 + 2 * 4096LL * 1024 + 2 * 128 + 3 * 4096LL * 14336 + 2 * 4096;
  CHECK(p.total == 32 * layer + 2 * 128167LL * 4096 + 4096);
  CHECK(p.total == 8029540352);
  CHECK(p.active == p.total);
  // The same sizes as Llama differ only by the two 128-wide norms per layer.
  json llama = c;
  llama["model_type"] = "llama";
  CHECK(p.total - count_parameters(test::spec(llama)).total == 32 * 2 * 128);
  c["tie_word_embeddings"] = true;
  CHECK(p.total - count_parameters(test::spec(c)).total == 128167LL * 4096);
  c["tie_word_embeddings"] = false;
  c["attention_bias"] = true;  // q, k, v and o biases
  CHECK(count_parameters(test::spec(c)).total - p.total == 32 * (4096 + 1024 + 1024 + 4096));
  c["attention_bias"] = false;
  c["use_qk_norm"] = false;
  CHECK(p.total - count_parameters(test::spec(c)).total == 32 * 2 * 128);

  json bad = hunyuan_dense_arcee_test_hunyuan_7b();
  bad["use_cla"] = true;
  CHECK_THROWS_WITH(test::spec(bad), Catch::Contains("(/use_cla)"));
  bad = hunyuan_dense_arcee_test_hunyuan_7b();
  bad["num_key_value_heads"] = 5;
  CHECK_THROWS_WITH(test::spec(bad), Catch::Contains("(/num_key_value_heads)"));
  bad = hunyuan_dense_arcee_test_hunyuan_7b();
  bad["intermediate_size"] = 0;
  CHECK_THROWS_WITH(test::spec(bad), Catch::Contains("(/intermediate_size)"));
}

TEST_CASE("arcee: Llama's attention and an ungated relu2 up/down MLP", "[hf_hunyuandense_arcee]") {
  // ArceeConfig's defaults ("AFM-4.5B-Base style"): 32 layers of 2560, 32 heads, MLP 18432,
  // 32000 tokens, untied.
  json c = {{"model_type", "arcee"},       {"hidden_size", 2560},       {"intermediate_size", 18432},
            {"num_hidden_layers", 32},     {"num_attention_heads", 32}, {"vocab_size", 32000},
            {"tie_word_embeddings", false}};
  const auto s = test::spec(c);
  CHECK(!s.mlp.gated);
  CHECK(s.mlp.activation == "relu2");  // ArceeConfig's hidden_act default
  const auto p = count_parameters(s);
  // Per layer: q, k, v, o 2560^2; up and down 2 x 2560 x 18432; two RMSNorms; embedding and head
  // 32000 x 2560; final norm.
  const std::int64_t layer = 4 * 2560LL * 2560 + 2 * 2560LL * 18432 + 2 * 2560;
  CHECK(p.total == 32 * layer + 2 * 32000LL * 2560 + 2560);
  // A gated Llama of the same sizes has the third projection.
  json llama = c;
  llama["model_type"] = "llama";
  CHECK(count_parameters(test::spec(llama)).total - p.total == 32 * 2560LL * 18432);
  c["mlp_bias"] = true;  // up (18432) and down (2560)
  CHECK(count_parameters(test::spec(c)).total - p.total == 32 * (18432 + 2560));
  c["mlp_bias"] = false;
  c["attention_bias"] = true;
  CHECK(count_parameters(test::spec(c)).total - p.total == 32 * 4 * 2560);
  c["attention_bias"] = false;
  c["hidden_act"] = "silu";
  CHECK(test::spec(c).mlp.activation == "silu");

  json bad = c;
  bad["num_attention_heads"] = 7;  // no head_dim: must divide 2560
  CHECK_THROWS_WITH(test::spec(bad), Catch::Contains("(/num_attention_heads)"));
}
