// SmallThinker (smallthinker) and Trinity (afmoe): counts hand-computed from each family's
// modeling file at the sizes of its published checkpoints, and the bundled records against their
// published figures.
#include <catch2/catch.hpp>

#include "helpers.hpp"

using flopcast::count_parameters;
using test::json;

TEST_CASE("smallthinker: SmallThinker-4BA0.6B, 32 ReGLU experts per layer, tied embeddings") {
  const auto& rec = flopcast::find_model("PowerInfer/SmallThinker-4BA0.6B-Instruct");
  const auto p = count_parameters(rec.spec);
  const std::int64_t h = 1536;
  const std::int64_t expert = 3 * h * 768;  // up, gate, down
  // q 12 x 128, k and v 2 x 128, o; 2 RMSNorms; primary_router h x 32 without bias; 32 experts.
  const std::int64_t layer = h * (1536 + 2 * 256) + 1536 * h + 2 * h + h * 32 + 32 * expert;
  CHECK(p.total == 32 * layer + 151936LL * h + h);
  CHECK(p.total == 4035085824);  // "4B"
  CHECK(p.total - p.active == 32 * 28 * expert);
  CHECK(rec.spec.groups.size() == 1);
  json c = json::parse(test::read_text("data/models/smallthinker-4ba0.6b-instruct.json"))["config"];
  std::vector<int> swa(32, 0);
  swa[3] = 1;
  c["sliding_window_layout"] = swa;
  const auto s = test::spec(c);
  CHECK(count_parameters(s).total == p.total);  // windows change no count
  REQUIRE(s.groups.size() == 2);
  CHECK(s.groups[s.layer_group_of[3]].window == 4096);
  swa[3] = 2;
  c["sliding_window_layout"] = swa;
  CHECK(test::pointer_of([&] { (void)test::spec(c); }) == "/sliding_window_layout/3");
  c["sliding_window_layout"] = std::vector<int>(31, 0);
  CHECK(test::pointer_of([&] { (void)test::spec(c); }) == "/sliding_window_layout");
}

TEST_CASE("afmoe: Trinity, gated attention with q/k norms, four norms a layer, dense first layers") {
  const auto& rec = flopcast::find_model("arcee-ai/Trinity-Nano-Preview");
  const auto p = count_parameters(rec.spec);
  const std::int64_t h = 1024;
  // q 8 x 128, k and v 2 x 128, o, gate_proj h x 8 x 128; q_norm and k_norm of 128; 4 norms.
  const std::int64_t attn = h * 1024 + 2 * h * 256 + 1024 * h + h * 1024 + 2 * 128 + 4 * h;
  const std::int64_t expert = 3 * h * 256;
  const std::int64_t dense = attn + 3 * h * 3072;
  // Router h x 128 plus expert_bias, 128 experts, one shared expert of 256.
  const std::int64_t moe = attn + h * 128 + 128 + 128 * expert + expert;
  CHECK(p.total == 2 * dense + 54 * moe + 2 * 200192LL * h + h);
  CHECK(p.total == 6120003328);
  CHECK(p.total - p.active == 54 * 120 * expert);
  // Every 4th layer attends to everything without positions, the others within 2048 tokens.
  std::int64_t full = 0;
  for (std::size_t i = 0; i < rec.spec.layer_group_of.size(); ++i) {
    const auto& g = rec.spec.groups[rec.spec.layer_group_of[i]];
    CHECK(g.window == ((i + 1) % 4 == 0 ? 0 : 2048));
    CHECK(g.nope == ((i + 1) % 4 == 0));
    full += g.window == 0 ? 1 : 0;
  }
  CHECK(full == 14);

  const auto& large = flopcast::find_model("arcee-ai/Trinity-Large-Preview");
  const std::int64_t H = 3072;
  const std::int64_t attn_l = H * 48 * 128 + 2 * H * 8 * 128 + 48 * 128 * H + H * 48 * 128 + 2 * 128 + 4 * H;
  const std::int64_t expert_l = 3 * H * 3072;
  const std::int64_t dense_l = attn_l + 3 * H * 12288;
  const std::int64_t moe_l = attn_l + H * 256 + 256 + 256 * expert_l + expert_l;
  CHECK(count_parameters(large.spec).total == 6 * dense_l + 54 * moe_l + 2 * 200192LL * H + H);
  CHECK(count_parameters(large.spec).total == 398635286016);

  json c = json::parse(test::read_text("data/models/trinity-nano-preview.json"))["config"];
  c["num_experts_per_tok"] = 129;
  CHECK(test::pointer_of([&] { (void)test::spec(c); }) == "/num_experts_per_tok");
}
