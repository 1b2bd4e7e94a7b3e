// SmallThinker (smallthinker): the count hand-computed from modeling_smallthinker.py at the sizes
// of SmallThinker-4BA0.6B, and the bundled record against its published figure.
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
