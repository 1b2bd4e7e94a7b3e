// Nemotron 3 Nano (llama.cpp's nemotron_h_moe; model_type nemotron_h with "E" MoE blocks): the
// count hand-computed from modeling_nemotron_h.py at the published checkpoint's sizes.
#include <catch2/catch.hpp>

#include "helpers.hpp"

using flopcast::count_parameters;

TEST_CASE("nemotron_h moe: Nemotron 3 Nano 30B-A3B, 23 Mamba-2, 23 MoE and 6 attention blocks") {
  const flopcast::model_spec& m = test::model("nemotron-3-nano-30b-a3b");
  const auto p = count_parameters(m);
  const std::int64_t h = 2688;
  // Mamba-2: 64 heads of 64 (inner 4096), 8 groups, state 128: conv channels 4096 + 2 x 8 x 128 =
  // 6144; in_proj h x (4096 + 6144 + 64), conv 6144 x 4 + bias, dt_bias/A_log/D, gated norm 4096,
  // out_proj 4096 x h.
  const std::int64_t mamba = h * 10304 + (6144 * 4 + 6144) + 3 * 64 + 4096 + 4096 * h;
  // Attention without positions: 32 heads and 2 KV heads of 128.
  const std::int64_t attn = h * 4096 + 2 * h * 256 + 4096 * h;
  // MoE: router h x 128 + e_score_correction_bias 128, 128 relu^2 up/down experts of 1856, one
  // shared up/down expert of 3712.
  const std::int64_t expert = 2 * h * 1856;
  const std::int64_t moe = h * 128 + 128 + 128 * expert + 2 * h * 3712;
  CHECK(p.mixer == 23 * mamba);
  CHECK(p.attention == 6 * attn);
  CHECK(p.mlp == 23 * moe);
  // + one norm per block, the final norm, untied 131072 x h embedding and head: llama.cpp's
  // 31,577,940,288.
  CHECK(p.total == 23 * mamba + 6 * attn + 23 * moe + 52 * h + h + 2 * 131072 * h);
  CHECK(p.total == 31577940288);
  CHECK(p.total - p.active == 23 * (128 - 6) * expert);
}
