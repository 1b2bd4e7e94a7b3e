// Falcon-H1 (falcon_h1) and PLaMo 2 (plamo2, core/src/model/hf_plamo2.cpp) bundled records, summed
// by hand from the modeling code and checked against the published counts:
// - tiiuae/Falcon-H1-0.5B-Instruct from transformers' modeling_falcon_h1.py (FalconH1DecoderLayer:
//   input_layernorm, FalconH1Attention = Llama attention, FalconH1Mixer = Mamba-2 beside it on the
//   same normed input, pre_ff_layernorm, FalconH1MLP = gate/up/down), published 521M;
// - pfnet/plamo-2-1b from vLLM's plamo2.py (Plamo2MambaMixer, Plamo2AttentionMixer,
//   Plamo2DecoderLayer), published 1B.
#include <catch2/catch.hpp>
#include <cmath>

#include "flopcast/flopcast.hpp"
#include "helpers.hpp"

using flopcast::count_parameters;
using test::json;

TEST_CASE("falcon_h1: Falcon-H1-0.5B-Instruct sums to 521,411,104, the published 521M") {
  const auto& m = test::model("tiiuae/Falcon-H1-0.5B-Instruct");
  CHECK(m.model_type == "falcon_h1");
  REQUIRE(m.groups.size() == 1);
  CHECK(m.groups[0].count == 36);
  CHECK(m.groups[0].mixer == flopcast::mixer_kind::attention);
  CHECK(m.groups[0].parallel_ssm);
  CHECK(m.ssm.inner == 1536);
  CHECK(m.ssm.num_heads == 24);
  CHECK_FALSE(m.ssm.gated_norm);  // mamba_rms_norm false: no RMSNormGated
  CHECK_FALSE(m.tie_word_embeddings);
  const auto p = count_parameters(m);
  const std::int64_t h = 1024;
  // Attention: q 1024 -> 8 x 64, k and v 1024 -> 2 x 64 each, o 512 -> 1024, no biases.
  const std::int64_t attn = h * 512 + 2 * h * 128 + 512 * h;
  CHECK(attn == 1310720);
  // Mamba-2: in_proj 1024 -> z 1536 + xBC (1536 + 2 x 1 group x 128 state = 1792) + dt 24 heads;
  // depthwise conv1d 1792 x 4 with bias; dt_bias, A_log, D per head; out_proj 1536 -> 1024.
  const std::int64_t mamba = h * (1536 + 1792 + 24) + (1792 * 4 + 1792) + 3 * 24 + 1536 * h;
  CHECK(mamba == 5014344);
  // SwiGLU MLP 3 x 1024 x 2048 and the two RMSNorms.
  const std::int64_t layer = attn + mamba + 3 * h * 2048 + 2 * h;
  CHECK(layer == 12618568);
  CHECK(p.per_layer[0] == layer);
  CHECK(p.mixer == 36 * mamba);
  // 36 layers, embedding and untied head 2 x 32784 x 1024, final norm.
  CHECK(p.total == 36 * layer + 2LL * 32784 * h + h);
  CHECK(p.total == 521411104);
  CHECK(p.active == p.total);
  CHECK(std::llround(static_cast<double>(p.total) / 1e6) == 521);  // "521M" (3 digits)

  // The copy of config.json leaves mamba_d_ssm out at first; without it FalconH1Config takes
  // mamba_expand x hidden = 2048, which 24 heads of 64 do not fill: the reader says so.
  json c = json::parse(test::read_text("data/models/falcon-h1-0.5b-instruct.json"))["config"];
  c.erase("mamba_d_ssm");
  CHECK_THROWS_WITH(test::spec(c), Catch::Contains("(/mamba_n_heads)"));
  c["mamba_d_ssm"] = 1536;
  c["mamba_d_head"] = "auto";  // 1536 / 24 = 64
  CHECK(count_parameters(test::spec(c)).total == p.total);
}

TEST_CASE("plamo2: PLaMo 2 1B alternates per-head-dt Mamba and attention layers and sums to 1,291,441,920") {
  const auto& m = test::model("pfnet/plamo-2-1b");
  CHECK(m.model_type == "plamo2");
  REQUIRE(m.num_layers == 16);
  REQUIRE(m.groups.size() == 2);
  // is_mamba(i) with mamba_step 2: i % 2 != 1, so even layers are Mamba and odd ones attention.
  const auto& mamba = m.groups[m.layer_group_of[0]];
  const auto& attn = m.groups[m.layer_group_of[1]];
  CHECK(mamba.mixer == flopcast::mixer_kind::mamba);
  CHECK(attn.mixer == flopcast::mixer_kind::attention);
  CHECK(mamba.count == 8);
  CHECK(attn.count == 8);
  CHECK(m.groups[m.layer_group_of[14]].mixer == flopcast::mixer_kind::mamba);
  CHECK(m.groups[m.layer_group_of[15]].mixer == flopcast::mixer_kind::attention);
  CHECK(m.ssm.num_heads == 32);  // a Mamba-1 mixer with heads: dt, A and D per head
  CHECK(m.ssm.inner == 4096);    // 32 heads x 128
  CHECK(m.ssm.dt_rank == 128);   // max(64, 2048 / 16)
  CHECK(m.tie_word_embeddings);  // not set: PlamoConfig's default
  const auto p = count_parameters(m);
  const std::int64_t h = 2048;
  // Mamba mixer: in_proj 2048 -> 2 x 4096; conv1d 4096 x 4 without bias; bcdt_proj 4096 -> 128 +
  // 2 x 64; dt_proj 128 -> 32 heads without bias; dt_bias, A_log, D per head; out_proj 4096 ->
  // 2048; dt/B/C RMSNorms 128 + 64 + 64.
  const std::int64_t ssm = h * 8192 + 4096 * 4 + 4096 * (128 + 128) + 128 * 32 + 3 * 32 + 4096 * h + 256;
  CHECK(ssm == 26235232);
  // Attention: qkv_proj 2048 -> 16 x 128 + 2 x 1 x 128, o_proj 2048 -> 2048, q_weight 16 x 128,
  // k_weight 1 x 128.
  const std::int64_t att = h * (2048 + 256) + 2048 * h + 16 * 128 + 128;
  CHECK(att == 8915072);
  // Every layer: gate_up_proj 2048 -> 2 x 8192, down_proj 8192 -> 2048, four RMSNorms.
  const std::int64_t mlp_norms = 3 * h * 8192 + 4 * h;
  CHECK(p.per_layer[m.layer_group_of[0]] == ssm + mlp_norms);
  CHECK(p.per_layer[m.layer_group_of[1]] == att + mlp_norms);
  // 8 + 8 layers, the tied 100000 x 2048 embedding and the final norm: 1,291,441,920, the card's
  // "1B" at one digit (and 4 bytes each of the float32 shards' 5.16 GB).
  CHECK(p.total == 8 * (ssm + mlp_norms) + 8 * (att + mlp_norms) + 100000LL * h + h);
  CHECK(p.total == 1291441920);
  CHECK(std::llround(static_cast<double>(p.total) / 1e9) == 1);
  CHECK(p.active == p.total);

  // The per-head time step is what PLaMo 2 adds to a Mamba-1 mixer: with a per-channel dt_proj
  // (dt_rank -> inner with bias), A_log inner x state and D per channel, the same layer would be
  // 128 x 4096 + 4096 + 4096 x 64 + 4096 - (128 x 32 + 3 x 32) larger.
  auto per_channel = m;
  per_channel.ssm.num_heads = 0;
  CHECK(count_parameters(per_channel).total - p.total ==
        8 * (128LL * 4096 + 4096 + 4096LL * 64 + 4096 - (128 * 32 + 3 * 32)));

  json c = json::parse(test::read_text("data/models/plamo-2-1b.json"))["config"];
  c["num_hidden_layers"] = 1;  // at most mamba_step / 2 layers: attention only in the last one
  CHECK(test::spec(c).groups[0].mixer == flopcast::mixer_kind::attention);
  c["num_hidden_layers"] = 16;
  c["mamba_enabled"] = false;
  const auto dense = test::spec(c);
  REQUIRE(dense.groups.size() == 1);
  CHECK(dense.groups[0].mixer == flopcast::mixer_kind::attention);
  c["mamba_enabled"] = true;
  c["num_key_value_heads"] = 3;
  CHECK_THROWS_WITH(test::spec(c), Catch::Contains("(/num_key_value_heads)"));
  c["num_key_value_heads"] = 1;
  c["mamba_step"] = 1;
  CHECK_THROWS_WITH(test::spec(c), Catch::Contains("(/mamba_step)"));
  c.erase("mamba_step");
  c.erase("hidden_size_per_head");
  CHECK_THROWS_WITH(test::spec(c), Catch::Contains("(/hidden_size_per_head)"));
}

TEST_CASE("plamo2: a Mamba layer's FLOPs per token use the per-head time step and the Mamba-2 recurrence") {
  const auto& m = test::model("pfnet/plamo-2-1b");
  const flopcast::pass_flops f = flopcast::forward_flops(m, 1, 1, true);
  const double h = 2048, I = 4096, N = 64, K = 4, r = 128, H = 32;
  // in_proj, depthwise conv and SiLU; bcdt_proj; dt_proj to 32 heads with dt_bias and softplus;
  // the recurrence with one decay per head (5 per state element, dt and A per head); D skip and
  // the SiLU(z) gate; the dt/B/C RMSNorms; out_proj.
  const double per_layer = 2 * h * 2 * I + 2 * I * K + I + 2 * I * (r + 2 * N) + 2 * r * H + 2 * H + 5 * I * N + 4 * H +
                           4 * I + 4 * (r + 2 * N) + 2 * I * h;
  CHECK(f.per_layer[m.layer_group_of[0]].mixer == Approx(per_layer).epsilon(1e-12));
  CHECK(f.per_layer[m.layer_group_of[1]].mixer == 0);  // attention layers have no recurrent mixer
  CHECK(f.parts.mixer == Approx(8 * per_layer).epsilon(1e-12));
}
