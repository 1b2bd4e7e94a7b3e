// Baichuan, Qwen 1, OLMo 1, InternLM3, MiniCPM and Nemotron: counts hand-computed from each
// family's modeling code at the sizes of its published checkpoints.
#include <catch2/catch.hpp>

#include "helpers.hpp"

using flopcast::count_parameters;
using test::json;

namespace {

// A Llama-shaped decoder with the sizes every family below overrides.
json baichuan_7b_config() {
  return {{"model_type", "baichuan"},        {"hidden_size", 4096},         {"num_hidden_layers", 32},
          {"num_attention_heads", 32},       {"intermediate_size", 11008},  {"vocab_size", 64000},
          {"max_position_embeddings", 4096}, {"tie_word_embeddings", false}};
}

}  // namespace

TEST_CASE("baichuan: Baichuan-7B with rotary, Baichuan 2 13B with ALiBi", "[hf_baichuan]") {
  const auto s = test::spec(baichuan_7b_config());
  CHECK(s.position == flopcast::position_kind::rotary);
  const auto p = count_parameters(s);
  // Per layer: W_pack 3 x 4096^2 and o_proj 4096^2 without biases, SwiGLU 3 x 4096 x 11008, two
  // RMSNorms; embed_tokens and lm_head 64000 x 4096 each; the final norm.
  const std::int64_t layer = 4 * 4096LL * 4096 + 3 * 4096LL * 11008 + 2 * 4096;
  CHECK(p.total == 32 * layer + 2 * 64000LL * 4096 + 4096);
  CHECK(p.total == 7000559616);  // calflops' count of baichuan-7B
  CHECK(p.total == count_parameters(test::model("baichuan-7b")).total);
  // Baichuan2-13B's sizes: hidden 5120, 40 layers of 40 heads, SwiGLU 13696, 125696 rows; ALiBi.
  const json big = {{"model_type", "baichuan"},  {"hidden_size", 5120},         {"num_hidden_layers", 40},
                    {"num_attention_heads", 40}, {"intermediate_size", 13696},  {"vocab_size", 125696},
                    {"model_max_length", 4096},  {"tie_word_embeddings", false}};
  const auto b = test::spec(big);
  CHECK(b.position == flopcast::position_kind::alibi);
  CHECK(b.attention.rotary_dim == 0);
  CHECK(b.max_position_embeddings == 4096);
  const std::int64_t layer13 = 4 * 5120LL * 5120 + 3 * 5120LL * 13696 + 2 * 5120;
  CHECK(count_parameters(b).total == 40 * layer13 + 2 * 125696LL * 5120 + 5120);
  CHECK(count_parameters(b).total == 13896668160);
}

TEST_CASE("qwen: Qwen-7B, c_attn bias, w1/w2 of intermediate_size / 2", "[hf_baichuan]") {
  json c = {{"model_type", "qwen"},
            {"hidden_size", 4096},
            {"num_hidden_layers", 32},
            {"num_attention_heads", 32},
            {"kv_channels", 128},
            {"intermediate_size", 22016},
            {"vocab_size", 151936},
            {"no_bias", true},
            {"rotary_pct", 1.0},
            {"seq_length", 8192},
            {"max_position_embeddings", 32768},
            {"tie_word_embeddings", false}};
  const auto s = test::spec(c);
  CHECK(s.mlp.intermediate_size == 11008);
  CHECK(s.attention.qkv_bias);
  CHECK(!s.attention.o_bias);
  const auto p = count_parameters(s);
  // Per layer: c_attn 4096 -> 3 x 4096 with bias, c_proj 4096^2, w1 and w2 4096 -> 11008 and the MLP
  // c_proj 11008 -> 4096, ln_1 and ln_2 (RMSNorm); wte and lm_head 151936 x 4096; ln_f.
  const std::int64_t layer = 4 * 4096LL * 4096 + 3 * 4096 + 3 * 4096LL * 11008 + 2 * 4096;
  CHECK(p.total == 32 * layer + 2 * 151936LL * 4096 + 4096);
  CHECK(p.total == 7721324544);  // calflops' and chatllm.cpp's count of Qwen-7B
  CHECK(p.total == count_parameters(test::model("qwen-7b")).total);
  c["no_bias"] = false;  // c_proj, w1, w2 and the MLP's c_proj get biases
  CHECK(count_parameters(test::spec(c)).total - p.total == 32 * (4096 + 2 * 11008 + 4096));
  c["intermediate_size"] = 22015;
  CHECK_THROWS_WITH(test::spec(c), Catch::Contains("(/intermediate_size)"));
}

TEST_CASE("olmo: OLMo 1 LayerNorms carry no parameters", "[hf_baichuan]") {
  const json c = {{"model_type", "olmo"},       {"hidden_size", 2048},       {"num_hidden_layers", 16},
                  {"num_attention_heads", 16},  {"num_key_value_heads", 16}, {"intermediate_size", 8192},
                  {"vocab_size", 50304},        {"attention_bias", false},   {"clip_qkv", nullptr},
                  {"tie_word_embeddings", true}};
  const auto s = test::spec(c);
  CHECK(!s.norm_affine);
  const auto p = count_parameters(s);
  CHECK(p.norm == 0);
  // Per layer: 4 x 2048^2 attention, SwiGLU 3 x 2048 x 8192; embed_tokens 50304 x 2048, tied head.
  CHECK(p.total == 16 * (4 * 2048LL * 2048 + 3 * 2048LL * 8192) + 50304LL * 2048);
  CHECK(p.total == 1176764416);  // OLMo-1B-hf
  CHECK(p.total == count_parameters(test::model("olmo-1b-hf")).total);
  // OLMo-7B-hf: 32 layers of 4096, SwiGLU 11008, untied head.
  const auto seven = count_parameters(test::model("olmo-7b-hf"));
  CHECK(seven.total == 32 * (4 * 4096LL * 4096 + 3 * 4096LL * 11008) + 2 * 50304LL * 4096);
  CHECK(seven.total == 6888095744);
  // The same sizes under llama count the norms' weights: 2 per layer and the final one.
  auto llama = c;
  llama["model_type"] = "llama";
  CHECK(count_parameters(test::spec(llama)).total - p.total == 33 * 2048);
}

TEST_CASE("internlm3: InternLM3-8B-Instruct, GQA, qkv_bias and bias switches", "[hf_baichuan]") {
  json c = {{"model_type", "internlm3"},  {"hidden_size", 4096},         {"num_hidden_layers", 48},
            {"num_attention_heads", 32},  {"num_key_value_heads", 2},    {"head_dim", 128},
            {"intermediate_size", 10240}, {"vocab_size", 128512},        {"bias", false},
            {"qkv_bias", false},          {"tie_word_embeddings", false}};
  const auto p = count_parameters(test::spec(c));
  // Per layer: q and o 4096^2, k and v 4096 x 256, SwiGLU 3 x 4096 x 10240, two RMSNorms; embed and
  // head 128512 x 4096; final norm.
  const std::int64_t layer = 2 * 4096LL * 4096 + 2 * 4096LL * 256 + 3 * 4096LL * 10240 + 2 * 4096;
  CHECK(p.total == 48 * layer + 2 * 128512LL * 4096 + 4096);
  CHECK(p.total == 8804241408);
  c["qkv_bias"] = true;
  CHECK(count_parameters(test::spec(c)).total - p.total == 48 * (4096 + 2 * 256));
  c["qkv_bias"] = false;
  c["bias"] = true;  // o_proj and the three MLP projections
  CHECK(count_parameters(test::spec(c)).total - p.total == 48 * (4096 + 2 * 10240 + 4096));
}

TEST_CASE("minicpm: MiniCPM-2B, tied, the scale factors change no count", "[hf_baichuan]") {
  const json c = {{"model_type", "minicpm"},   {"hidden_size", 2304},       {"num_hidden_layers", 40},
                  {"num_attention_heads", 36}, {"num_key_value_heads", 36}, {"intermediate_size", 5760},
                  {"vocab_size", 122753},      {"scale_emb", 12},           {"dim_model_base", 256},
                  {"scale_depth", 1.4}};
  const auto s = test::spec(c);
  CHECK(s.tie_word_embeddings);
  const auto p = count_parameters(s);
  CHECK(p.total == 40 * (4 * 2304LL * 2304 + 3 * 2304LL * 5760 + 2 * 2304) + 122753LL * 2304 + 2304);
  CHECK(p.total == 2724880896);  // chatllm.cpp's count of MiniCPM-2B
  CHECK(p.total == count_parameters(test::model("minicpm-2b")).total);
}

TEST_CASE("nemotron: Minitron-8B, LayerNorm1P, relu2 up/down MLP, half rotary", "[hf_baichuan]") {
  json c = {{"model_type", "nemotron"},   {"hidden_size", 4096},         {"num_hidden_layers", 32},
            {"num_attention_heads", 48},  {"num_key_value_heads", 8},    {"head_dim", 128},
            {"intermediate_size", 16384}, {"vocab_size", 256000},        {"partial_rotary_factor", 0.5},
            {"hidden_act", "relu2"},      {"tie_word_embeddings", false}};
  const auto s = test::spec(c);
  CHECK(!s.mlp.gated);
  CHECK(s.norm == flopcast::norm_kind::layernorm);
  CHECK(s.attention.rotary_dim == 64);
  const auto p = count_parameters(s);
  // Per layer: q and o 4096 x 6144, k and v 4096 x 1024, up and down 2 x 4096 x 16384, two
  // LayerNorm1P (weight and bias); embed and head 256000 x 4096; final LayerNorm1P.
  const std::int64_t layer = 2 * 4096LL * 6144 + 2 * 4096LL * 1024 + 2 * 4096LL * 16384 + 4 * 4096;
  CHECK(p.total == 32 * layer + 2 * 256000LL * 4096 + 2 * 4096);
  CHECK(p.total == 8271699968);
  c["mlp_bias"] = true;
  CHECK(count_parameters(test::spec(c)).total - p.total == 32 * (16384 + 4096));
  // The bundled Minitron-4B-Base: 3072 wide, 24 heads of 128, 8 key/value groups, 9216 up/down;
  // rounds to the card's "4B" (3.5B to 4.5B).
  const std::int64_t small = 2 * 3072LL * 3072 + 2 * 3072LL * 1024 + 2 * 3072LL * 9216 + 4 * 3072;
  const auto minitron = count_parameters(test::model("minitron-4b-base")).total;
  CHECK(minitron == 32 * small + 2 * 256000LL * 3072 + 2 * 3072);
  CHECK(minitron == 4190509056);
}

TEST_CASE("orion: Orion-14B, Llama projections behind LayerNorms with bias", "[hf_baichuan]") {
  // OrionStarAI/Orion-14B-Base's sizes (mlc-llm's orion preset).
  const json c = {{"model_type", "orion"},     {"hidden_size", 5120},       {"num_hidden_layers", 40},
                  {"num_attention_heads", 40}, {"num_key_value_heads", 40}, {"intermediate_size", 15360},
                  {"vocab_size", 84608},       {"rms_norm_eps", 1e-05},     {"tie_word_embeddings", false}};
  const auto s = test::spec(c);
  CHECK(s.norm == flopcast::norm_kind::layernorm);
  const auto p = count_parameters(s);
  // Per layer: 4 x 5120^2, SwiGLU 3 x 5120 x 15360, input and post-attention LayerNorms (weight and
  // bias, 2 x 2 x 5120); embed and head 84608 x 5120; the final LayerNorm.
  const std::int64_t layer = 4 * 5120LL * 5120 + 3 * 5120LL * 15360 + 4 * 5120;
  CHECK(p.total == 40 * layer + 2 * 84608LL * 5120 + 2 * 5120);
  CHECK(p.total == 14498703360);
  CHECK(p.norm == 81 * 2 * 5120);
  // The bundled record rounds to its report's "14 billion" (13.5B to 14.5B).
  CHECK(count_parameters(test::model("orion-14b-base")).total == p.total);
}

TEST_CASE("xverse: Llama's count under its own model type", "[hf_baichuan]") {
  json c = baichuan_7b_config();
  c["model_type"] = "xverse";
  c["attention_bias"] = true;  // not an XVERSE field: no biases whatever it says
  const auto p = count_parameters(test::spec(c));
  CHECK(p.total == 7000559616);  // Baichuan-7B's sizes: the same Llama layout
  c["model_type"] = "llama";
  CHECK(count_parameters(test::spec(c)).total - p.total == 32 * 4 * 4096);
}

TEST_CASE("jais2: LayerNorms with bias, relu2 up/down MLP, biases on request", "[hf_baichuan]") {
  json c = {{"model_type", "jais2"},     {"hidden_size", 3072},      {"num_hidden_layers", 24},
            {"num_attention_heads", 24}, {"num_key_value_heads", 8}, {"intermediate_size", 12288},
            {"vocab_size", 150272},      {"hidden_act", "relu2"},    {"tie_word_embeddings", false}};
  const auto s = test::spec(c);
  CHECK(!s.mlp.gated);
  CHECK(s.attention.rotary_dim == 128);
  const auto p = count_parameters(s);
  // Per layer: q and o 3072^2, k and v 3072 x 1024, up and down 2 x 3072 x 12288, two LayerNorms
  // (weight and bias); embed and head 150272 x 3072; the final LayerNorm.
  const std::int64_t layer = 2 * 3072LL * 3072 + 2 * 3072LL * 1024 + 2 * 3072LL * 12288 + 4 * 3072;
  CHECK(p.total == 24 * layer + 2 * 150272LL * 3072 + 2 * 3072);
  c["attention_bias"] = true;
  c["mlp_bias"] = true;
  CHECK(count_parameters(test::spec(c)).total - p.total == 24 * ((3072 + 2 * 1024 + 3072) + (12288 + 3072)));
}

TEST_CASE("codeshell: GPTBigCode's block with query groups and rotary, tied head", "[hf_baichuan]") {
  json c = {{"model_type", "codeshell"},
            {"n_embd", 4096},
            {"n_layer", 42},
            {"n_head", 32},
            {"n_inner", 16384},
            {"n_positions", 8192},
            {"vocab_size", 70144},
            {"group_query_attention", true},
            {"num_query_groups", 8},
            {"position_embedding_type", "rope"},
            {"activation_function", "gelu_pytorch_tanh"}};
  const auto s = test::spec(c);
  CHECK(s.attention.num_kv_heads == 8);
  CHECK(s.position == flopcast::position_kind::rotary);
  CHECK(s.learned_positions == 0);
  CHECK(s.tie_word_embeddings);
  const auto p = count_parameters(s);
  // Per layer: c_attn 4096 -> 4096 + 2 x 8 x 128 with bias, c_proj 4096^2 with bias, c_fc and
  // c_proj 2 x 4096 x 16384 with biases 16384 + 4096, ln_1 and ln_2; wte 70144 x 4096 (tied), ln_f.
  const std::int64_t layer = 4096LL * 6144 + 6144 + 4096LL * 4096 + 4096 + 2 * 4096LL * 16384 + 16384 + 4096 + 4 * 4096;
  CHECK(p.total == 42 * layer + 70144LL * 4096 + 2 * 4096);
  c["position_embedding_type"] = "learned_absolute";  // adds a wpe table of n_positions rows
  CHECK(count_parameters(test::spec(c)).total - p.total == 8192LL * 4096);
  c["group_query_attention"] = false;  // every head keeps its own key and value
  CHECK(test::spec(c).attention.num_kv_heads == 32);
  c["group_query_attention"] = true;
  c["num_query_groups"] = 5;
  CHECK_THROWS_WITH(test::spec(c), Catch::Contains("(/num_query_groups)"));
  c["num_query_groups"] = 8;
  c["position_embedding_type"] = "alibi";
  CHECK_THROWS_WITH(test::spec(c), Catch::Contains("(/position_embedding_type)"));
}
