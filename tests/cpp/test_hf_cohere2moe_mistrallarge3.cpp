// North Mini Code (cohere2_moe: Cohere's parallel block with a MoE after one dense layer) and
// Mistral Large 3 (Mistral's params.json as vLLM serves it, a deepseek_v3 config): counts
// hand-computed from the modeling code at the published sizes.
#include <catch2/catch.hpp>

#include "helpers.hpp"

using flopcast::count_parameters;
using test::json;

TEST_CASE("cohere2_moe: North-Mini-Code-1.0, parallel block, one dense layer then 128 experts") {
  const auto& rec = flopcast::find_model("CohereLabs/North-Mini-Code-1.0");
  const auto p = count_parameters(rec.spec);
  const std::int64_t h = 2048;
  // Cohere2MoeAttention: q 32 x 128, k and v 4 x 128, o; no biases. One input_layernorm.
  const std::int64_t attn = h * (32 * 128 + 2 * 4 * 128) + 32 * 128 * h + h;
  const std::int64_t dense = attn + 3 * h * 3072;  // prefix_dense_intermediate_size
  const std::int64_t expert = 3 * h * 768;
  const std::int64_t moe = attn + h * 128 + 128 * expert;  // bias-free gate, no shared expert
  // Tied embeddings and a final norm.
  CHECK(p.total == dense + 48 * moe + 262144LL * h + h);
  CHECK(p.total == 30484303872);
  CHECK(p.total - p.active == 48 * 120 * expert);
  // Full attention on layers 0, 4, ..., 48; only the dense layer 0 keeps RoPE among them.
  for (std::size_t i = 0; i < rec.spec.layer_group_of.size(); ++i) {
    const auto& g = rec.spec.groups[rec.spec.layer_group_of[i]];
    CHECK(g.window == (i % 4 == 0 ? 0 : 4096));
    CHECK(g.nope == (i % 4 == 0 && i > 0));
    CHECK(g.moe == (i > 0));
  }
  CHECK(rec.spec.parallel_attention);

  json c = json::parse(test::read_text("data/models/north-mini-code-1.0.json"))["config"];
  c["num_shared_experts"] = 1;
  CHECK(count_parameters(test::spec(c)).total == p.total + 48 * expert);
  c["num_experts_per_tok"] = 129;
  CHECK(test::pointer_of([&] { (void)test::spec(c); }) == "/num_experts_per_tok");
  c = json::parse(test::read_text("data/models/north-mini-code-1.0.json"))["config"];
  c["mlp_layer_types"] = std::vector<std::string>(49, "sparse");
  c["mlp_layer_types"][5] = "dense?";
  CHECK(test::pointer_of([&] { (void)test::spec(c); }) == "/mlp_layer_types/5");
  c.erase("num_experts");
  CHECK(test::pointer_of([&] { (void)test::spec(c); }) == "/num_experts");
}

TEST_CASE("deepseek_v3: Mistral Large 3 as vLLM reads its params.json") {
  const auto& rec = flopcast::find_model("mistralai/Mistral-Large-3-675B-Instruct-2512");
  const auto p = count_parameters(rec.spec);
  const std::int64_t h = 7168;
  // DeepSeek-V3 MLA with 128 heads: q_a_proj, q_a_layernorm, q_b_proj (128 x 192),
  // kv_a_proj_with_mqa (512 + 64), kv_a_layernorm, kv_b_proj (128 x (128 + 128)), o_proj; two
  // RMSNorms a layer.
  const std::int64_t attn =
      h * 1536 + 1536 + 1536 * 128 * 192 + h * 576 + 512 + 512 * 128 * 256 + 128 * 128 * h + 2 * h;
  const std::int64_t dense = attn + 3 * h * 16384;
  const std::int64_t expert = 3 * h * 4096;
  // Router h x 128 and the score-correction bias the deepseek_v3 reader counts, 128 experts, one
  // shared expert of 4096.
  const std::int64_t moe = attn + h * 128 + 128 + 128 * expert + expert;
  CHECK(p.total == 3 * dense + 58 * moe + 2 * 131072LL * h + h);
  CHECK(p.total == 673421097216);
  CHECK(p.total - p.active == 58 * 124 * expert);
  // "A Granular MoE Language Model with 673B params and 39B active" (model card).
  CHECK(p.total / 1000000000 == 673);
}
