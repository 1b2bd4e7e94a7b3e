// OLMo 2, StarCoder2, Phi and Gemma 3: published counts and the structure behind them.
#include <catch2/catch.hpp>

#include "flopcast/flopcast.hpp"
#include "helpers.hpp"

using flopcast::count_parameters;

TEST_CASE("families a: bundled records match their published counts exactly") {
  CHECK(count_parameters(test::model("allenai/OLMo-2-1124-7B-Instruct")).total == 7298617344);
  CHECK(count_parameters(test::model("microsoft/phi-2")).total == 2779683840);
  CHECK(count_parameters(test::model("google/gemma-3-1b-it")).total == 999885952);
}

TEST_CASE("olmo2: q/k norms span the full projection, two post-norms per layer") {
  const auto m = test::model("allenai/OLMo-2-1124-7B-Instruct");
  CHECK(m.attention.qk_norm);
  CHECK(m.attention.qk_norm_full_width);
  CHECK(m.norms_per_layer == 2);
  const auto p = count_parameters(m);
  // Per layer: q_norm 4096 + k_norm 4096 + two 4096 RMSNorms; plus the final norm.
  CHECK(p.norm == 32 * (4096 + 4096 + 2 * 4096) + 4096);
  // 4 x 4096^2 attention + 3 x 4096 x 11008 MLP + 16384 norms.
  CHECK(p.per_layer[0] == std::int64_t{4} * 4096 * 4096 + std::int64_t{3} * 4096 * 11008 + 4 * 4096);
}

TEST_CASE("starcoder2: LayerNorm with bias, biases everywhere, plain MLP, sliding window") {
  // A two-layer config in StarCoder2's field names (sizes of starcoder2-15b shrunk).
  const auto m = flopcast::read_hf_config(R"({
    "model_type": "starcoder2", "hidden_size": 64, "intermediate_size": 256,
    "num_attention_heads": 8, "num_key_value_heads": 2, "num_hidden_layers": 2,
    "vocab_size": 100, "sliding_window": 32, "use_bias": true, "norm_type": "layer_norm",
    "hidden_act": "gelu_pytorch_tanh", "tie_word_embeddings": false})");
  CHECK(m.norm == flopcast::norm_kind::layernorm);
  CHECK_FALSE(m.mlp.gated);
  CHECK(m.mlp.bias);
  CHECK(m.attention.qkv_bias);
  CHECK(m.attention.o_bias);
  REQUIRE(m.groups.size() == 1);
  CHECK(m.groups[0].window == 32);
  CHECK(m.groups[0].count == 2);
  const auto p = count_parameters(m);
  // head_dim 8: q 64x64, k,v 64x16 each, o 64x64; biases 64+16+16+64.
  const std::int64_t attn = 64 * 64 * 2 + 2 * 64 * 16 + (64 + 16 + 16 + 64);
  const std::int64_t mlp = 2 * 64 * 256 + 256 + 64;
  const std::int64_t norms = 2 * (2 * 64);
  CHECK(p.per_layer[0] == attn + mlp + norms);
  CHECK(p.total == 2 * (attn + mlp + norms) + 2 * 64 + 2 * 100 * 64);
}

TEST_CASE("phi: one LayerNorm per layer, parallel attention, partial rotary, LM head bias") {
  const auto m = test::model("microsoft/phi-2");
  CHECK(m.norms_per_layer == 1);
  CHECK(m.norm == flopcast::norm_kind::layernorm);
  CHECK(m.parallel_attention);
  CHECK(m.attention.rotary_dim == 32);  // 0.4 x head_dim 80
  CHECK(m.lm_head_bias);
  const auto p = count_parameters(m);
  CHECK(p.norm == 32 * 2 * 2560 + 2 * 2560);     // input_layernorm per layer + final
  CHECK(p.output_head == 51200 * 2560 + 51200);  // untied head with bias
  CHECK(p.per_layer[0] == 4 * (2560 * 2560 + 2560) + 2 * 2560 * 10240 + 10240 + 2560 + 2 * 2560);
}

TEST_CASE("gemma3: 5 sliding layers to 1 global, four norms and q/k norms, tied") {
  const auto m = test::model("google/gemma-3-1b-it");
  CHECK(m.norms_per_layer == 4);
  CHECK(m.attention.qk_norm);
  CHECK_FALSE(m.attention.qk_norm_full_width);
  CHECK(m.tie_word_embeddings);
  // 26 layers, pattern 6: layers 5, 11, 17, 23 are global, the other 22 slide over 512.
  std::int64_t sliding = 0, global = 0;
  for (const auto& g : m.groups) (g.window == 512 ? sliding : global) += g.count;
  CHECK(sliding == 22);
  CHECK(global == 4);
  REQUIRE(m.layer_group_of.size() == 26);
  CHECK(m.groups[m.layer_group_of[5]].window == 0);
  CHECK(m.groups[m.layer_group_of[4]].window == 512);
  const auto p = count_parameters(m);
  CHECK(p.per_layer[0] == 1152 * 1024 * 2 + 2 * 1152 * 256 + 3 * 1152 * 6912 + 2 * 256 + 4 * 1152);
}

TEST_CASE("gemma3: the multimodal wrapper reaches the gemma3_text reader with its defaults") {
  // google/gemma-3-4b-it's text_config leaves heads, head_dim and vocab at the defaults.
  const auto m = flopcast::read_hf_config(R"({
    "architectures": ["Gemma3ForConditionalGeneration"], "model_type": "gemma3",
    "text_config": {"hidden_size": 2560, "intermediate_size": 10240, "model_type": "gemma3_text",
                    "num_hidden_layers": 34, "sliding_window": 1024},
    "vision_config": {"model_type": "siglip_vision_model"}})");
  CHECK(m.model_type == "gemma3_text");
  CHECK(m.vocab_size == 262208);
  CHECK(m.attention.num_heads == 8);
  CHECK(m.attention.num_kv_heads == 4);
  CHECK(m.attention.head_dim == 256);
  std::int64_t global = 0;
  for (const auto& g : m.groups)
    if (g.window == 0) global += g.count;
  CHECK(global == 5);  // layers 5, 11, 17, 23, 29
  // layer_types overrides the pattern.
  const auto lt = flopcast::read_hf_config(R"({"model_type": "gemma3_text", "num_hidden_layers": 2,
    "sliding_window": 16, "layer_types": ["full_attention", "sliding_attention"]})");
  CHECK(lt.groups[lt.layer_group_of[0]].window == 0);
  CHECK(lt.groups[lt.layer_group_of[1]].window == 16);
}
