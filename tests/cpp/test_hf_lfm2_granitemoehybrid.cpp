// LFM2 (gated short convolutions + GQA attention) and Granite 4.0 hybrids (Mamba-2 + attention +
// shared MLP and experts): counts hand-computed from modeling_lfm2.py and
// modular_granitemoehybrid.py at the sizes of the published checkpoints, and the short conv's
// FLOPs and state.
#include <catch2/catch.hpp>

#include "flopcast/checkpoint/checkpoint.hpp"
#include "helpers.hpp"

using flopcast::count_parameters;
using test::json;

namespace {

// LiquidAI/LFM2-1.2B's config.json (the fields that size it).
json lfm2_hybrid_test_config() {
  return {{"model_type", "lfm2"},
          {"hidden_size", 2048},
          {"num_hidden_layers", 16},
          {"num_attention_heads", 32},
          {"num_key_value_heads", 8},
          {"vocab_size", 65536},
          {"block_dim", 2048},
          {"block_ff_dim", 12288},
          {"block_auto_adjust_ff_dim", true},
          {"block_ffn_dim_multiplier", 1.0},
          {"block_multiple_of", 256},
          {"conv_L_cache", 3},
          {"conv_bias", false},
          {"conv_dim", 2048},
          {"full_attn_idxs", {2, 5, 8, 10, 12, 14}},
          {"tie_embedding", true}};
}

}  // namespace

TEST_CASE("lfm2: short conv and attention layers, the adjusted feed-forward width") {
  const flopcast::model_spec m = test::spec(lfm2_hybrid_test_config());
  // ff: int(2 x 12288 / 3) = 8192, x 1.0, already a multiple of 256.
  CHECK(m.mlp.intermediate_size == 8192);
  REQUIRE(m.groups.size() == 2);
  const auto p = count_parameters(m);
  // Conv layer: in_proj 2048 x 6144, conv 2048 x 3, out_proj 2048 x 2048 = 16,783,360.
  const std::int64_t conv = 2048LL * 6144 + 2048 * 3 + 2048LL * 2048;
  CHECK(conv == 16783360);
  // Attention layer: q, out 2048 x 2048; k, v 2048 x 512 (8 heads of 64); q and k norms of 64.
  const std::int64_t attn = 2 * 2048LL * 2048 + 2 * 2048LL * 512 + 2 * 64;
  const std::int64_t mlp = 3 * 2048LL * 8192;
  CHECK(p.mixer == 10 * conv);
  CHECK(p.attention + 6 * 128 == 6 * attn);  // the q/k norms count as norms
  CHECK(p.mlp == 16 * mlp);
  CHECK(p.norm == 16 * 2 * 2048 + 2048 + 6 * 128);
  // 10 x 16,783,360 + 6 x 10,485,888 + 16 x 50,331,648 + 65,536 + 2,048 + 65536 x 2048 (tied):
  // the model card's 1,170,340,608.
  CHECK(p.total == 10 * conv + 6 * attn + 16 * mlp + 16 * 2 * 2048 + 2048 + 65536LL * 2048);
  CHECK(p.total == 1170340608);
  CHECK(count_parameters(test::model("LiquidAI/LFM2-1.2B")).total == 1170340608);
  // LFM2-350M: hidden 1024, 16 heads, block_ff_dim 6656 -> int(4437.3) rounded up to 4608.
  const auto& small = test::model("lfm2-350m");
  CHECK(small.mlp.intermediate_size == 4608);
  CHECK(count_parameters(small).total == 354483968);
  // LFM2-700M: hidden 1536, 24 heads, block_ff_dim 10240 -> int(6826.7) rounded up to 6912.
  CHECK(test::model("lfm2-700m").mlp.intermediate_size == 6912);
  CHECK(count_parameters(test::model("lfm2-700m")).total == 742489344);
  // LFM2-2.6B: 22 conv + 8 attention layers at LFM2-1.2B's widths, the MLP 10752 as written:
  // 22 x 16,783,360 + 8 x 10,485,888 + 30 x 3 x 2048 x 10752 + 30 x 4096 + 2048 + 65536 x 2048.
  const auto& big = test::model("lfm2-2.6b");
  CHECK(big.mlp.intermediate_size == 10752);
  CHECK(count_parameters(big).total ==
        22 * conv + 8 * attn + 30 * 3 * 2048LL * 10752 + 30 * 4096 + 2048 + 65536LL * 2048);
  CHECK(count_parameters(big).total == 2569272320);
}

TEST_CASE("lfm2: layer_types, conv_bias, an untied head and bad fields") {
  json c = lfm2_hybrid_test_config();
  const auto base = count_parameters(test::spec(c));
  // layer_types wins over full_attn_idxs; the same layout gives the same count.
  c["layer_types"] = json::array();
  for (int i = 0; i < 16; ++i)
    c["layer_types"].push_back(i == 2 || i == 5 || i == 8 || i == 10 || i == 12 || i == 14 ? "full_attention" : "conv");
  CHECK(count_parameters(test::spec(c)).total == base.total);
  c["conv_bias"] = true;  // in_proj 3h, conv h, out_proj h
  CHECK(count_parameters(test::spec(c)).total - base.total == 10 * 5 * 2048);
  c["conv_bias"] = false;
  c["tie_embedding"] = false;
  CHECK(count_parameters(test::spec(c)).total - base.total == 65536LL * 2048);
  // No layout at all: every layer attends (Lfm2Config's default).
  json all = lfm2_hybrid_test_config();
  all.erase("full_attn_idxs");
  CHECK(test::spec(all).groups.size() == 1);
  // No adjustment: the width is taken as written.
  json raw = lfm2_hybrid_test_config();
  raw["block_auto_adjust_ff_dim"] = false;
  CHECK(test::spec(raw).mlp.intermediate_size == 12288);

  json bad = lfm2_hybrid_test_config();
  bad["layer_types"] = json::array({"conv", "mamba"});
  CHECK_THROWS_WITH(test::spec(bad), Catch::Contains("expected at least 16 entries"));
  bad["layer_types"] = json::array();
  for (int i = 0; i < 16; ++i) bad["layer_types"].push_back(i == 3 ? "mamba" : "conv");
  CHECK_THROWS_WITH(test::spec(bad), Catch::Contains("\"full_attention\" or \"conv\""));
  bad = lfm2_hybrid_test_config();
  bad["full_attn_idxs"] = json::array({2, 16});
  CHECK_THROWS_WITH(test::spec(bad), Catch::Contains("expected a layer index from 0 to 15, but got 16"));
  bad = lfm2_hybrid_test_config();
  bad["conv_dim"] = 1024;
  CHECK_THROWS_WITH(test::spec(bad), Catch::Contains("expected the hidden size 2048"));
}

TEST_CASE("lfm2: short-conv FLOPs and a constant state of kernel - 1 inputs") {
  const flopcast::model_spec m = test::spec(lfm2_hybrid_test_config());
  const flopcast::pass_flops f = flopcast::forward_flops(m, 1, 1, true);
  // One token through a conv layer: in_proj 2 x h x 3h, B*x and C*y h each, conv 2 x h x 3,
  // out_proj 2 x h x h.
  const double h = 2048;
  CHECK(f.parts.mixer == Approx(10 * (2 * h * 3 * h + 2 * h + 2 * h * 3 + 2 * h * h)).epsilon(1e-12));
  flopcast::settings s;
  s.sequence_length = 1000;
  s.num_generated_tokens = 16;
  const flopcast::estimate_result r = flopcast::estimate(m, s, nullptr);
  // 10 conv layers x 2 past inputs x 2048 channels x 2 bytes; the 6 attention layers grow with the
  // context (8 KV heads x 64 x 2, bf16).
  CHECK(r.memory.recurrent_state == 10.0 * 2 * 2048 * 2);
  CHECK(r.memory.kv_cache_per_token == 6.0 * 8 * 64 * 2 * 2);
  CHECK((r.notes & flopcast::note_recurrent_state) != 0);
}

TEST_CASE("granitemoehybrid: dense Granite 4.0 H 350M, Mamba-2 and attention layers each with a shared MLP") {
  const flopcast::model_spec& m = test::model("ibm-granite/granite-4.0-h-350m");
  const auto p = count_parameters(m);
  // Mamba-2 (BambaMixer) at hidden 768: inner 1536, 48 heads of 32, 1 group, state 128, conv 4:
  // conv channels 1536 + 2 x 128 = 1792; in_proj 768 x (1536 + 1792 + 48), conv 1792 x 4 + bias,
  // dt_bias/A_log/D 3 x 48, gated norm 1536, out_proj 1536 x 768 = 3,783,056.
  const std::int64_t mamba = 768LL * 3376 + (1792 * 4 + 1792) + 3 * 48 + 1536 + 1536LL * 768;
  CHECK(mamba == 3783056);
  // Attention: 12 heads, 4 KV heads of 64, no bias, no positions.
  const std::int64_t attn = 2 * 768LL * 768 + 2 * 768LL * 256;
  // shared_mlp: input_linear 768 -> 2 x 2048, output_linear 2048 -> 768; two norms per layer.
  const std::int64_t mlp = 3 * 768LL * 2048;
  CHECK(p.mixer == 28 * mamba);
  CHECK(p.attention == 4 * attn);
  CHECK(p.mlp == 32 * mlp);
  CHECK(p.norm == 32 * 2 * 768 + 768);
  // 28 x 8,503,184 + 4 x 6,292,992 + 768 + 100352 x 768 (tied) = the Hub's 340,332,224.
  CHECK(p.total == 28 * (mamba + mlp + 1536) + 4 * (attn + mlp + 1536) + 768 + 100352LL * 768);
  CHECK(p.total == 340332224);
  CHECK(m.position == flopcast::position_kind::none);
}

TEST_CASE("granitemoehybrid: Granite 4.0 H Tiny, 64 experts of 512 (top 6) beside the shared MLP") {
  const flopcast::model_spec& m = test::model("granite-4.0-h-tiny");
  const auto p = count_parameters(m);
  // Mamba-2 at hidden 1536: inner 3072, 48 heads of 64, conv channels 3072 + 256 = 3328.
  const std::int64_t mamba = 1536LL * (3072 + 3328 + 48) + (3328 * 4 + 3328) + 3 * 48 + 3072 + 3072LL * 1536;
  CHECK(mamba == 14642576);
  const std::int64_t attn = 2 * 1536LL * 1536 + 2 * 1536LL * 512;  // 12 heads, 4 KV heads of 128
  // Router 1536 x 64 (no bias), 64 experts of 3 x 1536 x 512, shared MLP 3 x 1536 x 1024.
  const std::int64_t expert = 3 * 1536LL * 512;
  const std::int64_t moe = 1536LL * 64 + 64 * expert + 3 * 1536LL * 1024;
  CHECK(p.mlp == 40 * moe);
  // 36 x 170,457,488 + 4 x 162,106,368 + 1536 + 100352 x 1536 = the Hub's 6,939,037,248.
  CHECK(p.total == 36 * (mamba + moe + 3072) + 4 * (attn + moe + 3072) + 1536 + 100352LL * 1536);
  CHECK(p.total == 6939037248);
  CHECK(p.total - p.active == 40 * (64 - 6) * expert);
}

TEST_CASE("granitemoehybrid: layer kinds, biases and bad fields") {
  json c = {{"model_type", "granitemoehybrid"},
            {"hidden_size", 768},
            {"num_hidden_layers", 2},
            {"num_attention_heads", 12},
            {"num_key_value_heads", 4},
            {"vocab_size", 1000},
            {"num_local_experts", 0},
            {"shared_intermediate_size", 2048},
            {"mamba_n_heads", 48},
            {"mamba_d_head", 32},
            {"mamba_d_state", 128},
            {"layer_types", {"mamba", "attention"}}};
  const auto base = count_parameters(test::spec(c));
  c["mamba_proj_bias"] = true;  // in_proj (1536 + 1792 + 48) and out_proj (768) biases
  CHECK(count_parameters(test::spec(c)).total - base.total == 3376 + 768);
  c["mamba_proj_bias"] = false;
  c["attention_bias"] = true;
  CHECK(count_parameters(test::spec(c)).total - base.total == 768 + 2 * 256 + 768);
  c["attention_bias"] = false;
  c["position_embedding_type"] = "rope";
  CHECK(test::spec(c).attention.rotary_dim == 64);
  // No list: every layer Mamba (GraniteMoeHybridConfig.layers_block_type).
  json all = c;
  all.erase("layer_types");
  CHECK(count_parameters(test::spec(all)).attention == 0);

  json bad = c;
  bad["layer_types"] = json::array({"mamba", "moe"});
  CHECK_THROWS_WITH(test::spec(bad), Catch::Contains("\"mamba\" or \"attention\", but got \"moe\""));
  bad = c;
  bad["mamba_d_head"] = 64;
  CHECK_THROWS_WITH(test::spec(bad), Catch::Contains("mamba_d_head"));
  bad = c;
  bad["mamba_n_heads"] = 7;
  CHECK_THROWS_WITH(test::spec(bad), Catch::Contains("expected a divisor of mamba_expand x hidden_size"));
  bad = c;
  bad["num_local_experts"] = 4;
  bad["num_experts_per_tok"] = 6;
  CHECK_THROWS_WITH(test::spec(bad), Catch::Contains("expected at most the number of experts (4)"));
}

TEST_CASE("granitemoehybrid: Granite 4.0 H Small, 72 experts of 768 (top 10), Mamba-2 of 128 heads") {
  const flopcast::model_spec& m = test::model("granite-4.0-h-small");
  const auto p = count_parameters(m);
  // Mamba-2 at hidden 4096: inner 8192, 128 heads of 64, 1 group, state 128: conv channels 8448.
  const std::int64_t mamba = 4096LL * (8192 + 8448 + 128) + (8448 * 4 + 8448) + 3 * 128 + 8192 + 8192LL * 4096;
  CHECK(mamba == 102286976);
  const std::int64_t attn = 2 * 4096LL * 4096 + 2 * 4096LL * 1024;  // 32 heads, 8 KV heads of 128
  const std::int64_t expert = 3 * 4096LL * 768;
  const std::int64_t moe = 4096LL * 72 + 72 * expert + 3 * 4096LL * 1536;
  // 36 x 800,941,696 + 4 x 740,597,760 + 4096 + 100352 x 4096 = 32,207,337,984.
  CHECK(p.total == 36 * (mamba + moe + 8192) + 4 * (attn + moe + 8192) + 4096 + 100352LL * 4096);
  CHECK(p.total == 32207337984);
  CHECK(p.total - p.active == 40 * (72 - 10) * expert);
}

TEST_CASE("lfm2_moe: LFM2-8B-A1B, two dense layers then 32 experts of 1792 (top 4) with a routing bias") {
  const flopcast::model_spec& m = test::model("lfm2-8b-a1b");
  const auto p = count_parameters(m);
  const std::int64_t conv = 2048LL * 6144 + 2048 * 3 + 2048LL * 2048;       // 16,783,360
  const std::int64_t attn = 2 * 2048LL * 2048 + 2 * 2048LL * 512 + 2 * 64;  // 10,485,888
  const std::int64_t dense = 3 * 2048LL * 7168;                             // intermediate_size as written
  const std::int64_t expert = 3 * 2048LL * 1792;
  const std::int64_t moe = 2048LL * 32 + 32 + 32 * expert;  // gate, expert_bias, experts
  // 18 conv + 6 attention layers, 2 dense + 22 MoE feed-forwards, 2 norms per layer, the final
  // norm, 65536 x 2048 tied: 8,339,930,560 (the card's 8.3B).
  CHECK(p.total == 18 * conv + 6 * attn + 2 * dense + 22 * moe + 24 * 4096 + 2048 + 65536LL * 2048);
  CHECK(p.total == 8339930560);
  CHECK(p.total - p.active == 22 * (32 - 4) * expert);
  json c = {{"model_type", "lfm2_moe"},  {"hidden_size", 2048},           {"num_hidden_layers", 4},
            {"num_attention_heads", 32}, {"num_key_value_heads", 8},      {"vocab_size", 65536},
            {"intermediate_size", 7168}, {"moe_intermediate_size", 1792}, {"num_experts", 32},
            {"num_experts_per_tok", 4},  {"num_dense_layers", 4},         {"full_attn_idxs", {1}}};
  CHECK(count_parameters(test::spec(c)).mlp == 4 * dense);  // every layer dense, no adjustment
  c["num_experts_per_tok"] = 40;
  c["num_dense_layers"] = 0;
  CHECK_THROWS_WITH(test::spec(c), Catch::Contains("expected at most the number of experts (32)"));
}
