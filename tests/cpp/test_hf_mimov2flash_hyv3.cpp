// MiMo-V2-Flash (mimo_v2_flash): full and sliding-window layers with their own attention layouts
// (layer_group::attention); Hy3 (hy_v3). Counts hand-computed from vLLM's mimo_v2_flash.py and
// transformers' modular_mimo_v2_flash.py / modular_hy_v3.py at the published checkpoints' sizes.
#include <catch2/catch.hpp>

#include "helpers.hpp"

using flopcast::count_parameters;
using test::json;

namespace {

// XiaomiMiMo/MiMo-V2-Flash's bundled config (data/models/mimo-v2-flash.json).
json mimo_v2_flash_config() { return json::parse(test::read_text("data/models/mimo-v2-flash.json"))["config"]; }

}  // namespace

TEST_CASE("mimo_v2_flash: sliding-window layers with twice the KV heads and sinks, the published 309B") {
  const flopcast::model_spec m = test::spec(mimo_v2_flash_config());
  // Layer 0 full attention + dense MLP, layers 5, 11, ..., 47 full + MoE, the other 39 sliding + MoE.
  REQUIRE(m.groups.size() == 3);
  const auto p = count_parameters(m);
  // Full: q 4096 x 64 x 192, k 4096 x 4 x 192, v 4096 x 4 x 128, o 64 x 128 x 4096, 2 norms.
  const std::int64_t full = 4096LL * 64 * 192 + 4096LL * 4 * 192 + 4096LL * 4 * 128 + 64LL * 128 * 4096 + 2 * 4096;
  // Sliding: 8 KV heads and 64 sink logits.
  const std::int64_t swa = 4096LL * 64 * 192 + 4096LL * 8 * 192 + 4096LL * 8 * 128 + 64LL * 128 * 4096 + 64 + 2 * 4096;
  const std::int64_t dense = 3 * 4096LL * 16384;
  const std::int64_t expert = 3 * 4096LL * 2048;
  const std::int64_t moe = 4096LL * 256 + 256 + 256 * expert;  // router, score-correction bias, experts
  const std::int64_t embed = 152576LL * 4096;                  // untied: embedding and head
  CHECK(p.total == 2 * embed + 4096 + 9 * full + 39 * swa + dense + 47 * moe);
  CHECK(p.total == 308778780864);  // "309B total parameters" (model card)
  CHECK(p.active == p.total - 47 * 248 * expert);
  CHECK(p.active == 15445936320);  // "15B active parameters"
  CHECK(flopcast::matches_published(p.total, 309000000000, 3));
  CHECK(flopcast::matches_published(p.active, 15000000000, 2));
}

TEST_CASE("mimo_v2_flash: the KV cache follows each layer's own layout") {
  const flopcast::model_spec m = test::spec(mimo_v2_flash_config());
  // Per token: full layers 4 KV heads x (192 + 128), sliding 8 x (192 + 128), 2 bytes each.
  const double full = 4.0 * 320 * 2, swa = 8.0 * 320 * 2;
  CHECK(flopcast::kv_cache_bytes(m, 1, 100, flopcast::precision::bf16, 0) == Approx(100 * (9 * full + 39 * swa)));
  // Past the 128-token window the sliding layers keep 128 tokens.
  CHECK(flopcast::kv_cache_bytes(m, 1, 4096, flopcast::precision::bf16, 0) == Approx(4096 * 9 * full + 128 * 39 * swa));
  // The same config with every layer given the full layout would count 39 x 4 fewer KV heads' weights.
  json uniform = mimo_v2_flash_config();
  uniform["swa_num_key_value_heads"] = 4;
  uniform["add_swa_attention_sink_bias"] = false;
  const auto pu = count_parameters(test::spec(uniform));
  CHECK(count_parameters(m).total - pu.total == 39 * (4096LL * 4 * (192 + 128) + 64));
  CHECK(test::spec(uniform).groups.size() == 3);  // still sliding vs full windows
  // The q/k/v projections of a forward pass: 2 x tokens x 4096 x (q + k + v widths) per layer,
  // 64 x 192 + 4 x 320 in the full layers, 64 x 192 + 8 x 320 in the sliding ones; the sink
  // logits join each sliding layer's softmax (5 FLOPs per head and query).
  const flopcast::pass_flops f = flopcast::forward_flops(m, 1, 1000, true);
  CHECK(f.attention.qkv_projection == Approx(2.0 * 1000 * 4096 * (9 * 13568.0 + 39 * 14848.0)));
  json no_sinks = mimo_v2_flash_config();
  no_sinks["add_swa_attention_sink_bias"] = false;
  CHECK(f.attention.softmax - flopcast::forward_flops(test::spec(no_sinks), 1, 1000, true).attention.softmax ==
        Approx(39 * 5.0 * 1000 * 64));
  // The bundled record's estimate: the same per-token cache over all 48 layers (bf16 K/V).
  const json e = test::run({{"model", "XiaomiMiMo/MiMo-V2-Flash"}});
  REQUIRE(e["details"]["memory"]["kv_cache_precision"] == "bf16");
  CHECK(e["details"]["memory"]["kv_cache_per_token"].get<double>() == Approx(9 * full + 39 * swa));
}

TEST_CASE("mimo_v2_flash: transformers' spelling (layer_types, mlp_layer_types, no swa_ keys) counts the same") {
  json c = mimo_v2_flash_config();
  for (const char* k :
       {"hybrid_layer_pattern", "moe_layer_freq", "swa_num_attention_heads", "swa_num_key_value_heads", "swa_head_dim",
        "swa_v_head_dim", "add_swa_attention_sink_bias", "add_full_attention_sink_bias", "sliding_window_size"})
    c.erase(k);
  const auto p = count_parameters(test::spec(c));  // the defaults: full at 0 and every 6th, layer 0 dense
  CHECK(p.total == 308778780864);
  json types = json::array(), mlp = json::array();
  for (int i = 0; i < 48; ++i) {
    types.push_back(i == 0 || (i + 1) % 6 == 0 ? "full_attention" : "sliding_attention");
    mlp.push_back(i == 0 ? "dense" : "sparse");
  }
  c["layer_types"] = types;
  c["mlp_layer_types"] = mlp;
  CHECK(count_parameters(test::spec(c)).total == 308778780864);
}

TEST_CASE("mimo_v2_flash: bad per-layer fields name the field") {
  json c = mimo_v2_flash_config();
  c["swa_num_key_value_heads"] = 5;
  CHECK(test::error_of([&] { (void)test::spec(c); }).pointer() == "/swa_num_key_value_heads");
  c = mimo_v2_flash_config();
  c["hybrid_layer_pattern"][3] = 2;
  CHECK(test::error_of([&] { (void)test::spec(c); }).pointer() == "/hybrid_layer_pattern/3");
  c = mimo_v2_flash_config();
  c["moe_layer_freq"] = json::array({0, 1});
  CHECK(test::error_of([&] { (void)test::spec(c); }).pointer() == "/moe_layer_freq");
  c = mimo_v2_flash_config();
  c["sliding_window_size"] = 0;
  CHECK(test::error_of([&] { (void)test::spec(c); }).pointer() == "/sliding_window_size");
}

TEST_CASE("hy_v3: a dense first layer, then 192 experts with a shared one, the published 295B") {
  // tencent/Hy3-preview's bundled config (data/models/hy3-preview.json).
  const json c = json::parse(test::read_text("data/models/hy3-preview.json"))["config"];
  const auto p = count_parameters(test::spec(c));
  // Attention: q, o 4096 x 64 x 128; k, v 4096 x 8 x 128; per-head q/k norms; 2 norms.
  const std::int64_t attn = 2 * 4096LL * 8192 + 2 * 4096LL * 1024 + 2 * 128 + 2 * 4096;
  const std::int64_t expert = 3 * 4096LL * 1536;
  // MoE: router and expert bias over 192 experts, 192 routed and 1 shared expert of 1536.
  const std::int64_t moe = 4096LL * 192 + 192 + 192 * expert + expert;
  const std::int64_t embed = 120832LL * 4096;  // untied: embedding and head
  CHECK(p.total == 2 * embed + 4096 + 80 * attn + 3 * 4096LL * 13312 + 79 * moe);
  CHECK(p.total == 295033543488);  // "Total Parameters 295B" (model card; the 3.8B MTP layer apart)
  CHECK(p.active == p.total - 79 * 184 * expert);
  CHECK(p.active == 20675730240);  // "Activated Parameters 21B"
  CHECK(flopcast::matches_published(p.total, 295000000000, 3));
  CHECK(flopcast::matches_published(p.active, 21000000000, 2));
  // transformers' spelling: mlp_layer_types instead of first_k_dense_replace, no expert_hidden_dim.
  json t = c;
  t.erase("first_k_dense_replace");
  t.erase("expert_hidden_dim");
  json types = json::array({"dense"});
  for (int i = 1; i < 80; ++i) types.push_back("sparse");
  t["mlp_layer_types"] = types;
  CHECK(count_parameters(test::spec(t)).total == p.total);
  // Without per-head q/k norms: 80 x 2 x 128 fewer.
  t["qk_norm"] = false;
  CHECK(p.total - count_parameters(test::spec(t)).total == 80 * 2 * 128);
}

TEST_CASE("hy_v3: bad fields name the field") {
  json c = json::parse(test::read_text("data/models/hy3-preview.json"))["config"];
  c["num_experts_per_tok"] = 193;
  CHECK(test::error_of([&] { (void)test::spec(c); }).pointer() == "/num_experts_per_tok");
  c = json::parse(test::read_text("data/models/hy3-preview.json"))["config"];
  c["num_experts"] = 0;
  CHECK(test::error_of([&] { (void)test::spec(c); }).pointer() == "/num_experts");
}
