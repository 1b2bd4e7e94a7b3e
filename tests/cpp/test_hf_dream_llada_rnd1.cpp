// Dream, LLaDA and RND1 (masked-diffusion decoders): counts hand-computed from their checkpoints'
// modeling_dream.py (Qwen2 modules), modeling_llada.py (OLMo's llama block) and modeling_rnd.py
// (Qwen3-MoE's modules).
#include <catch2/catch.hpp>

#include "helpers.hpp"

using flopcast::count_parameters;
using test::json;

namespace {

// GSAI-ML/LLaDA-8B-Instruct's sizing fields.
json dream_llada_test_llada() {
  return {{"model_type", "llada"},
          {"d_model", 4096},
          {"n_layers", 32},
          {"n_heads", 32},
          {"n_kv_heads", 32},
          {"mlp_hidden_size", 12288},
          {"vocab_size", 126464},
          {"embedding_size", 126464},
          {"weight_tying", false},
          {"block_type", "llama"},
          {"include_bias", false},
          {"include_qkv_bias", false},
          {"layer_norm_type", "rms"},
          {"rope", true},
          {"max_sequence_length", 4096},
          {"activation_type", "silu"},
          {"attention_layer_norm", false}};
}

}  // namespace

TEST_CASE("dream: Qwen2's modules under model_type Dream") {
  // Dream-org/Dream-v0-Instruct-7B: Qwen2.5-7B's sizes, untied head.
  json c = {{"model_type", "Dream"},     {"hidden_size", 3584},          {"num_hidden_layers", 28},
            {"num_attention_heads", 28}, {"num_key_value_heads", 4},     {"intermediate_size", 18944},
            {"vocab_size", 152064},      {"tie_word_embeddings", false}, {"use_sliding_window", false}};
  CHECK(test::spec(c).model_type == "Dream");
  const auto p = count_parameters(test::spec(c));
  // 28 x (q, o 3584^2; k, v 512 x 3584; q/k/v biases 3584 + 2 x 512; 3 x 3584 x 18944; 2 norms)
  // + 2 x 152064 x 3584 + final norm = Qwen2.5-7B's 7,615,616,512.
  const std::int64_t layer = 2 * 3584LL * 3584 + 2 * 512LL * 3584 + (3584 + 2 * 512) + 3 * 3584LL * 18944 + 2 * 3584;
  CHECK(p.total == 28 * layer + 2 * 152064LL * 3584 + 3584);
  CHECK(p.total == 7615616512);
  c["model_type"] = "qwen2";
  CHECK(count_parameters(test::spec(c)).total == p.total);
}

TEST_CASE("llada: the llama block of LLaDA 8B and its published 8.02B") {
  const auto p = count_parameters(test::spec(dream_llada_test_llada()));
  // 32 x (q, k, v, attn_out 4096^2; ff_proj, up_proj, ff_out 4096 x 12288; 2 RMSNorms)
  // + wte and ff_out head 126464 x 4096 each + ln_f = 8,015,581,184 (the card's 8.02B; 6.98B
  // without the two vocabulary tables).
  const std::int64_t layer = 4 * 4096LL * 4096 + 3 * 4096LL * 12288 + 2 * 4096;
  CHECK(p.total == 32 * layer + 2 * 126464LL * 4096 + 4096);
  CHECK(p.total == 8015581184);
  CHECK(p.total - 2 * 126464LL * 4096 == 6979588096);
  CHECK(count_parameters(test::model("llada-8b")).total == p.total);
}

TEST_CASE("llada: small configs, biases, tying and unsupported blocks") {
  // A 100M LLaDA from the family's training recipes: d_model 448, 6 layers, 7 heads, MLP 768,
  // 126464 rows: 2 x 126464 x 448 + 6 x (4 x 448^2 + 3 x 448 x 768 + 2 x 448) + 448 = 124,327,616
  // (what transformers' num_parameters() reports for it).
  json c = {{"model_type", "llada"},
            {"d_model", 448},
            {"n_layers", 6},
            {"n_heads", 7},
            {"n_kv_heads", 7},
            {"mlp_hidden_size", 768},
            {"mlp_ratio", 2},
            {"vocab_size", 126464},
            {"embedding_size", 126464},
            {"weight_tying", false},
            {"block_type", "llama"},
            {"include_bias", false},
            {"layer_norm_type", "rms"},
            {"max_sequence_length", 1024}};
  const auto p = count_parameters(test::spec(c));
  CHECK(p.total == 124327616);
  c["weight_tying"] = true;
  CHECK(p.total - count_parameters(test::spec(c)).total == 126464LL * 448);
  c["weight_tying"] = false;
  c["include_qkv_bias"] = true;
  CHECK(count_parameters(test::spec(c)).total - p.total == 6 * 3 * 448);
  c["include_qkv_bias"] = false;
  c["include_bias"] = true;
  c["bias_for_layer_norm"] = false;
  // q, k, v, attn_out 448 each; ff_proj, up_proj 768 each, ff_out 448; the head 126464.
  CHECK(count_parameters(test::spec(c)).total - p.total == 6 * (4 * 448 + 2 * 768 + 448) + 126464);
  c["include_bias"] = false;
  c.erase("mlp_hidden_size");  // mlp_ratio x d_model
  CHECK(test::spec(c).mlp.intermediate_size == 896);

  json bad = dream_llada_test_llada();
  bad["block_type"] = "sequential";
  CHECK_THROWS_WITH(test::spec(bad), Catch::Contains("expected \"llama\""));
  bad = dream_llada_test_llada();
  bad["attention_layer_norm"] = true;
  CHECK_THROWS_WITH(test::spec(bad), Catch::Contains("q/k norms are not supported"));
  bad = dream_llada_test_llada();
  bad["n_kv_heads"] = 5;
  CHECK_THROWS_WITH(test::spec(bad), Catch::Contains("expected a divisor of n_heads (32)"));
}

TEST_CASE("rnd1: Qwen3-30B-A3B's MoE decoder under model_type rnd1") {
  // radicalnumerics/RND1-Base-0910: RND1Config's Qwen3-30B-A3B defaults.
  json c = {{"model_type", "rnd1"},      {"hidden_size", 2048},
            {"intermediate_size", 6144}, {"moe_intermediate_size", 768},
            {"num_experts", 128},        {"num_experts_per_tok", 8},
            {"decoder_sparse_step", 1},  {"mlp_only_layers", json::array()},
            {"num_hidden_layers", 48},   {"num_attention_heads", 32},
            {"num_key_value_heads", 4},  {"head_dim", 128},
            {"vocab_size", 151936},      {"tie_word_embeddings", false}};
  const auto p = count_parameters(test::spec(c));
  // 48 x (q 2048 x 4096, k, v 2048 x 512, o 4096 x 2048, q/k norms 2 x 128, router 2048 x 128,
  // 128 experts of 3 x 2048 x 768, 2 norms) + 2 x 151936 x 2048 + final norm: Qwen3-30B-A3B's
  // 30,532,122,624.
  const std::int64_t layer =
      2 * 2048LL * 4096 + 2 * 2048LL * 512 + 2 * 128 + 2048LL * 128 + 128 * 3 * 2048LL * 768 + 2 * 2048;
  CHECK(p.total == 48 * layer + 2 * 151936LL * 2048 + 2048);
  CHECK(p.total == 30532122624);
  c["model_type"] = "qwen3_moe";
  CHECK(count_parameters(test::spec(c)).total == p.total);
}
