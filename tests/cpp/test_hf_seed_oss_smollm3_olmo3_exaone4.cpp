// Seed-OSS, SmolLM3, OLMo 3 and EXAONE 4.0: published counts and the structure behind them.
// Each count is summed by hand from the family's modeling code (transformers
// modeling_seed_oss.py, modeling_smollm3.py, modeling_olmo3.py, modular_exaone4.py).
#include <catch2/catch.hpp>

#include "flopcast/flopcast.hpp"
#include "helpers.hpp"

using flopcast::count_parameters;
using test::json;

namespace {
// The config.json of a bundled record (data/models/<file>), to vary one field at a time.
json seed_smol_olmo_exaone_config(const std::string& file) {
  return json::parse(test::read_text("data/models/" + file))["config"];
}
}  // namespace

TEST_CASE("seed_oss: q/k/v biases, no o or MLP bias, untied; Seed-OSS-36B exact") {
  const auto m = test::model("ByteDance-Seed/Seed-OSS-36B-Instruct");
  CHECK(m.attention.qkv_bias);
  CHECK_FALSE(m.attention.o_bias);
  CHECK_FALSE(m.mlp.bias);
  CHECK_FALSE(m.tie_word_embeddings);
  const auto p = count_parameters(m);
  // Per layer: q 5120x10240 and o 10240x5120, k and v 5120x1024 each, biases 10240 + 1024 + 1024;
  // MLP 3 x 5120 x 27648; two RMSNorms of 5120.
  const std::int64_t layer = 2LL * 5120 * 10240 + 2LL * 5120 * 1024 + (10240 + 2048) + 3LL * 5120 * 27648 + 2 * 5120;
  CHECK(p.per_layer[0] == layer);
  // 64 layers + embedding and head 2 x 155136 x 5120 + final norm = 36,151,104,512 (published).
  CHECK(p.total == 64 * layer + 2LL * 155136 * 5120 + 5120);
  CHECK(p.total == 36151104512);
  // attention_out_bias adds one hidden-size bias per layer.
  json c = seed_smol_olmo_exaone_config("seed-oss-36b-instruct.json");
  c["attention_out_bias"] = true;
  CHECK(count_parameters(test::spec(c)).total - p.total == 64 * 5120);
}

TEST_CASE("smollm3: every fourth layer without RoPE, no extra weights; SmolLM3-3B exact") {
  const auto m = test::model("HuggingFaceTB/SmolLM3-3B");
  CHECK(m.tie_word_embeddings);
  REQUIRE(m.layer_group_of.size() == 36);
  int nope = 0;
  for (std::size_t i = 0; i < 36; ++i) {
    const auto& g = m.groups[m.layer_group_of[i]];
    CHECK(g.nope == ((i + 1) % 4 == 0));
    CHECK(g.window == 0);
    nope += g.nope ? 1 : 0;
  }
  CHECK(nope == 9);
  const auto p = count_parameters(m);
  // Per layer: q and o 2048x2048, k and v 2048x512; MLP 3 x 2048 x 11008; two norms.
  const std::int64_t layer = 2LL * 2048 * 2048 + 2LL * 2048 * 512 + 3LL * 2048 * 11008 + 2 * 2048;
  // 36 layers + one tied 128256 x 2048 table + final norm = 3,075,098,624 (published).
  CHECK(p.total == 36 * layer + 128256LL * 2048 + 2048);
  CHECK(p.total == 3075098624);
  // Without no_rope_layers the interval gives the same layout; a sliding window then applies to
  // the NoPE layers (SmolLM3Config's layer_types).
  json c = seed_smol_olmo_exaone_config("smollm3-3b.json");
  c.erase("no_rope_layers");
  c["use_sliding_window"] = true;
  c["sliding_window"] = 4096;
  const auto s = test::spec(c);
  CHECK(s.groups[s.layer_group_of[3]].nope);
  CHECK(s.groups[s.layer_group_of[3]].window == 4096);
  CHECK(s.groups[s.layer_group_of[2]].window == 0);
  CHECK(count_parameters(s).total == p.total);
  c["no_rope_layers"] = json::array({1, 1, 0});
  CHECK_THROWS_WITH(test::spec(c), Catch::Contains("(/no_rope_layers)"));
}

TEST_CASE("olmo3: OLMo 2 layers with three sliding layers per full one; 7B and 32B exact") {
  const auto m = test::model("allenai/Olmo-3-1025-7B");
  CHECK(m.attention.qk_norm);
  CHECK(m.attention.qk_norm_full_width);
  std::int64_t sliding = 0, full = 0;
  for (const auto& g : m.groups) (g.window == 4096 ? sliding : full) += g.count;
  CHECK(sliding == 24);
  CHECK(full == 8);
  CHECK(m.groups[m.layer_group_of[3]].window == 0);
  const auto p = count_parameters(m);
  // Per layer: 4 x 4096^2 attention, 3 x 4096 x 11008 MLP, q_norm and k_norm of 4096, two post-norms.
  const std::int64_t layer7 = 4LL * 4096 * 4096 + 3LL * 4096 * 11008 + 4 * 4096;
  // 32 layers + embedding and head 2 x 100278 x 4096 + final norm = 7,298,011,136 (published).
  CHECK(p.total == 32 * layer7 + 2LL * 100278 * 4096 + 4096);
  CHECK(p.total == 7298011136);

  const auto p32 = count_parameters(test::model("allenai/Olmo-3-1125-32B"));
  // Per layer: q and o 5120x5120, k and v 5120x1024 (8 KV heads of 128), MLP 3 x 5120 x 27648,
  // q_norm 5120 + k_norm 1024 (full width), two post-norms of 5120.
  const std::int64_t layer32 = 2LL * 5120 * 5120 + 2LL * 5120 * 1024 + 3LL * 5120 * 27648 + (5120 + 1024) + 2 * 5120;
  CHECK(p32.total == 64 * layer32 + 2LL * 100278 * 5120 + 5120);
  CHECK(p32.total == 32233522176);
}

TEST_CASE("exaone4: post-norms, per-head q/k norms, global layers without RoPE; 32B and 1.2B exact") {
  const auto m = test::model("LGAI-EXAONE/EXAONE-4.0-32B");
  CHECK(m.attention.qk_norm);
  CHECK_FALSE(m.attention.qk_norm_full_width);
  CHECK(m.norms_per_layer == 2);
  std::int64_t local = 0, global = 0;
  for (const auto& g : m.groups) {
    if (g.window == 4096) {
      local += g.count;
      CHECK_FALSE(g.nope);
    } else {
      global += g.count;
      CHECK(g.nope);  // "global NoPE" of the hybrid attention
    }
  }
  CHECK(local == 48);
  CHECK(global == 16);
  const auto p = count_parameters(m);
  // Per layer: q and o 5120x5120, k and v 5120x1024, MLP 3 x 5120 x 27392, q_norm and k_norm of
  // 128, post_attention_layernorm and post_feedforward_layernorm of 5120.
  const std::int64_t layer = 2LL * 5120 * 5120 + 2LL * 5120 * 1024 + 3LL * 5120 * 27392 + 2 * 128 + 2 * 5120;
  // 64 layers + embedding and head 2 x 102400 x 5120 + final norm = 32,003,216,384 (published).
  CHECK(p.total == 64 * layer + 2LL * 102400 * 5120 + 5120);
  CHECK(p.total == 32003216384);

  const auto small = test::model("LGAI-EXAONE/EXAONE-4.0-1.2B");
  REQUIRE(small.groups.size() == 1);
  CHECK(small.groups[0].window == 0);
  CHECK_FALSE(small.groups[0].nope);
  // Per layer: q and o 2048x2048, k and v 2048x512 (8 KV heads of 64), MLP 3 x 2048 x 4096,
  // q/k norms 2 x 64, two norms of 2048; 30 layers + one tied 102400 x 2048 table + final norm.
  const std::int64_t small_layer = 2LL * 2048 * 2048 + 2LL * 2048 * 512 + 3LL * 2048 * 4096 + 2 * 64 + 2 * 2048;
  CHECK(count_parameters(small).total == 30 * small_layer + 102400LL * 2048 + 2048);
  CHECK(count_parameters(small).total == 1279391488);

  // A "LLLG" pattern string: the last layer is global whatever the pattern says.
  json c = seed_smol_olmo_exaone_config("exaone-4.0-32b.json");
  c["num_hidden_layers"] = 6;
  c["sliding_window_pattern"] = "LLG";
  const auto s = test::spec(c);
  CHECK(s.groups[s.layer_group_of[0]].window == 4096);
  CHECK(s.groups[s.layer_group_of[2]].window == 0);
  CHECK(s.groups[s.layer_group_of[4]].window == 4096);
  CHECK(s.groups[s.layer_group_of[5]].window == 0);
  c["sliding_window_pattern"] = "LXG";
  CHECK_THROWS_WITH(test::spec(c), Catch::Contains("(/sliding_window_pattern)"));
}
