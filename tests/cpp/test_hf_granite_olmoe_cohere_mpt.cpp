// Granite, Granite-MoE, OLMoE, Cohere and MPT: counts hand-computed from each family's modeling
// code at the sizes of its published checkpoints.
#include <catch2/catch.hpp>

#include "helpers.hpp"

using flopcast::count_parameters;
using test::json;

TEST_CASE("granite: a tied Llama, the multipliers change no count") {
  // ibm-granite/granite-3.3-8b-instruct's sizes.
  json c = {{"model_type", "granite"},
            {"hidden_size", 4096},
            {"num_hidden_layers", 40},
            {"num_attention_heads", 32},
            {"num_key_value_heads", 8},
            {"intermediate_size", 12800},
            {"vocab_size", 49159},
            {"tie_word_embeddings", true},
            {"attention_multiplier", 0.0078125},
            {"embedding_multiplier", 12.0},
            {"residual_multiplier", 0.22},
            {"logits_scaling", 16.0},
            {"attention_bias", false},
            {"mlp_bias", false}};
  const auto p = count_parameters(test::spec(c));
  // 40 x (q, o 4096^2; k, v 1024 x 4096; 3 x 4096 x 12800; 2 norms) + 49159 x 4096 + final norm.
  const std::int64_t layer = 2 * 4096LL * 4096 + 2 * 1024LL * 4096 + 3 * 4096LL * 12800 + 2 * 4096;
  CHECK(p.total == 40 * layer + 49159LL * 4096 + 4096);
  CHECK(p.total == 8170864640);
  CHECK(p.output_head == 0);
  auto llama = c;
  llama["model_type"] = "llama";
  CHECK(count_parameters(test::spec(llama)).total == p.total);
  c["attention_bias"] = true;
  CHECK(count_parameters(test::spec(c)).total - p.total == 40 * (2 * 4096 + 2 * 1024));
}

TEST_CASE("granitemoe: every layer a mixture of num_local_experts experts") {
  // ibm-granite/granite-3.0-1b-a400m-base's sizes.
  const json c = {{"model_type", "granitemoe"},  {"hidden_size", 1024},         {"num_hidden_layers", 24},
                  {"num_attention_heads", 16},   {"num_key_value_heads", 8},    {"intermediate_size", 512},
                  {"num_local_experts", 32},     {"num_experts_per_tok", 8},    {"vocab_size", 49155},
                  {"tie_word_embeddings", true}, {"embedding_multiplier", 12.0}};
  const auto p = count_parameters(test::spec(c));
  const std::int64_t expert = 3 * 1024LL * 512;
  const std::int64_t layer = 2 * 1024LL * 1024 + 2 * 512LL * 1024 + 2 * 1024 + 32 * 1024 + 32 * expert;
  CHECK(p.total == 24 * layer + 49155LL * 1024 + 1024);
  CHECK(p.total - p.active == 24 * 24 * expert);
}

TEST_CASE("olmoe: 64 experts, 8 per token, whole-projection q/k norms, no shared expert") {
  // allenai/OLMoE-1B-7B-0924's sizes.
  const json c = {{"model_type", "olmoe"},     {"hidden_size", 2048},
                  {"num_hidden_layers", 16},   {"num_attention_heads", 16},
                  {"num_key_value_heads", 16}, {"intermediate_size", 1024},
                  {"num_experts", 64},         {"num_experts_per_tok", 8},
                  {"vocab_size", 50304},       {"tie_word_embeddings", false},
                  {"norm_topk_prob", false},   {"clip_qkv", nullptr}};
  const auto s = test::spec(c);
  CHECK(s.moe.shared_intermediate_size == 0);
  const auto p = count_parameters(s);
  const std::int64_t expert = 3 * 2048LL * 1024;
  // Per layer: 4 x 2048^2 attention, q_norm and k_norm of 2048 each, 2 norms, router 2048 x 64.
  const std::int64_t layer = 4 * 2048LL * 2048 + 2 * 2048 + 2 * 2048 + 2048 * 64 + 64 * expert;
  CHECK(p.total == 16 * layer + 2 * 50304LL * 2048 + 2048);
  CHECK(p.total == 6919161856);
  CHECK(p.active == p.total - 16 * 56 * expert);
  CHECK(p.active == 1282017280);  // "1B active" (OLMoE-1B-7B)
}

TEST_CASE("cohere: one bias-free LayerNorm per parallel layer, tied head, optional q/k norm") {
  // CohereForAI/c4ai-command-r-v01's sizes.
  json c = {{"model_type", "cohere"},    {"hidden_size", 8192},       {"num_hidden_layers", 40},
            {"num_attention_heads", 64}, {"num_key_value_heads", 64}, {"intermediate_size", 22528},
            {"vocab_size", 256000},      {"logit_scale", 0.0625},     {"use_qk_norm", false}};
  const auto s = test::spec(c);
  CHECK(s.parallel_attention);
  CHECK(s.tie_word_embeddings);
  const auto p = count_parameters(s);
  CHECK(p.norm == 41 * 8192);  // 40 input_layernorms + the final norm, weights only
  CHECK(p.total == 40 * (4 * 8192LL * 8192 + 3 * 8192LL * 22528 + 8192) + 256000LL * 8192 + 8192);
  CHECK(p.total == 34980831232);
  c["use_qk_norm"] = true;
  c["num_key_value_heads"] = 8;
  const auto q = count_parameters(test::spec(c));
  // GQA drops 2 x (8192 - 1024) x 8192 per layer; q_norm (64 x 128) and k_norm (8 x 128) add.
  CHECK(p.total - q.total == 40 * (2 * (8192LL - 1024) * 8192 - (64 * 128 + 8 * 128)));
}

TEST_CASE("mpt: ALiBi, no biases, bias-free LayerNorms, expansion_ratio MLP") {
  // mosaicml/mpt-7b's sizes.
  json c = {{"model_type", "mpt"},
            {"d_model", 4096},
            {"n_layers", 32},
            {"n_heads", 32},
            {"expansion_ratio", 4},
            {"max_seq_len", 2048},
            {"vocab_size", 50432},
            {"no_bias", true},
            {"attn_config", {{"alibi", true}, {"attn_type", "multihead_attention"}, {"qk_ln", false}}}};
  const auto s = test::spec(c);
  CHECK(s.position == flopcast::position_kind::alibi);
  CHECK(s.learned_positions == 0);
  CHECK(!s.mlp.gated);
  const auto p = count_parameters(s);
  CHECK(p.attention == 32 * 4 * 4096LL * 4096);  // no q/k/v/o biases
  CHECK(p.mlp == 32 * 2 * 4096LL * 16384);       // no MLP biases
  CHECK(p.norm == 65 * 4096);                    // 2 per layer + norm_f, weights only
  CHECK(p.embedding == 50432LL * 4096);
  CHECK(p.output_head == 0);
  CHECK(p.total == 6649286656);
  c["no_bias"] = false;
  CHECK(count_parameters(test::spec(c)).total - p.total == 32 * (4 * 4096 + 16384 + 4096) + 65 * 4096);
  c["no_bias"] = true;
  c["attn_config"]["alibi"] = false;
  CHECK(count_parameters(test::spec(c)).total - p.total == 2048 * 4096);
  c["attn_config"]["alibi"] = true;
  c["attn_config"]["qk_ln"] = true;
  CHECK_THROWS_WITH(test::spec(c), Catch::Contains("(/attn_config/qk_ln)"));
}
