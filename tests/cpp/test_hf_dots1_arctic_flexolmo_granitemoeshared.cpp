// dots.llm1 (dots1), Snowflake Arctic (arctic), FlexOlmo (flex_olmo) and Granite-MoE with shared
// experts (granitemoeshared): counts hand-computed from each family's modeling code at the sizes
// of its published checkpoints, and the bundled records against their published counts.
#include <catch2/catch.hpp>

#include "helpers.hpp"

using flopcast::count_parameters;
using test::json;

namespace {

json dots1_test_config(const std::string& file) {
  return json::parse(test::read_text("data/models/" + file))["config"];
}

}  // namespace

TEST_CASE("dots1: dots.llm1, Qwen3 attention, 128 experts, 2 shared, router bias") {
  const auto& rec = flopcast::find_model("rednote-hilab/dots.llm1.base");
  const auto p = count_parameters(rec.spec);
  const std::int64_t h = 4096;
  const std::int64_t expert = 3 * h * 1408;
  // 4 h^2 attention (MHA), q_norm and k_norm of head_dim 128, 2 norms; layer 0 a SwiGLU of
  // 10944; MoE layers: router h x 128 with e_score_correction_bias, 128 experts, 2 shared.
  const std::int64_t attn = 4 * h * h + 2 * 128 + 2 * h;
  const std::int64_t dense = attn + 3 * h * 10944;
  const std::int64_t moe = attn + h * 128 + 128 + 128 * expert + 2 * expert;
  CHECK(p.total == dense + 61 * moe + 2 * 152064LL * h + h);
  CHECK(p.total == 142774381696);  // "142B"
  CHECK(p.active == 14016588928);  // "14B activated": 6 of 128 experts
  json c = dots1_test_config("dots.llm1.base.json");
  c["first_k_dense_replace"] = 0;
  CHECK(count_parameters(test::spec(c)).total == p.total + moe - dense);
}

TEST_CASE("arctic: a dense residual MLP beside 128 experts in every layer") {
  const auto& rec = flopcast::find_model("Snowflake/snowflake-arctic-base");
  const auto p = count_parameters(rec.spec);
  const std::int64_t h = 7168, kv = 8 * 128;
  const std::int64_t expert = 3 * h * 4864;
  // q, k, v, o without biases; input, post-attention and residual RMSNorms; router h x 128;
  // 128 experts; the residual MLP of 4864 counted as an always-on shared expert.
  const std::int64_t layer = h * (h + 2 * kv) + h * h + 3 * h + h * 128 + 128 * expert + expert;
  CHECK(p.total == 35 * layer + 2 * 32000LL * h + h);
  CHECK(p.total == 476850526208);  // "480B"
  CHECK(p.total - p.active == 35 * 126 * expert);
  json c = dots1_test_config("snowflake-arctic-base.json");
  c["use_residual"] = false;
  CHECK(count_parameters(test::spec(c)).total == p.total - 35 * (expert + h));
  c["moe_layer_frequency"] = 2;  // odd layers (1, 3, ...) MoE, the others a dense MLP of 4864
  const std::int64_t moe_plain = layer - expert - h;
  const std::int64_t dense = h * (h + 2 * kv) + h * h + 2 * h + expert;
  CHECK(count_parameters(test::spec(c)).total == 17 * moe_plain + 18 * dense + 2 * 32000LL * h + h);
}

TEST_CASE("flex_olmo: FlexOlmo-7x7B, OLMoE's weights with 7 experts") {
  const auto& rec = flopcast::find_model("allenai/FlexOlmo-7x7B-1T");
  const auto p = count_parameters(rec.spec);
  const std::int64_t h = 4096;
  const std::int64_t expert = 3 * h * 11008;
  // 4 h^2 attention, q_norm and k_norm over the whole projections (2 h), 2 norms, router h x 7.
  const std::int64_t layer = 4 * h * h + 2 * h + 2 * h + h * 7 + 7 * expert;
  CHECK(p.total == 32 * layer + 2 * 100352LL * h + h);
  CHECK(p.total == 33270665216);  // the checkpoint index's total_parameters
  CHECK(p.total - p.active == 32 * 2 * expert);
}

TEST_CASE("granitemoeshared: granitemoe plus one shared expert per layer") {
  // granite-3.1-1b-a400m's sizes with a shared expert of 1024 (GraniteMoeSharedConfig's field).
  json c = dots1_test_config("granite-3.1-1b-a400m.json");
  const auto base = count_parameters(test::spec(c));
  c["model_type"] = "granitemoeshared";
  CHECK(count_parameters(test::spec(c)).total == base.total);  // no shared_intermediate_size: none
  c["shared_intermediate_size"] = 1024;
  const auto s = test::spec(c);
  const std::int64_t h = s.hidden_size;
  // shared_mlp: input_linear h -> 2 x 1024 and output_linear 1024 -> h, no biases.
  const auto p = count_parameters(s);
  CHECK(p.total == base.total + s.num_layers * 3 * h * 1024);
  CHECK(p.total - p.active == base.total - base.active);
  c["shared_intermediate_size"] = -1;
  CHECK(test::pointer_of([&] { (void)test::spec(c); }) == "/shared_intermediate_size");
}
