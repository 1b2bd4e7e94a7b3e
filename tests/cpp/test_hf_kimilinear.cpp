// Kimi Linear (kimi_linear): Kimi Delta Attention beside MLA with a DeepSeek-V3-style MoE. The
// counts are summed by hand from vLLM's kimi_linear.py (KimiMLAAttention, KimiMoE, KimiMLP) and
// layers/kda.py (KimiDeltaAttention), whose modules match the checkpoint's tensor list.
#include <catch2/catch.hpp>

#include "flopcast/flopcast.hpp"
#include "helpers.hpp"

using flopcast::count_parameters;
using flopcast::kv_cache_bytes;
using flopcast::mixer_kind;
using flopcast::precision;
using test::json;

namespace {

json kimilinear_config() {
  return json::parse(test::read_text("data/models/kimi-linear-48b-a3b-instruct.json"))["config"];
}

}  // namespace

TEST_CASE("kimi_linear: KDA and MLA layers by the 1-based lists; Kimi-Linear-48B-A3B to 49,122,681,728") {
  const auto& m = test::model("moonshotai/Kimi-Linear-48B-A3B-Instruct");
  CHECK(m.model_type == "kimi_linear");
  CHECK(m.max_position_embeddings == 1048576);  // model_max_length
  CHECK(m.attention.mla);
  CHECK(m.attention.q_lora_rank == 0);  // q_lora_rank null: a plain q_proj
  CHECK(m.linear.num_key_heads == 32);
  CHECK(m.linear.num_value_heads == 32);
  CHECK(m.linear.key_head_dim == 128);
  CHECK(m.linear.value_head_dim == 128);
  CHECK(m.linear.decay_rank == 128);
  CHECK(m.linear.gate_rank == 128);
  CHECK(m.linear.conv_kernel == 4);
  // kda_layers [1, 2, 3, 5, ...]: layer 0 is KDA with the dense MLP (first_k_dense_replace 1),
  // 19 more KDA layers with MoE, and the 7 MLA layers [4, 8, ..., 24, 27] (0-based 3, 7, ..., 26).
  REQUIRE(m.groups.size() == 3);
  const auto& kda_dense = m.groups[m.layer_group_of[0]];
  const auto& kda_moe = m.groups[m.layer_group_of[1]];
  const auto& mla = m.groups[m.layer_group_of[3]];
  CHECK(kda_dense.mixer == mixer_kind::linear_attention);
  CHECK_FALSE(kda_dense.moe);
  CHECK(kda_dense.count == 1);
  CHECK(kda_moe.mixer == mixer_kind::linear_attention);
  CHECK(kda_moe.moe);
  CHECK(kda_moe.count == 19);
  CHECK(mla.mixer == mixer_kind::attention);
  CHECK(mla.moe);
  CHECK(mla.count == 7);
  CHECK(mla.nope);  // mla_use_nope
  CHECK(m.layer_group_of[26] == m.layer_group_of[3]);
  CHECK(m.layer_group_of[25] == m.layer_group_of[1]);

  const auto p = count_parameters(m);
  const std::int64_t h = 2304, P = 32 * 128;
  // KDA: q/k/v_proj 3 x 2304 x 4096, b_proj 2304 x 32, f_a_proj and g_a_proj 2304 x 128 each,
  // f_b_proj and g_b_proj 128 x 4096 each, dt_bias 4096, A_log 32, q/k/v_conv1d 3 x 4096 x 4,
  // o_norm 128, o_proj 4096 x 2304 = 39,514,272.
  const std::int64_t kda = 3 * h * P + h * 32 + 2 * h * 128 + 2 * 128 * P + P + 32 + 3 * P * 4 + 128 + P * h;
  CHECK(kda == 39514272);
  CHECK(p.mixer == 20 * kda);
  // MLA: q_proj 2304 x 32 x 192, kv_a_proj_with_mqa 2304 x (512 + 64), kv_a_layernorm 512,
  // kv_b_proj 512 x 32 x (128 + 128), o_proj 32 x 128 x 2304 = 29,114,880.
  const std::int64_t mla_attn = h * 32 * 192 + h * 576 + 512 + 512LL * 32 * 256 + 32LL * 128 * h;
  CHECK(mla_attn == 29114880);
  // MoE: router 256 x 2304 with its 256 correction biases, one shared expert and 256 routed
  // experts of 3 x 2304 x 1024 each; the dense MLP of layer 0 is 3 x 2304 x 9216.
  const std::int64_t expert = 3 * h * 1024;
  const std::int64_t moe = 256 * h + 256 + expert + 256 * expert;
  const std::int64_t dense = 3 * h * 9216;
  const std::int64_t norms = 2 * h;  // input_layernorm, post_attention_layernorm
  CHECK(p.per_layer[m.layer_group_of[0]] == kda + norms + dense);
  CHECK(p.per_layer[m.layer_group_of[1]] == kda + norms + moe);
  CHECK(p.per_layer[m.layer_group_of[3]] == mla_attn + norms + moe);
  // Embedding and untied head 163840 x 2304 each, final norm.
  const std::int64_t total =
      (kda + norms + dense) + 19 * (kda + norms + moe) + 7 * (mla_attn + norms + moe) + 2 * 163840 * h + h;
  CHECK(p.total == total);
  // Published: safetensors.total 49,122,681,728 (Hub API); the card rounds it to 48B.
  CHECK(p.total == 49122681728);
  // Active: 8 of the 256 routed experts per MoE layer: 3,484,459,904, the card's "3B activated".
  CHECK(p.active == p.total - 26 * 248 * expert);
  CHECK(p.active == 3484459904);
}

TEST_CASE("kimi_linear: a constant KDA state per sequence, MLA latents per token") {
  const auto& m = test::model("moonshotai/Kimi-Linear-48B-A3B-Instruct");
  // 20 KDA layers x (32 heads x 128 x 128 state + q, k, v conv windows of 3 x 4096 x 3), bf16:
  // 22,446,080 bytes per sequence, whatever the context.
  const double state = 20.0 * (32 * 128 * 128 + 3 * 4096 * 3) * 2;
  CHECK(state == 22446080);
  // 7 MLA layers cache the 512 latent and the 64-wide key of the rope part per token.
  const double per_token = 7.0 * (512 + 64) * 2;
  CHECK(kv_cache_bytes(m, 1, 1000, precision::bf16, 0) == state + 1000 * per_token);
  CHECK(kv_cache_bytes(m, 4, 100000, precision::bf16, 0) == 4 * (state + 100000 * per_token));

  // Without linear_attn_config every layer is MLA (KimiLinearConfig.is_kda_layer): no state, and
  // 27 layers of latents per token, the cache Kimi Linear's 3:1 hybrid saves about 74% of.
  json c = kimilinear_config();
  c.erase("linear_attn_config");
  const auto all_mla = test::spec(c);
  CHECK(count_parameters(all_mla).mixer == 0);
  CHECK(kv_cache_bytes(all_mla, 1, 1000, precision::bf16, 0) == 1000 * 27.0 * (512 + 64) * 2);

  // The KDA mixer's FLOPs for one token: q, k, v, b, f_a and g_a from the hidden state, f_b and
  // g_b up to 4096, the convs and SiLU, q/k L2 norms, the per-channel decay and beta gates, 7 per
  // state element, the gated RMSNorm and o_proj.
  const double h = 2304, P = 4096, H = 32;
  const double in_w = 3 * P + H + 128 + 128;
  const double per_layer = 2 * h * in_w + 2 * 128 * P + 2 * 128 * P + 2 * 3 * P * 4 + 3 * P + 8 * P + (5 * P + 5 * H) +
                           7 * H * 128 * 128 + 6 * P + 2 * P * h;
  CHECK(flopcast::forward_flops(m, 1, 1, true).parts.mixer == Approx(20 * per_layer).epsilon(1e-12));
}

TEST_CASE("kimi_linear: bad fields name the field") {
  json c = kimilinear_config();
  c["linear_attn_config"]["kda_layers"][0] = 0;  // the lists are 1-based
  CHECK_THROWS_WITH(test::spec(c), Catch::Contains("(/linear_attn_config/kda_layers/0)"));
  c["linear_attn_config"]["kda_layers"][0] = 28;
  CHECK_THROWS_WITH(test::spec(c), Catch::Contains("(/linear_attn_config/kda_layers/0)"));
  c["linear_attn_config"]["kda_layers"][0] = 4;  // also a full-attention layer
  CHECK_THROWS_WITH(test::spec(c), Catch::Contains("(/linear_attn_config/full_attn_layers)"));
  c = kimilinear_config();
  c["linear_attn_config"]["num_heads"] = 0;
  CHECK_THROWS_WITH(test::spec(c), Catch::Contains("(/linear_attn_config/num_heads)"));
  c = kimilinear_config();
  c["linear_attn_config"].erase("short_conv_kernel_size");
  CHECK_THROWS_WITH(test::spec(c), Catch::Contains("(/linear_attn_config/short_conv_kernel_size)"));
  c = kimilinear_config();
  c["linear_attn_config"]["use_full_rank_gate"] = true;
  CHECK_THROWS_WITH(test::spec(c), Catch::Contains("(/linear_attn_config/use_full_rank_gate)"));
  c = kimilinear_config();
  c["linear_attn_config"] = 4;
  CHECK_THROWS_WITH(test::spec(c), Catch::Contains("(/linear_attn_config)"));
  c = kimilinear_config();
  c["num_experts_per_token"] = 300;
  CHECK_THROWS_WITH(test::spec(c), Catch::Contains("(/num_experts_per_token)"));
  c = kimilinear_config();
  c["moe_layer_freq"] = 0;
  CHECK_THROWS_WITH(test::spec(c), Catch::Contains("(/moe_layer_freq)"));
}
