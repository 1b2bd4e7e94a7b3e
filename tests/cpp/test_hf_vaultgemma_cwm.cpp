// VaultGemma and Code World Model: published counts and the structure behind them. Counts are
// summed by hand from transformers' modeling_vaultgemma.py and modeling_cwm.py.
#include <catch2/catch.hpp>

#include "flopcast/flopcast.hpp"
#include "helpers.hpp"

using flopcast::count_parameters;
using test::json;

namespace {
json vaultgemma_cwm_config(const std::string& file) {
  return json::parse(test::read_text("data/models/" + file))["config"];
}
}  // namespace

TEST_CASE("vaultgemma: Gemma 2 without post-norms, tied and scaled; VaultGemma 1B exact") {
  const auto m = test::model("google/vaultgemma-1b");
  CHECK(m.norms_per_layer == 2);
  CHECK(m.scale_embeddings);
  CHECK(m.tie_word_embeddings);
  CHECK(m.mlp.gated);
  CHECK(m.mlp.activation == "gelu_pytorch_tanh");
  REQUIRE(m.groups.size() == 1);
  CHECK(m.groups[0].window == 0);  // layer_types: every layer full attention
  const auto p = count_parameters(m);
  // Per layer: q, k, v 1152x1024 (4 heads of 256) and o 1024x1152; gated MLP 3 x 1152 x 6912;
  // input_layernorm and pre_feedforward_layernorm of 1152.
  const std::int64_t layer = 4LL * 1152 * 1024 + 3LL * 1152 * 6912 + 2 * 1152;
  CHECK(p.per_layer[0] == layer);
  // 26 layers + one tied 256000 x 1152 table + final norm = 1,038,741,120 (published).
  CHECK(p.total == 26 * layer + 256000LL * 1152 + 1152);
  CHECK(p.total == 1038741120);
  // Without layer_types, VaultGemmaConfig alternates sliding and full layers from layer 0.
  json c = vaultgemma_cwm_config("vaultgemma-1b.json");
  c.erase("layer_types");
  const auto s = test::spec(c);
  CHECK(s.groups[s.layer_group_of[0]].window == 512);
  CHECK(s.groups[s.layer_group_of[1]].window == 0);
  CHECK(count_parameters(s).total == p.total);
}

TEST_CASE("cwm: Llama layout, every fourth layer full from layer 0; CWM 32B to the Hub's 32.581B") {
  const auto m = test::model("facebook/cwm");
  CHECK_FALSE(m.tie_word_embeddings);
  REQUIRE(m.layer_group_of.size() == 64);
  std::int64_t sliding = 0;
  for (std::size_t i = 0; i < 64; ++i) {
    const auto w = m.groups[m.layer_group_of[i]].window;
    CHECK(w == (i % 4 == 0 ? 0 : 8192));
    sliding += w > 0 ? 1 : 0;
  }
  CHECK(sliding == 48);
  const auto p = count_parameters(m);
  // Per layer: q and o 6144x6144, k and v 6144x1024; MLP 3 x 6144 x 21504; two norms.
  const std::int64_t layer = 2LL * 6144 * 6144 + 2LL * 6144 * 1024 + 3LL * 6144 * 21504 + 2 * 6144;
  // 64 layers + embedding and head 2 x 128256 x 6144 + final norm = 32,581,097,472 (the Hub: 32.581B).
  CHECK(p.total == 64 * layer + 2LL * 128256 * 6144 + 6144);
  CHECK(p.total == 32581097472);
  json c = vaultgemma_cwm_config("cwm.json");
  c["layer_types"] = json::array({"full_attention"});
  CHECK_THROWS_WITH(test::spec(c), Catch::Contains("(/layer_types)"));
}
