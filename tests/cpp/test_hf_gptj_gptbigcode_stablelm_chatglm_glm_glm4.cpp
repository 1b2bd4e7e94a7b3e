// GPT-J, GPTBigCode, StableLM, ChatGLM and GLM / GLM-4: counts hand-computed from each family's
// modeling code at the sizes of its published checkpoints.
#include <catch2/catch.hpp>

#include "helpers.hpp"

using flopcast::count_parameters;
using test::json;

namespace {

json gptj_6b_config() {
  return {{"model_type", "gptj"},
          {"n_embd", 4096},
          {"n_layer", 28},
          {"n_head", 16},
          {"n_inner", nullptr},
          {"n_positions", 2048},
          {"rotary_dim", 64},
          {"vocab_size", 50400},
          {"tie_word_embeddings", false},
          {"activation_function", "gelu_new"}};
}

// THUDM/chatglm2-6b's sizes.
json chatglm2_6b_config() {
  return {{"model_type", "chatglm"},    {"hidden_size", 4096},      {"num_layers", 28},
          {"num_attention_heads", 32},  {"kv_channels", 128},       {"multi_query_attention", true},
          {"multi_query_group_num", 2}, {"ffn_hidden_size", 13696}, {"padded_vocab_size", 65024},
          {"add_bias_linear", false},   {"add_qkv_bias", true},     {"rmsnorm", true},
          {"post_layer_norm", true},    {"seq_length", 32768},      {"tie_word_embeddings", false}};
}

// THUDM/glm-4-9b-chat-hf's sizes in GlmForCausalLM form.
json glm_9b_config() {
  return {{"model_type", "glm"},        {"hidden_size", 4096},         {"num_hidden_layers", 40},
          {"num_attention_heads", 32},  {"num_key_value_heads", 2},    {"head_dim", 128},
          {"intermediate_size", 13696}, {"vocab_size", 151552},        {"partial_rotary_factor", 0.5},
          {"attention_bias", true},     {"tie_word_embeddings", false}};
}

}  // namespace

TEST_CASE("gptj: GPT-J-6B, parallel block, untied head with a bias", "[hf_gptj]") {
  const auto s = test::spec(gptj_6b_config());
  CHECK(s.parallel_attention);
  CHECK(s.norms_per_layer == 1);
  CHECK(s.attention.head_dim == 256);
  CHECK(s.attention.rotary_dim == 64);
  CHECK(s.mlp.intermediate_size == 16384);
  const auto p = count_parameters(s);
  // Per layer: q, k, v, out_proj 4 x 4096^2 (no biases); fc_in and fc_out 2 x 4096 x 16384 with
  // biases 16384 + 4096; ln_1 weight and bias 2 x 4096. Then wte 50400 x 4096, ln_f 2 x 4096 and
  // lm_head 50400 x 4096 plus its 50400 bias.
  const std::int64_t layer = 4 * 4096LL * 4096 + 2 * 4096LL * 16384 + 16384 + 4096 + 2 * 4096;
  CHECK(p.attention == 28 * 4 * 4096LL * 4096);
  CHECK(p.norm == 29 * 2 * 4096);
  CHECK(p.output_head == 50400LL * 4096 + 50400);
  CHECK(p.total == 28 * layer + 50400LL * 4096 + 2 * 4096 + 50400LL * 4096 + 50400);
  // GPTJForCausalLM loaded from EleutherAI/gpt-j-6B (data/models/gpt-j-6b.json).
  CHECK(p.total == 6050882784);
  CHECK(p.total == count_parameters(test::model("EleutherAI/gpt-j-6b")).total);
  // The card's 6053381344 is the Mesh Transformer JAX count: LayerNorms, fc_out and out biases
  // and the embedding bias once per each of 8 shards.
  CHECK(p.total + 7 * (28 * (2 * 4096 + 4096) + 2 * 4096) + 8 * 4096 == 6053381344);
}

TEST_CASE("gptj: rotary_dim null rotates the whole head; a wider one is refused", "[hf_gptj]") {
  auto c = gptj_6b_config();
  c["rotary_dim"] = nullptr;
  CHECK(test::spec(c).attention.rotary_dim == 256);
  c["rotary_dim"] = 512;
  CHECK_THROWS_WITH(test::spec(c), Catch::Contains("(/rotary_dim)"));
}

TEST_CASE("gpt_bigcode: SantaCoder, multi-query c_attn, learned positions, tied head", "[hf_gptj]") {
  // bigcode/gpt_bigcode-santacoder's sizes (mlc-llm's gpt_bigcode preset).
  json c = {{"model_type", "gpt_bigcode"},
            {"n_embd", 2048},
            {"n_layer", 24},
            {"n_head", 16},
            {"n_inner", 8192},
            {"n_positions", 2048},
            {"vocab_size", 49280},
            {"multi_query", true},
            {"activation_function", "gelu_pytorch_tanh"}};
  const auto s = test::spec(c);
  CHECK(s.attention.num_kv_heads == 1);
  CHECK(s.learned_positions == 2048);
  const auto p = count_parameters(s);
  // Per layer: c_attn 2048 -> 2048 + 2 x 128 with bias, c_proj 2048^2 with bias, c_fc and c_proj of
  // the MLP 2 x 2048 x 8192 with biases 8192 + 2048, ln_1 and ln_2 2 x 2 x 2048. Then wte 49280 x
  // 2048, wpe 2048 x 2048, ln_f 2 x 2048; lm_head tied.
  const std::int64_t layer = 2048LL * 2304 + 2304 + 2048LL * 2048 + 2048 + 2 * 2048LL * 8192 + 8192 + 2048 + 4 * 2048;
  CHECK(p.total == 24 * layer + 49280LL * 2048 + 2048LL * 2048 + 2 * 2048);
  CHECK(p.total == 1124886528);  // listed as 1.12B (data/models/gpt-bigcode-santacoder.json)
  CHECK(p.total == count_parameters(test::model("gpt_bigcode-santacoder")).total);
  c["multi_query"] = false;
  CHECK(count_parameters(test::spec(c)).total - p.total == 24 * 2 * (2048LL * 1920 + 1920));
}

TEST_CASE("stablelm: StableLM-3B-4E1T and StableLM 2 1.6B, LayerNorms with bias, partial rotary", "[hf_gptj]") {
  json c = {{"model_type", "stablelm"},    {"hidden_size", 2560},           {"num_hidden_layers", 32},
            {"num_attention_heads", 32},   {"num_key_value_heads", 32},     {"intermediate_size", 6912},
            {"vocab_size", 50304},         {"partial_rotary_factor", 0.25}, {"use_qkv_bias", false},
            {"tie_word_embeddings", false}};
  const auto s = test::spec(c);
  CHECK(s.norm == flopcast::norm_kind::layernorm);
  CHECK(s.attention.rotary_dim == 20);  // 25% of 80
  const auto p = count_parameters(s);
  // Per layer 4 x 2560^2 + 3 x 2560 x 6912 + 2 LayerNorms (2 x 2560 each); embed and head
  // 50304 x 2560 each; the final LayerNorm 2 x 2560.
  const std::int64_t layer = 4 * 2560LL * 2560 + 3 * 2560LL * 6912 + 4 * 2560;
  CHECK(p.total == 32 * layer + 2 * 50304LL * 2560 + 2 * 2560);
  CHECK(p.total == 2795443200);  // the StableLM-3B-4E1T card's "2,795,443,200"
  CHECK(p.total == count_parameters(test::model("stablelm-3b-4e1t")).total);

  // stabilityai/stablelm-2-1_6b's sizes: q/k/v biases (use_qkv_bias), a 100352-row vocabulary.
  const json two = {{"model_type", "stablelm"},  {"hidden_size", 2048},       {"num_hidden_layers", 24},
                    {"num_attention_heads", 32}, {"num_key_value_heads", 32}, {"intermediate_size", 5632},
                    {"vocab_size", 100352},      {"use_qkv_bias", true},      {"tie_word_embeddings", false}};
  const std::int64_t layer2 = 4 * 2048LL * 2048 + 3 * 2048 + 3 * 2048LL * 5632 + 4 * 2048;
  CHECK(count_parameters(test::spec(two)).total == 24 * layer2 + 2 * 100352LL * 2048 + 2 * 2048);
  CHECK(count_parameters(test::spec(two)).total == 1644515328);

  // stablelm_epoch (the remote-code form) names the rotary share rope_pct.
  auto epoch = c;
  epoch["model_type"] = "stablelm_epoch";
  epoch.erase("partial_rotary_factor");
  epoch["rope_pct"] = 0.5;
  CHECK(test::spec(epoch).attention.rotary_dim == 40);
  CHECK(count_parameters(test::spec(epoch)).total == p.total);

  // StableLM 2 12B style: one LayerNorm for the parallel block, a weight-only LayerNorm per head on
  // q (32 x 80 weights) and k (8 key/value heads: 8 x 80).
  auto parallel = c;
  parallel["use_parallel_residual"] = true;
  parallel["qk_layernorm"] = true;
  parallel["num_key_value_heads"] = 8;
  const auto ps = test::spec(parallel);
  CHECK(ps.parallel_attention);
  CHECK(ps.norms_per_layer == 1);
  CHECK(count_parameters(ps).norm == 32 * (2 * 2560 + 32 * 80 + 8 * 80) + 2 * 2560);
}

TEST_CASE("chatglm: ChatGLM2-6B, two key/value groups, half-head rotary, untied output", "[hf_gptj]") {
  const auto s = test::spec(chatglm2_6b_config());
  CHECK(s.attention.num_kv_heads == 2);
  CHECK(s.attention.head_dim == 128);
  CHECK(s.attention.rotary_dim == 64);
  CHECK(s.norm == flopcast::norm_kind::rmsnorm);
  const auto p = count_parameters(s);
  // Per layer: query_key_value 4096 -> 4096 + 2 x 2 x 128 = 4608 with bias, dense 4096^2 without,
  // dense_h_to_4h 4096 -> 2 x 13696 and dense_4h_to_h 13696 -> 4096 without biases, 2 RMSNorms.
  // Then word_embeddings and output_layer 65024 x 4096 each, final_layernorm 4096.
  const std::int64_t layer = 4096LL * 4608 + 4608 + 4096LL * 4096 + 3 * 4096LL * 13696 + 2 * 4096;
  CHECK(p.total == 28 * layer + 2 * 65024LL * 4096 + 4096);
  CHECK(p.total == 6243584000);  // calflops' count of chatglm2-6b (data/models/chatglm2-6b.json)
  CHECK(p.total == count_parameters(test::model("chatglm2-6b")).total);
  CHECK(p.total == count_parameters(test::model("chatglm3-6b")).total);  // the same shapes
  // GLM-4-9B-Chat (remote code): 40 layers, 151552 rows.
  auto glm4 = chatglm2_6b_config();
  glm4["num_layers"] = 40;
  glm4["padded_vocab_size"] = 151552;
  CHECK(count_parameters(test::spec(glm4)).total == 40 * layer + 2 * 151552LL * 4096 + 4096);
  CHECK(count_parameters(test::spec(glm4)).total == 9399951360);
  CHECK(count_parameters(test::model("glm-4-9b-chat")).total == 9399951360);
}

TEST_CASE("chatglm: add_bias_linear, no multi-query, a bad group count", "[hf_gptj]") {
  auto c = chatglm2_6b_config();
  const auto base = count_parameters(test::spec(c)).total;
  c["add_bias_linear"] = true;  // dense, dense_h_to_4h, dense_4h_to_h get biases
  CHECK(count_parameters(test::spec(c)).total - base == 28 * (4096 + 2 * 13696 + 4096));
  c["add_bias_linear"] = false;
  c["multi_query_attention"] = false;  // 32 key/value heads
  CHECK(test::spec(c).attention.num_kv_heads == 32);
  c["multi_query_attention"] = true;
  c["multi_query_group_num"] = 3;
  CHECK_THROWS_WITH(test::spec(c), Catch::Contains("(/multi_query_group_num)"));
}

TEST_CASE("chatglm: the first ChatGLM-6B (inner_hidden_size), tied head", "[hf_gptj]") {
  const json c = {{"model_type", "chatglm"},     {"hidden_size", 4096},         {"num_layers", 28},
                  {"num_attention_heads", 32},   {"inner_hidden_size", 16384},  {"vocab_size", 130528},
                  {"max_sequence_length", 2048}, {"position_encoding_2d", true}};
  const auto s = test::spec(c);
  CHECK(s.norm == flopcast::norm_kind::layernorm);
  CHECK(s.tie_word_embeddings);
  const auto p = count_parameters(s);
  // Per layer: query_key_value 3 x 4096^2 and dense 4096^2 with biases, dense_h_to_4h and
  // dense_4h_to_h 2 x 4096 x 16384 with biases, 2 LayerNorms; word_embeddings 130528 x 4096, a
  // final LayerNorm; lm_head tied.
  const std::int64_t layer = 4 * 4096LL * 4096 + 4 * 4096 + 2 * 4096LL * 16384 + 16384 + 4096 + 4 * 4096;
  CHECK(p.total == 28 * layer + 130528LL * 4096 + 2 * 4096);
  CHECK(p.total == 6173286400);  // calflops' count of chatglm-6b
  CHECK(p.total == count_parameters(test::model("chatglm-6b")).total);
}

TEST_CASE("glm: GLM-4-9B-Chat-hf, q/k/v biases only, half rotary", "[hf_gptj]") {
  const auto s = test::spec(glm_9b_config());
  CHECK(s.attention.qkv_bias);
  CHECK(!s.attention.o_bias);
  CHECK(s.attention.rotary_dim == 64);
  // The same weights as the remote-code glm-4-9b-chat: 9,399,951,360.
  auto remote = chatglm2_6b_config();
  remote["num_layers"] = 40;
  remote["padded_vocab_size"] = 151552;
  CHECK(count_parameters(s).total == count_parameters(test::spec(remote)).total);
  CHECK(count_parameters(s).total == 9399951360);
  CHECK(count_parameters(test::model("glm-4-9b-chat-hf")).total == 9399951360);
}

TEST_CASE("glm4: GLM-4-0414 adds two RMSNorms per layer", "[hf_gptj]") {
  auto c = glm_9b_config();
  c["model_type"] = "glm4";
  const auto p = count_parameters(test::spec(c));
  CHECK(p.total == 9399951360 + 40 * 2 * 4096);  // GLM-4-9B-0414: post_self_attn and post_mlp norms
  CHECK(p.total == 9400279040);
  // The bundled GLM-4-9B-0414 record: its published safetensors total.
  CHECK(count_parameters(test::model("glm-4-9b-0414")).total == 9400279040);
  // GLM-4-32B-0414's sizes: 61 layers of 6144, 48 heads, 2 key/value heads of 128, SwiGLU 23040.
  const json big = {{"model_type", "glm4"},       {"hidden_size", 6144},         {"num_hidden_layers", 61},
                    {"num_attention_heads", 48},  {"num_key_value_heads", 2},    {"head_dim", 128},
                    {"intermediate_size", 23040}, {"vocab_size", 151552},        {"partial_rotary_factor", 0.5},
                    {"attention_bias", true},     {"tie_word_embeddings", false}};
  const std::int64_t layer = 2 * 6144LL * 6144 + 6144 + 2 * 6144LL * 256 + 512 + 3 * 6144LL * 23040 + 4 * 6144;
  CHECK(count_parameters(test::spec(big)).total == 61 * layer + 2 * 151552LL * 6144 + 6144);
  CHECK(count_parameters(test::spec(big)).total == 32566487552);
}
