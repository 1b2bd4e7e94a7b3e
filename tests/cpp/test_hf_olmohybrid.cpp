// OLMo Hybrid (olmo_hybrid): the published count and the structure behind it, summed by hand
// from transformers' modular_olmo_hybrid.py (OLMo 3 attention layers, Gated DeltaNet layers).
#include <catch2/catch.hpp>

#include "flopcast/flopcast.hpp"
#include "helpers.hpp"

using flopcast::count_parameters;
using test::json;

TEST_CASE("olmo_hybrid: three Gated DeltaNet layers to one OLMo 3 attention layer; Olmo-Hybrid-7B to 7.4B") {
  const auto& m = test::model("allenai/Olmo-Hybrid-7B");
  CHECK(m.model_type == "olmo_hybrid");
  CHECK(m.attention.qk_norm);
  CHECK(m.attention.qk_norm_full_width);
  CHECK_FALSE(m.attention.output_gate);
  CHECK_FALSE(m.tie_word_embeddings);
  REQUIRE(m.groups.size() == 2);
  const auto& linear = m.groups[m.layer_group_of[0]];
  const auto& full = m.groups[m.layer_group_of[3]];
  CHECK(linear.mixer == flopcast::mixer_kind::linear_attention);
  CHECK(linear.count == 24);
  CHECK(full.mixer == flopcast::mixer_kind::attention);
  CHECK(full.count == 8);
  CHECK(full.nope);  // rope_theta null: no RoPE
  const auto p = count_parameters(m);
  // Attention layer: q/k/v/o 3840 x 3840 (30 heads of 128), full-width q and k RMSNorms 3840 each,
  // post-attention and post-feedforward RMSNorms, gated MLP 3 x 3840 x 11008 = 185,809,920.
  const std::int64_t mlp = 3LL * 3840 * 11008;
  const std::int64_t attn_layer = 4LL * 3840 * 3840 + 2 * 3840 + 2 * 3840 + mlp;
  CHECK(attn_layer == 185809920);
  CHECK(p.per_layer[m.layer_group_of[3]] == attn_layer);
  // DeltaNet layer: q and k 3840 -> 2880 (30 x 96), v and g 3840 -> 5760 (30 x 192), a and b
  // 3840 -> 30, o 5760 -> 3840, conv1d (2880 + 2880 + 5760) x 4, A_log and dt_bias 30 each,
  // o_norm 192; two RMSNorms and the MLP = 215,570,172.
  const std::int64_t gdn =
      2LL * 3840 * 2880 + 2LL * 3840 * 5760 + 2LL * 3840 * 30 + 5760LL * 3840 + 11520LL * 4 + 60 + 192;
  const std::int64_t gdn_layer = gdn + 2 * 3840 + mlp;
  CHECK(gdn_layer == 215570172);
  CHECK(p.per_layer[m.layer_group_of[0]] == gdn_layer);
  // 24 + 8 layers, embedding and untied head 2 x 100352 x 3840, final norm = 7,430,870,688: 7.4B.
  CHECK(p.total == 24 * gdn_layer + 8 * attn_layer + 2LL * 100352 * 3840 + 3840);
  CHECK(p.total == 7430870688);
  CHECK(p.active == p.total);

  json c = json::parse(test::read_text("data/models/olmo-hybrid-7b.json"))["config"];
  // OlmoHybridConfig's defaults give the same model: linear heads = attention heads, key head dim
  // int(0.75 x 3840 / 30) = 96, value head dim 192, full attention every fourth layer.
  for (const char* k : {"linear_num_key_heads", "linear_num_value_heads", "linear_key_head_dim",
                        "linear_value_head_dim", "linear_conv_kernel_dim", "layer_types"})
    c.erase(k);
  CHECK(count_parameters(test::spec(c)).total == p.total);
  c["rope_parameters"] = {{"rope_theta", 500000.0}};
  CHECK_FALSE(test::spec(c).groups[test::spec(c).layer_group_of[3]].nope);
  c["linear_num_value_heads"] = 45;
  CHECK_THROWS_WITH(test::spec(c), Catch::Contains("(/linear_num_value_heads)"));
  c.erase("linear_num_value_heads");
  c["layer_types"] = json::array({"linear_attention"});
  CHECK_THROWS_WITH(test::spec(c), Catch::Contains("(/layer_types)"));
  c["layer_types"] = std::vector<std::string>(32, "sliding_attention");
  CHECK_THROWS_WITH(test::spec(c), Catch::Contains("(/layer_types/0)"));
}
