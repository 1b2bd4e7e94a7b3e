// GLM-5 (glm_moe_dsa), GLM-4.7-Flash (glm4_moe_lite), DeepSeekMoE (deepseek) and MiniCPM3: counts
// hand-computed from each family's modeling code at the sizes of its published checkpoints, and
// the bundled records against their published exact counts.
#include <catch2/catch.hpp>

#include "helpers.hpp"

using flopcast::count_parameters;
using test::json;

namespace {

// One DeepSeek-V3 MLA attention block (q LoRA): q_a_proj h x q, q_a_layernorm q, q_b_proj
// q x heads x (nope + rope), kv_a_proj_with_mqa h x (kv + rope), kv_a_layernorm kv, kv_b_proj
// kv x heads x (nope + v), o_proj heads x v x h.
std::int64_t glmdsa_test_mla(std::int64_t h, std::int64_t q, std::int64_t kv, std::int64_t heads, std::int64_t nope,
                             std::int64_t rope, std::int64_t v) {
  return h * q + q + q * heads * (nope + rope) + h * (kv + rope) + kv + kv * heads * (nope + v) + heads * v * h;
}

// The config.json of a bundled record.
json glmdsa_test_config(const std::string& file) {
  return json::parse(test::read_text("data/models/" + file))["config"];
}

}  // namespace

TEST_CASE("glm_moe_dsa: GLM-5's MLA, lightning indexer and 256 experts after 3 dense layers") {
  const auto& rec = flopcast::find_model("zai-org/GLM-5");
  const auto p = count_parameters(rec.spec);
  const std::int64_t h = 6144;
  const std::int64_t attn = glmdsa_test_mla(h, 2048, 512, 64, 192, 64, 256);
  // Indexer (DeepSeek-V3.2's): wq_b 2048 x 32 x 128, wk h x 128, k_norm LayerNorm 2 x 128,
  // weights_proj h x 32.
  const std::int64_t indexer = 2048LL * 32 * 128 + h * 128 + 2 * 128 + h * 32;
  CHECK(indexer == 9371904);
  const std::int64_t expert = 3 * h * 2048;
  const std::int64_t dense = attn + indexer + 2 * h + 3 * h * 12288;
  // MoE layer: router h x 256 plus its e_score_correction_bias (256), 256 experts, one shared.
  const std::int64_t moe = attn + indexer + 2 * h + h * 256 + 256 + 256 * expert + expert;
  CHECK(p.total == 3 * dense + 75 * moe + 2 * 154880LL * h + h);
  CHECK(p.total == 743911218432);  // Fireworks' paramCount for GLM 5.1 (same architecture)
  CHECK(p.total - p.active == 75 * 248 * expert);
  CHECK(rec.spec.attention.index_topk == 2048);

  // mlp_layer_types overrides first_k_dense_replace; indexer sizes default as GlmMoeDsaConfig's.
  json c = glmdsa_test_config("glm-5.json");
  c.erase("index_n_heads");
  c.erase("index_head_dim");
  CHECK(count_parameters(test::spec(c)).total == p.total);
  std::vector<std::string> types(78, "sparse");
  types[0] = "dense";
  c["mlp_layer_types"] = types;
  CHECK(count_parameters(test::spec(c)).total == p.total - 2 * (dense - moe));
  types[5] = "mixed";
  c["mlp_layer_types"] = types;
  CHECK(test::pointer_of([&] { (void)test::spec(c); }) == "/mlp_layer_types/5");
  c.erase("mlp_layer_types");
  c["q_lora_rank"] = nullptr;
  CHECK(test::pointer_of([&] { (void)test::spec(c); }) == "/q_lora_rank");
}

TEST_CASE("glm4_moe_lite: GLM-4.7-Flash, MLA without the indexer, one dense layer") {
  const auto& rec = flopcast::find_model("zai-org/GLM-4.7-Flash");
  const auto p = count_parameters(rec.spec);
  const std::int64_t h = 2048;
  const std::int64_t attn = glmdsa_test_mla(h, 768, 512, 20, 192, 64, 256);
  const std::int64_t expert = 3 * h * 1536;
  const std::int64_t dense = attn + 2 * h + 3 * h * 10240;
  const std::int64_t moe = attn + 2 * h + h * 64 + 64 + 64 * expert + expert;
  CHECK(p.total == dense + 46 * moe + 2 * 154880LL * h + h);
  CHECK(p.total == 29943393920);  // the GGUF's general.parameter_count
  CHECK(p.active == 3896766080);
  CHECK(rec.spec.attention.index_heads == 0);
  json c = glmdsa_test_config("glm-4.7-flash.json");
  c.erase("first_k_dense_replace");  // Glm4MoeLiteConfig: one dense layer by default
  CHECK(count_parameters(test::spec(c)).total == p.total);
}

TEST_CASE("deepseek: DeepSeekMoE 16B, MHA, 64 fine-grained experts and 2 shared") {
  const auto& rec = flopcast::find_model("deepseek-ai/deepseek-moe-16b-base");
  const auto p = count_parameters(rec.spec);
  const std::int64_t h = 2048;
  const std::int64_t expert = 3 * h * 1408;
  // Dense layer 0: 4 h^2 attention, 2 norms, SwiGLU of 10944. MoE layers: a softmax router
  // h x 64 without bias, 64 experts, the 2 shared experts as one MLP of 2 x 1408.
  const std::int64_t dense = 4 * h * h + 2 * h + 3 * h * 10944;
  const std::int64_t moe = 4 * h * h + 2 * h + h * 64 + 64 * expert + 2 * expert;
  CHECK(p.total == dense + 27 * moe + 2 * 102400LL * h + h);
  CHECK(p.total == 16375728128);
  CHECK(p.active == 2828650496);  // 6 of 64 routed experts per token
  json c = glmdsa_test_config("deepseek-moe-16b-base.json");
  c["moe_layer_freq"] = 2;  // MoE on even layers only: 2, 4, ..., 26 (layer 0 stays dense)
  CHECK(count_parameters(test::spec(c)).total == p.total - 14 * (moe - dense));
  c["moe_layer_freq"] = 1;
  c["num_experts_per_tok"] = 65;
  CHECK(test::pointer_of([&] { (void)test::spec(c); }) == "/num_experts_per_tok");
}

TEST_CASE("minicpm3: MiniCPM3-4B, MLA on a dense SwiGLU model, tied embeddings") {
  const auto& rec = flopcast::find_model("openbmb/MiniCPM3-4B");
  const auto p = count_parameters(rec.spec);
  const std::int64_t h = 2560;
  // MLA with q LoRA 768, kv LoRA 256, 40 heads of 64 + 32, values of 2560 / 40 = 64.
  const std::int64_t attn = glmdsa_test_mla(h, 768, 256, 40, 64, 32, 64);
  const std::int64_t layer = attn + 2 * h + 3 * h * 6400;
  CHECK(p.total == 62 * layer + 73448LL * h + h);
  CHECK(p.total == 4073875968);  // "4B"
  CHECK(p.active == p.total);
  CHECK(rec.spec.attention.mla);
  json c = glmdsa_test_config("minicpm3-4b.json");
  c["v_head_dim"] = 128;  // an explicit value head width wins over hidden / heads
  CHECK(count_parameters(test::spec(c)).total == p.total + 62 * (256LL * 40 * 64 + 40LL * 64 * h));
  c.erase("kv_lora_rank");
  CHECK(test::pointer_of([&] { (void)test::spec(c); }) == "/kv_lora_rank");
}
