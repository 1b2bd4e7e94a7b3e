// TeleChat3 dense: the published count and the structure behind it, summed by hand from vLLM's
// llama.py (vLLM registers TeleChat3ForCausalLM as its Llama model).
#include <catch2/catch.hpp>

#include "flopcast/flopcast.hpp"
#include "helpers.hpp"

using flopcast::count_parameters;
using test::json;

TEST_CASE("telechat3: Llama layout, untied; TeleChat3-36B-Thinking to 36B") {
  const auto m = test::model("Tele-AI/TeleChat3-36B-Thinking");
  CHECK_FALSE(m.attention.qkv_bias);
  CHECK_FALSE(m.attention.qk_norm);
  CHECK_FALSE(m.mlp.bias);
  CHECK(m.mlp.gated);
  CHECK_FALSE(m.tie_word_embeddings);
  CHECK(m.attention.num_kv_heads == 8);
  const auto p = count_parameters(m);
  // Per layer: q and o 6144x6144 (48 heads of 128), k and v 6144x1024; gated MLP
  // 3 x 6144 x 24576; two RMSNorms of 6144 = 541,077,504.
  const std::int64_t layer = 2LL * 6144 * 6144 + 2LL * 6144 * 1024 + 3LL * 6144 * 24576 + 2 * 6144;
  CHECK(layer == 541077504);
  CHECK(p.per_layer[0] == layer);
  // 64 layers + embedding and head 2 x 131072 x 6144 + final norm = 36,239,579,136: the card's 36B.
  CHECK(p.total == 64 * layer + 2LL * 131072 * 6144 + 6144);
  CHECK(p.total == 36239579136);
  CHECK(p.active == p.total);
  // mlp_bias puts biases on gate, up and down.
  json c = json::parse(test::read_text("data/models/telechat3-36b-thinking.json"))["config"];
  c["mlp_bias"] = true;
  CHECK(count_parameters(test::spec(c)).total == p.total + 64 * (2LL * 24576 + 6144));
  c["num_key_value_heads"] = 7;
  CHECK_THROWS_WITH(test::spec(c), Catch::Contains("(/num_key_value_heads)"));
}
