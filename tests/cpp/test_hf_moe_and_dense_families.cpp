// gpt-oss, Llama 4, GLM-4.5, MiniMax-M2, ERNIE 4.5, DeepSeek-V3.2, Cohere 2, EXAONE 3.5 and
// InternLM2: counts hand-computed from each family's modeling code at the sizes of its published
// checkpoints, checked against the published totals where one exists.
#include <catch2/catch.hpp>
#include <cmath>

#include "helpers.hpp"

using flopcast::count_parameters;
using test::json;

namespace {

json gpt_oss_config(int layers, int experts) {
  json kinds = json::array();
  for (int i = 0; i < layers; ++i) kinds.push_back(i % 2 == 0 ? "sliding_attention" : "full_attention");
  return {{"model_type", "gpt_oss"},   {"hidden_size", 2880},          {"num_hidden_layers", layers},
          {"num_attention_heads", 64}, {"num_key_value_heads", 8},     {"head_dim", 64},
          {"intermediate_size", 2880}, {"num_local_experts", experts}, {"num_experts_per_tok", 4},
          {"experts_per_token", 4},    {"vocab_size", 201088},         {"attention_bias", true},
          {"sliding_window", 128},     {"layer_types", kinds},         {"tie_word_embeddings", false}};
}

// n in whole units (1e9: billions), rounded.
std::int64_t in_units(std::int64_t n, double unit) { return std::llround(static_cast<double>(n) / unit); }

// Llama-4-Scout-17B-16E's text_config sizes (Llama4TextConfig defaults are the same).
json llama4_text(int experts, int step) {
  return {{"model_type", "llama4_text"},
          {"hidden_size", 5120},
          {"num_hidden_layers", 48},
          {"num_attention_heads", 40},
          {"num_key_value_heads", 8},
          {"head_dim", 128},
          {"intermediate_size", 8192},
          {"intermediate_size_mlp", 16384},
          {"num_local_experts", experts},
          {"num_experts_per_tok", 1},
          {"interleave_moe_layer_step", step},
          {"attention_chunk_size", 8192},
          {"use_qk_norm", true},
          {"attention_bias", false},
          {"vocab_size", 202048}};
}

}  // namespace

TEST_CASE("gpt_oss: gpt-oss-120b and gpt-oss-20b match the model card") {
  // OpenAI, gpt-oss-120b & gpt-oss-20b Model Card (arXiv:2508.10925), section 2.1: 116.8B total
  // parameters (5.1B active) and 20.9B (3.6B active); its parameter table gives 116.83B / 20.91B
  // total and 5.13B / 3.61B active, the active counts leaving out the embedding table.
  const std::int64_t h = 2880, vocab = 201088;
  const std::int64_t attn = h * (4096 + 1024) + 4096 * h;   // q, k, v, o
  const std::int64_t attn_bias = 4096 + 1024 + h;           // q, k, v and o biases
  const std::int64_t sinks = 64;                            // one per head
  const std::int64_t expert = 3 * h * 2880 + 2 * 2880 + h;  // gate_up + down, with biases
  const auto layer = [&](std::int64_t e) { return attn + attn_bias + sinks + 2 * h + h * e + e + e * expert; };
  const std::int64_t embed = vocab * h;

  const auto big = count_parameters(test::spec(gpt_oss_config(36, 128)));
  CHECK(big.total == 36 * layer(128) + 2 * embed + h);
  CHECK(big.total == 116829156672);
  CHECK(in_units(big.total, 1e8) == 1168);  // "116.8B"
  CHECK(big.total - big.active == 36 * 124 * expert);
  CHECK(in_units(big.active - embed, 1e7) == 513);  // "5.13B" active, embedding table aside
  CHECK(big.attention == 36 * (attn + attn_bias + sinks));

  const auto small = count_parameters(test::spec(gpt_oss_config(24, 32)));
  CHECK(small.total == 24 * layer(32) + 2 * embed + h);
  CHECK(in_units(small.total, 1e7) == 2091);          // "20.91B"
  CHECK(in_units(small.active - embed, 1e7) == 361);  // "3.61B" active
}

TEST_CASE("gpt_oss: sinks, router and expert biases, alternating windows") {
  const auto s = test::spec(gpt_oss_config(24, 32));
  CHECK(s.attention.sinks);
  CHECK(s.attention.qkv_bias);
  CHECK(s.attention.o_bias);
  CHECK(s.moe.router_bias);
  CHECK(s.moe.expert_bias);
  CHECK(!s.tie_word_embeddings);
  REQUIRE(s.layer_group_of.size() == 24);
  CHECK(s.groups[s.layer_group_of[0]].window == 128);
  CHECK(s.groups[s.layer_group_of[1]].window == 0);
  CHECK(s.groups[s.layer_group_of[22]].window == 128);
  CHECK(s.groups[s.layer_group_of[23]].window == 0);
  for (const auto& g : s.groups) CHECK(g.moe);

  auto c = gpt_oss_config(24, 32);
  c.erase("layer_types");  // GptOssConfig's default: even layers sliding
  const auto d = test::spec(c);
  CHECK(d.groups[d.layer_group_of[0]].window == 128);
  CHECK(d.groups[d.layer_group_of[1]].window == 0);

  c = gpt_oss_config(24, 32);
  c["layer_types"][3] = "chunked_attention";
  CHECK_THROWS_WITH(test::spec(c), Catch::Contains("(/layer_types/3)"));
  c = gpt_oss_config(24, 32);
  c["num_experts_per_tok"] = 33;
  CHECK_THROWS_WITH(test::spec(c), Catch::Contains("(/num_experts_per_tok)"));
  c = gpt_oss_config(24, 32);
  c["attention_bias"] = false;
  const std::int64_t bias = 4096 + 1024 + 2880;
  CHECK(count_parameters(test::spec(gpt_oss_config(24, 32))).total - count_parameters(test::spec(c)).total ==
        24 * bias);
}

TEST_CASE("llama4_text: Scout and Maverick text models, shared expert, interleaved MoE") {
  // Meta, Llama 4 model card (github.com/meta-llama/llama-models, models/llama4/MODEL_CARD.md):
  // Scout 17B active / 109B total, Maverick 17B active / 400B total. Both totals take in the
  // vision encoder too: the Hugging Face checkpoints hold 108,641,793,536 (Scout) and
  // 401,583,781,376 (Maverick) parameters, each 871,932,416 above the text model counted here.
  const std::int64_t h = 5120, vocab = 202048;
  const std::int64_t attn = 2 * h * 5120 + 2 * h * 1024;  // q, o 40 x 128; k, v 8 x 128
  const std::int64_t mlp = 3 * h * 8192;                  // one expert, the shared expert
  const std::int64_t dense = 3 * h * 16384;               // intermediate_size_mlp
  const std::int64_t embed = 2 * vocab * h + h;           // untied head, final norm

  const auto scout = count_parameters(test::spec(llama4_text(16, 1)));
  const std::int64_t scout_layer = attn + 2 * h + h * 16 + 16 * mlp + mlp;
  CHECK(scout.total - scout.vision == 48 * scout_layer + embed);
  CHECK(scout.total - scout.vision == 107769861120);
  CHECK(108641793536 - (scout.total - scout.vision) == 871932416);
  CHECK(scout.total - scout.active == 48 * 15 * mlp);
  CHECK(in_units(scout.active, 1e9) == 17);  // "17B active"

  const auto maverick = count_parameters(test::spec(llama4_text(128, 2)));
  const std::int64_t moe_layer = attn + 2 * h + h * 128 + 128 * mlp + mlp;
  const std::int64_t dense_layer = attn + 2 * h + dense;
  CHECK(maverick.total - maverick.vision == 24 * (moe_layer + dense_layer) + embed);
  CHECK(401583781376 - (maverick.total - maverick.vision) == 871932416);
  CHECK(in_units(maverick.total, 1e10) == 40);  // "400B"
  CHECK(in_units(maverick.active, 1e9) == 17);  // "17B active"
}

TEST_CASE("llama4_text: NoPE layers see everything, RoPE layers attend in chunks") {
  const auto s = test::spec(llama4_text(128, 2));
  REQUIRE(s.layer_group_of.size() == 48);
  // Default no_rope_layers: every 4th layer (3, 7, ...) is NoPE; MoE on odd layers (step 2).
  for (std::size_t i = 0; i < 48; ++i) {
    INFO("layer " << i);
    const auto& g = s.groups[s.layer_group_of[i]];
    CHECK(g.nope == ((i + 1) % 4 == 0));
    CHECK(g.chunk == (g.nope ? 0 : 8192));
    CHECK(g.moe == (i % 2 == 1));
  }
  CHECK(s.mlp.intermediate_size == 16384);
  CHECK(s.moe.shared_intermediate_size == 8192);
  CHECK(!s.attention.qk_norm);  // L2 norm without weights

  // An explicit list, and the wrapper's text_config (vision tower aside).
  json text = llama4_text(16, 1);
  json rope = json::array();
  for (int i = 0; i < 48; ++i) rope.push_back(i == 0 ? 0 : 1);
  text["no_rope_layers"] = rope;
  const json wrapper = {{"model_type", "llama4"}, {"text_config", text}};
  const auto w = test::spec(wrapper);
  CHECK(w.groups[w.layer_group_of[0]].nope);
  CHECK(!w.groups[w.layer_group_of[3]].nope);
  CHECK(w.groups[w.layer_group_of[3]].chunk == 8192);
  CHECK(w.mlp.intermediate_size == 0);  // every layer MoE
  CHECK(count_parameters(w).total - count_parameters(w).vision ==
        count_parameters(test::spec(llama4_text(16, 1))).total -
            count_parameters(test::spec(llama4_text(16, 1))).vision);

  text["no_rope_layers"][5] = 2;
  CHECK_THROWS_WITH(test::spec(json{{"model_type", "llama4"}, {"text_config", text}}),
                    Catch::Contains("(/text_config/no_rope_layers/5)"));
  text["no_rope_layers"] = json::array({1, 1, 0});
  CHECK_THROWS_WITH(test::spec(text), Catch::Contains("(/no_rope_layers)"));
  json bad = llama4_text(16, 1);
  bad["moe_layers"] = json::array({1, 3, 48});
  CHECK_THROWS_WITH(test::spec(bad), Catch::Contains("(/moe_layers/2)"));
  bad = llama4_text(16, 1);
  bad["moe_layers"] = json::array({1, 3});
  const auto two = test::spec(bad);
  CHECK(two.groups[two.layer_group_of[1]].moe);
  CHECK(!two.groups[two.layer_group_of[2]].moe);
}

namespace {

json glm_air() {
  // zai-org/GLM-4.5-Air's sizes.
  return {{"model_type", "glm4_moe"},      {"hidden_size", 4096},           {"num_hidden_layers", 46},
          {"num_attention_heads", 96},     {"num_key_value_heads", 8},      {"head_dim", 128},
          {"intermediate_size", 10944},    {"moe_intermediate_size", 1408}, {"n_routed_experts", 128},
          {"num_experts_per_tok", 8},      {"n_shared_experts", 1},         {"first_k_dense_replace", 1},
          {"partial_rotary_factor", 0.5},  {"attention_bias", true},        {"use_qk_norm", false},
          {"num_nextn_predict_layers", 1}, {"vocab_size", 151552},          {"tie_word_embeddings", false}};
}

}  // namespace

TEST_CASE("glm4_moe: GLM-4.5-Air and GLM-4.5 main stacks, MTP layer not counted") {
  // Z.ai, GLM-4.5 technical report (arXiv:2508.06471): GLM-4.5 355B total / 32B activated,
  // GLM-4.5-Air 106B total / 12B activated. Those are the main stacks: the Hub checkpoints, with
  // the MTP layer (num_nextn_predict_layers), hold about 358B and 110B.
  const std::int64_t h = 4096;
  const std::int64_t attn = h * 12288 + 2 * h * 1024 + 12288 * h + (12288 + 2048);  // + q/k/v biases
  const std::int64_t expert = 3 * h * 1408;
  const std::int64_t dense_layer = attn + 2 * h + 3 * h * 10944;
  const std::int64_t moe_layer = attn + 2 * h + h * 128 + 128 + 128 * expert + expert;
  const std::int64_t embed = 2 * 151552LL * h + h;
  const auto s = test::spec(glm_air());
  CHECK(s.attention.rotary_dim == 64);
  CHECK(!s.attention.o_bias);
  CHECK(s.moe.router_bias);
  CHECK(!s.groups[s.layer_group_of[0]].moe);
  CHECK(s.groups[s.layer_group_of[1]].moe);
  const auto air = count_parameters(s);
  CHECK(air.total == dense_layer + 45 * moe_layer + embed);
  CHECK(in_units(air.total, 1e9) == 107);  // 106.85B: "106B"
  CHECK(air.total - air.active == 45 * 120 * expert);
  CHECK(in_units(air.active - 2 * 151552LL * h, 1e9) == 12);  // "12B activated", embeddings and head aside

  json c = glm_air();
  c["use_qk_norm"] = true;
  CHECK(count_parameters(test::spec(c)).total - air.total == 46 * 2 * 128);  // per-head q_norm, k_norm
  c["num_nextn_predict_layers"] = 3;
  c["use_qk_norm"] = false;
  CHECK(count_parameters(test::spec(c)).total == air.total);
  c = glm_air();
  c["n_shared_experts"] = 0;
  CHECK(air.total - count_parameters(test::spec(c)).total == 45 * expert);
  c = glm_air();
  c["num_experts_per_tok"] = 129;
  CHECK_THROWS_WITH(test::spec(c), Catch::Contains("(/num_experts_per_tok)"));

  // zai-org/GLM-4.5's sizes.
  const json big = {{"model_type", "glm4_moe"},     {"hidden_size", 5120},           {"num_hidden_layers", 92},
                    {"num_attention_heads", 96},    {"num_key_value_heads", 8},      {"head_dim", 128},
                    {"intermediate_size", 12288},   {"moe_intermediate_size", 1536}, {"n_routed_experts", 160},
                    {"num_experts_per_tok", 8},     {"n_shared_experts", 1},         {"first_k_dense_replace", 3},
                    {"partial_rotary_factor", 0.5}, {"attention_bias", true},        {"use_qk_norm", true},
                    {"vocab_size", 151552},         {"tie_word_embeddings", false}};
  const auto g = count_parameters(test::spec(big));
  const std::int64_t H = 5120;
  const std::int64_t a5 = H * 12288 + 2 * H * 1024 + 12288 * H + (12288 + 2048) + 2 * 128;
  const std::int64_t e5 = 3 * H * 1536;
  CHECK(g.total ==
        3 * (a5 + 2 * H + 3 * H * 12288) + 89 * (a5 + 2 * H + H * 160 + 160 + 161 * e5) + 2 * 151552LL * H + H);
  CHECK(in_units(g.total, 1e10) == 35);                     // 352.8B: "355B" to two digits
  CHECK(in_units(g.active - 2 * 151552LL * H, 1e9) == 32);  // "32B activated", embeddings and head aside
}

TEST_CASE("minimax_m2: whole-projection q/k norms, rotary_dim, router bias") {
  // MiniMaxAI/MiniMax-M2's sizes. MiniMax's model card: "230 billion total parameters with 10
  // billion active parameters" (the Hub lists 229B; its 3 MTP modules are not in the main stack).
  const json c = {{"model_type", "minimax_m2"}, {"hidden_size", 3072},
                  {"num_hidden_layers", 62},    {"num_attention_heads", 48},
                  {"num_key_value_heads", 8},   {"head_dim", 128},
                  {"intermediate_size", 1536},  {"num_local_experts", 256},
                  {"num_experts_per_tok", 8},   {"rotary_dim", 64},
                  {"use_qk_norm", true},        {"qk_norm_type", "per_layer"},
                  {"use_routing_bias", true},   {"shared_intermediate_size", 0},
                  {"vocab_size", 200064},       {"tie_word_embeddings", false}};
  const auto s = test::spec(c);
  CHECK(s.attention.rotary_dim == 64);
  CHECK(s.attention.qk_norm_full_width);
  const std::int64_t h = 3072;
  const std::int64_t expert = 3 * h * 1536;
  const std::int64_t layer = 2 * h * 6144 + 2 * h * 1024 + (6144 + 1024) + 2 * h + h * 256 + 256 + 256 * expert;
  const auto p = count_parameters(s);
  CHECK(p.total == 62 * layer + 2 * 200064LL * h + h);
  CHECK(in_units(p.total, 1e10) == 23);                 // "230B"
  CHECK(in_units(p.active - 200064LL * h, 1e9) == 10);  // "10B active", embedding table aside
  json bad = c;
  bad["rotary_dim"] = 256;
  CHECK_THROWS_WITH(test::spec(bad), Catch::Contains("(/rotary_dim)"));
  bad = c;
  bad["qk_norm_type"] = "per_head";
  CHECK_THROWS_WITH(test::spec(bad), Catch::Contains("(/qk_norm_type)"));
  bad = c;
  bad["use_routing_bias"] = false;
  CHECK(p.total - count_parameters(test::spec(bad)).total == 62 * 256);
}

TEST_CASE("ernie4_5_moe: dense first layer, shared experts, router correction bias") {
  // baidu/ERNIE-4.5-21B-A3B-PT's sizes (ERNIE 4.5 technical report: 21B total, 3B activated).
  json c = {{"model_type", "ernie4_5_moe"},  {"hidden_size", 2560},
            {"num_hidden_layers", 28},       {"num_attention_heads", 20},
            {"num_key_value_heads", 4},      {"intermediate_size", 12288},
            {"moe_num_experts", 64},         {"moe_k", 6},
            {"moe_intermediate_size", 1536}, {"moe_num_shared_experts", 2},
            {"moe_layer_start_index", 1},    {"moe_layer_end_index", 27},
            {"moe_layer_interval", 1},       {"use_bias", false},
            {"vocab_size", 103424},          {"tie_word_embeddings", true}};
  const auto s = test::spec(c);
  CHECK(!s.groups[s.layer_group_of[0]].moe);
  CHECK(s.groups[s.layer_group_of[27]].moe);
  const std::int64_t h = 2560;
  const std::int64_t attn = 2 * h * h + 2 * h * 512;
  const std::int64_t expert = 3 * h * 1536;
  const auto p = count_parameters(s);
  CHECK(p.total == (attn + 2 * h + 3 * h * 12288) + 27 * (attn + 2 * h + h * 64 + 64 + 64 * expert + 2 * expert) +
                       103424LL * h + h);
  CHECK(p.total - p.active == 27 * 58 * expert);
  CHECK(in_units(p.active, 1e9) == 3);  // "3B activated"
  c["moe_layer_end_index"] = -1;        // to the last layer
  CHECK(count_parameters(test::spec(c)).total == p.total);
  c["moe_layer_end_index"] = 26;
  CHECK(p.total - count_parameters(test::spec(c)).total == (h * 64 + 64 + 64 * expert + 2 * expert) - 3 * h * 12288);
  c["moe_k"] = 65;
  CHECK_THROWS_WITH(test::spec(c), Catch::Contains("(/moe_k)"));

  // baidu/ERNIE-4.5-0.3B-PT's sizes: a tied Llama.
  const json d = {{"model_type", "ernie4_5"},  {"hidden_size", 1024},      {"num_hidden_layers", 18},
                  {"num_attention_heads", 16}, {"num_key_value_heads", 2}, {"head_dim", 128},
                  {"intermediate_size", 3072}, {"vocab_size", 103424},     {"tie_word_embeddings", true},
                  {"use_bias", false}};
  const auto q = count_parameters(test::spec(d));
  CHECK(q.total == 18 * (2 * 1024LL * 2048 + 2 * 1024 * 256 + 3 * 1024 * 3072 + 2 * 1024) + 103424LL * 1024 + 1024);
  CHECK(in_units(q.total, 1e7) == 36);  // "0.36B"
}

TEST_CASE("deepseek_v32: DeepSeek-V3 plus a lightning indexer per layer") {
  // The indexer of deepseek-ai/DeepSeek-V3.2-Exp inference/model.py: wq_b q_lora_rank -> heads x
  // head_dim, wk dim -> head_dim, k_norm LayerNorm(head_dim) with bias, weights_proj dim -> heads,
  // no biases on the Linears.
  json v3 = test::json::parse(test::read_text("data/models/deepseek-v3.json"))["config"];
  json v32 = v3;
  v32["model_type"] = "deepseek_v32";
  v32["index_n_heads"] = 64;
  v32["index_head_dim"] = 128;
  v32["index_topk"] = 2048;
  const auto s = test::spec(v32);
  CHECK(s.attention.index_heads == 64);
  CHECK(s.attention.index_head_dim == 128);
  CHECK(s.attention.index_topk == 2048);
  CHECK(s.attention.mla);
  const std::int64_t indexer = 1536 * 64 * 128 + 7168 * 128 + 2 * 128 + 7168 * 64;
  const auto a = count_parameters(test::spec(v3));
  const auto b = count_parameters(s);
  CHECK(b.total - a.total == 61 * indexer);
  CHECK(b.active - a.active == 61 * indexer);
  v32.erase("index_topk");
  CHECK_THROWS_WITH(test::spec(v32), Catch::Contains("(/index_topk)"));
}

TEST_CASE("kimi_k2: Kimi-K2.5's text_config reads as DeepSeek-V3") {
  // Kimi-K2's sizes (moonshotai/Kimi-K2-Instruct; Moonshot: 1T total, 32B activated). Kimi-K2.5
  // wraps the same backbone as text_config with model_type kimi_k2.
  json text = test::json::parse(test::read_text("data/models/deepseek-v3.json"))["config"];
  text["num_attention_heads"] = 64;
  text["num_key_value_heads"] = 64;
  text["n_routed_experts"] = 384;
  text["first_k_dense_replace"] = 1;
  text["vocab_size"] = 163840;
  const auto v3 = count_parameters(test::spec(text));
  text["model_type"] = "kimi_k2";
  const auto k = test::spec(json{{"model_type", "kimi_k25"}, {"text_config", text}});
  CHECK(k.attention.mla);
  CHECK(k.moe.router_bias);
  const auto p = count_parameters(k);
  CHECK(p.total - p.vision == v3.total);
  CHECK(in_units(p.total - p.vision, 1e11) == 10);  // "1T"
  CHECK(in_units(p.active, 1e9) == 33);             // 32.9B: "32B activated"
}

TEST_CASE("cohere2: Command R7B and Command A, sliding RoPE layers, NoPE global layers") {
  // CohereLabs/c4ai-command-r7b-12-2024's sizes; the Hub lists 8.03B parameters.
  json c = {{"model_type", "cohere2"},   {"hidden_size", 4096},      {"num_hidden_layers", 32},
            {"num_attention_heads", 32}, {"num_key_value_heads", 8}, {"intermediate_size", 14336},
            {"vocab_size", 256000},      {"sliding_window", 4096},   {"sliding_window_pattern", 4},
            {"logit_scale", 0.25}};
  const auto s = test::spec(c);
  CHECK(s.parallel_attention);
  CHECK(s.tie_word_embeddings);
  for (std::size_t i = 0; i < 32; ++i) {
    INFO("layer " << i);
    const auto& g = s.groups[s.layer_group_of[i]];
    const bool global = (i + 1) % 4 == 0;
    CHECK(g.window == (global ? 0 : 4096));
    CHECK(g.nope == global);
  }
  const std::int64_t h = 4096;
  const auto p = count_parameters(s);
  CHECK(p.total == 32 * (2 * h * h + 2 * h * 1024 + 3 * h * 14336 + h) + 256000LL * h + h);
  CHECK(in_units(p.total, 1e7) == 803);  // 8.03B

  json kinds = json::array();
  for (int i = 0; i < 32; ++i) kinds.push_back(i < 2 ? "full_attention" : "sliding_attention");
  c["layer_types"] = kinds;
  const auto t = test::spec(c);
  CHECK(t.groups[t.layer_group_of[0]].nope);
  CHECK(t.groups[t.layer_group_of[3]].window == 4096);
  c["layer_types"][7] = "global";
  CHECK_THROWS_WITH(test::spec(c), Catch::Contains("(/layer_types/7)"));

  // CohereLabs/c4ai-command-a-03-2025's sizes: Cohere's "111B".
  const json a = {{"model_type", "cohere2"},   {"hidden_size", 12288},     {"num_hidden_layers", 64},
                  {"num_attention_heads", 96}, {"num_key_value_heads", 8}, {"intermediate_size", 36864},
                  {"vocab_size", 256000},      {"sliding_window", 4096},   {"sliding_window_pattern", 4}};
  const std::int64_t H = 12288;
  const auto q = count_parameters(test::spec(a));
  CHECK(q.total == 64 * (2 * H * H + 2 * H * 1024 + 3 * H * 36864 + H) + 256000LL * H + H);
  CHECK(in_units(q.total, 1e9) == 111);
}

TEST_CASE("exaone: EXAONE 3.5 under its own key names") {
  // LGAI-EXAONE/EXAONE-3.5-7.8B-Instruct's sizes. Its model card: 7.82B parameters, 6.98B without
  // embeddings; EXAONE-3.5-2.4B: 2.14B without embeddings (tied).
  json c = {{"model_type", "exaone"},    {"hidden_size", 4096},           {"num_layers", 32},
            {"num_attention_heads", 32}, {"num_key_value_heads", 8},      {"intermediate_size", 14336},
            {"vocab_size", 102400},      {"activation_function", "silu"}, {"tie_word_embeddings", false}};
  const auto p = count_parameters(test::spec(c));
  CHECK(p.total ==
        32 * (2 * 4096LL * 4096 + 2 * 4096 * 1024 + 3 * 4096 * 14336 + 2 * 4096) + 2 * 102400LL * 4096 + 4096);
  CHECK(in_units(p.total, 1e7) == 782);
  CHECK(in_units(p.total - 2 * 102400LL * 4096, 1e7) == 698);
  const json small = {{"model_type", "exaone"},    {"hidden_size", 2560},      {"num_layers", 30},
                      {"num_attention_heads", 32}, {"num_key_value_heads", 8}, {"head_dim", 80},
                      {"intermediate_size", 7168}, {"vocab_size", 102400},     {"tie_word_embeddings", true}};
  const auto q = count_parameters(test::spec(small));
  CHECK(in_units(q.total - 102400LL * 2560, 1e7) == 214);
  c.erase("num_layers");
  c["num_hidden_layers"] = 32;
  CHECK_THROWS_WITH(test::spec(c), Catch::Contains("(/num_layers)"));
}

TEST_CASE("internlm2: fused wqkv counts as q, k and v") {
  // internlm/internlm2_5-7b-chat's sizes; the Hub lists 7.74B parameters.
  json c = {{"model_type", "internlm2"},   {"hidden_size", 4096},
            {"num_hidden_layers", 32},     {"num_attention_heads", 32},
            {"num_key_value_heads", 8},    {"intermediate_size", 14336},
            {"vocab_size", 92544},         {"bias", false},
            {"tie_word_embeddings", false}};
  const auto p = count_parameters(test::spec(c));
  CHECK(p.total ==
        32 * (2 * 4096LL * 4096 + 2 * 4096 * 1024 + 3 * 4096 * 14336 + 2 * 4096) + 2 * 92544LL * 4096 + 4096);
  CHECK(in_units(p.total, 1e7) == 774);
  c["bias"] = true;
  CHECK(count_parameters(test::spec(c)).total - p.total == 32 * (4096 + 2 * 1024 + 4096));
}
