// Mellum 2, Apertus and MiMo: published counts and the structure behind them, summed by hand
// from transformers' modular_mellum.py (Qwen3-MoE attention and sparse blocks, Laguna's decoder
// layer), modular_apertus.py (Nemotron-style up/down MLP with xIELU, per-head q/k norms) and
// vLLM's mimo.py / mimo_mtp.py (Qwen2 layers; MTP modules of norms, input_proj and one layer).
#include <catch2/catch.hpp>

#include "flopcast/flopcast.hpp"
#include "helpers.hpp"

using flopcast::count_parameters;
using test::json;

TEST_CASE("mellum: Qwen3-MoE layers, 3 sliding to 1 full; Mellum2.1 12B-A2.5B exact") {
  const auto m = test::model("JetBrains/Mellum2.1-12B-A2.5B-Thinking");
  CHECK(m.attention.qk_norm);
  CHECK_FALSE(m.attention.qkv_bias);
  CHECK_FALSE(m.tie_word_embeddings);
  CHECK(m.moe.num_experts == 64);
  CHECK(m.moe.experts_per_token == 8);
  CHECK(m.moe.shared_intermediate_size == 0);
  REQUIRE(m.layer_group_of.size() == 28);
  std::int64_t sliding = 0;
  for (std::size_t i = 0; i < 28; ++i) {
    const auto& g = m.groups[m.layer_group_of[i]];
    CHECK(g.moe);
    CHECK(g.window == (i % 4 == 3 ? 0 : 1024));
    sliding += g.window > 0 ? 1 : 0;
  }
  CHECK(sliding == 21);
  const auto p = count_parameters(m);
  // Per layer: q 2304x4096, k and v 2304x512, o 4096x2304 = 21,233,664; q/k norms 2 x 128;
  // router 2304 x 64; 64 experts of 3 x 2304 x 896; two norms of 2304.
  const std::int64_t attn = 2304LL * (4096 + 2 * 512) + 4096LL * 2304 + 2 * 128;
  const std::int64_t expert = 3LL * 2304 * 896;
  const std::int64_t layer = attn + 2304LL * 64 + 64 * expert + 2 * 2304;
  CHECK(p.per_layer[0] == layer);
  // 28 layers + embedding and head 2 x 98304 x 2304 + final norm = 12,149,923,072 (published,
  // with the same breakdown: experts 28 x 64 x expert = 11,098,128,384).
  CHECK(28 * 64 * expert == 11098128384);
  CHECK(p.total == 28 * layer + 2LL * 98304 * 2304 + 2304);
  CHECK(p.total == 12149923072);
  // A token runs 8 of the 64 experts.
  CHECK(p.active == p.total - 28 * 56 * expert);

  // A dense layer (mlp_layer_types) has a gated MLP of intermediate_size instead of the experts.
  json c = json::parse(test::read_text("data/models/mellum2.1-12b-a2.5b-thinking.json"))["config"];
  c["mlp_layer_types"][0] = "dense";
  const auto d = count_parameters(test::spec(c));
  CHECK(d.total - p.total == 3LL * 2304 * 7168 - (2304LL * 64 + 64 * expert));
  c["mlp_layer_types"][0] = "moe";
  CHECK_THROWS_WITH(test::spec(c), Catch::Contains("(/mlp_layer_types/0)"));
}

TEST_CASE("apertus: plain xIELU MLP with four stored scalars, q/k norms; Apertus 8B exact") {
  const auto m = test::model("swiss-ai/Apertus-8B-Instruct-2509");
  CHECK_FALSE(m.mlp.gated);
  CHECK_FALSE(m.mlp.bias);
  CHECK(m.mlp.activation == "xielu");
  CHECK(m.mlp.activation_params == 4);
  CHECK(m.attention.qk_norm);
  CHECK_FALSE(m.tie_word_embeddings);
  const auto p = count_parameters(m);
  // Per layer: q and o 4096x4096, k and v 4096x1024; q/k norms 2 x 128; up and down
  // 2 x 4096 x 21504; attention_layernorm and feedforward_layernorm of 4096; xIELU alpha_p,
  // alpha_n, beta, eps.
  const std::int64_t layer = 2LL * 4096 * 4096 + 2LL * 4096 * 1024 + 2 * 128 + 2LL * 4096 * 21504 + 2 * 4096 + 4;
  CHECK(p.per_layer[0] == layer);
  // 32 layers + embedding and head 2 x 131072 x 4096 + final norm = 8,053,338,240 (published).
  CHECK(p.total == 32 * layer + 2LL * 131072 * 4096 + 4096);
  CHECK(p.total == 8053338240);
  // Another activation keeps no scalars.
  json c = json::parse(test::read_text("data/models/apertus-8b-instruct-2509.json"))["config"];
  c["hidden_act"] = "relu2";
  CHECK(count_parameters(test::spec(c)).total == p.total - 32 * 4);
}

TEST_CASE("mimo: Qwen2 layers plus one MTP module in the weights, not per token; MiMo-7B-RL to 7.83B") {
  const auto m = test::model("XiaomiMiMo/MiMo-7B-RL");
  CHECK(m.attention.qkv_bias);
  CHECK_FALSE(m.attention.o_bias);
  CHECK_FALSE(m.tie_word_embeddings);
  CHECK(m.mtp_layers == 1);
  const auto p = count_parameters(m);
  // Per layer: q and o 4096x4096, k and v 4096x1024, q/k/v biases 4096 + 2 x 1024; MLP
  // 3 x 4096 x 11008; two norms of 4096.
  const std::int64_t layer = 2LL * 4096 * 4096 + 2LL * 4096 * 1024 + (4096 + 2048) + 3LL * 4096 * 11008 + 2 * 4096;
  CHECK(p.per_layer[0] == layer);
  // The MTP module: one such layer, token_layernorm, hidden_layernorm, input_proj 8192 -> 4096 and
  // final_layernorm = 210,790,400.
  const std::int64_t mtp = layer + 2LL * 4096 * 4096 + 3 * 4096;
  CHECK(mtp == 210790400);
  const std::int64_t main_stack = 36 * layer + 2LL * 151680 * 4096 + 4096;
  CHECK(main_stack == 7622619136);
  // The Hub's 7.83B counts the MTP module: 7,833,409,536; the main stack alone would be 7.62B.
  CHECK(p.total == main_stack + mtp);
  CHECK(p.total == 7833409536);
  CHECK(p.active == main_stack);
  CHECK(p.embedding + p.attention + p.mlp + p.norm + p.output_head + p.mixer + p.vision == p.total);
  json c = json::parse(test::read_text("data/models/mimo-7b-rl.json"))["config"];
  c["num_nextn_predict_layers"] = 0;
  CHECK(count_parameters(test::spec(c)).total == main_stack);
  c["num_nextn_predict_layers"] = -1;
  CHECK_THROWS_WITH(test::spec(c), Catch::Contains("(/num_nextn_predict_layers)"));
}
