// openPangu-Embedded: the published (non-embedding) count and the structure behind it, summed by
// hand from the PanguEmbeddedForCausalLM module printout (biased q/k/v/o, unbiased gated MLP,
// two RMSNorms per layer, untied head) and vLLM's openpangu.py.
#include <catch2/catch.hpp>

#include "flopcast/flopcast.hpp"
#include "helpers.hpp"

using flopcast::count_parameters;
using test::json;

TEST_CASE("PanguEmbedded: biased attention, untied; openPangu-Embedded-7B to its non-embedding 7B") {
  const auto m = test::model("FreedomIntelligence/openPangu-Embedded-7B-V1.1");
  CHECK(m.attention.qkv_bias);
  CHECK(m.attention.o_bias);
  CHECK_FALSE(m.mlp.bias);
  CHECK(m.norms_per_layer == 2);
  CHECK_FALSE(m.tie_word_embeddings);
  const auto p = count_parameters(m);
  // Per layer: q and o 4096x4096 with biases, k and v 4096x1024 with biases; gated MLP
  // 3 x 4096 x 12800; two RMSNorms of 4096 = 199,247,872.
  const std::int64_t attn = 2 * (4096LL * 4096 + 4096) + 2 * (4096LL * 1024 + 1024);
  const std::int64_t layer = attn + 3LL * 4096 * 12800 + 2 * 4096;
  CHECK(layer == 199247872);
  CHECK(p.per_layer[0] == layer);
  // 34 layers + embedding and head 2 x 153376 x 4096 + final norm = 8,030,887,936.
  CHECK(p.total == 34 * layer + 2LL * 153376 * 4096 + 4096);
  CHECK(p.total == 8030887936);
  CHECK(p.embedding == 153376LL * 4096);
  // The card counts without the vocabulary embedding: 7,402,659,840, its "7B".
  const auto rec = flopcast::find_model("FreedomIntelligence/openPangu-Embedded-7B-V1.1");
  CHECK(rec.published_scope == flopcast::publication_scope::non_embedding);
  CHECK(flopcast::to_string(rec.published_scope) == "non_embedding");
  const auto published = flopcast::counts_for_published(rec);
  CHECK(published.total == 7402659840);
  CHECK(flopcast::matches_published(published.total, 7000000000, 1));

  json c = json::parse(test::read_text("data/models/openpangu-embedded-7b-v1.1.json"))["config"];
  // qkv_bias, when given, sets q/k/v apart from o.
  c["qkv_bias"] = false;
  CHECK(count_parameters(test::spec(c)).total == p.total - 34 * (4096LL + 2 * 1024));
  // sandwich_norm norms each sublayer's output too.
  c.erase("qkv_bias");
  c["sandwich_norm"] = true;
  CHECK(count_parameters(test::spec(c)).total == p.total + 34 * 2LL * 4096);
  c["bias"] = "yes";
  CHECK_THROWS_WITH(test::spec(c), Catch::Contains("(/bias)"));
}
