// Phi-3.5-MoE (phimoe), DBRX (dbrx), Hunyuan-A13B (hunyuan_v1_moe) and Ling (bailing_moe,
// bailing_moe_v2): counts hand-computed from each family's modeling code at the sizes of its
// published checkpoints, and the bundled records against their published counts.
#include <catch2/catch.hpp>

#include "helpers.hpp"

using flopcast::count_parameters;
using test::json;

namespace {

json phimoe_test_config(const std::string& file) {
  return json::parse(test::read_text("data/models/" + file))["config"];
}

}  // namespace

TEST_CASE("phimoe: Phi-3.5-MoE, biased attention, LayerNorms, 16 experts, biased head") {
  const auto& rec = flopcast::find_model("microsoft/Phi-3.5-MoE-instruct");
  const auto p = count_parameters(rec.spec);
  const std::int64_t h = 4096, kv = 8 * 128;
  // q, k, v with biases, o with bias; 2 LayerNorms (weight and bias); router h x 16 without bias;
  // 16 SwiGLU experts of 6400. Untied head of 32064 rows plus its bias; final LayerNorm.
  const std::int64_t attn = h * (h + 2 * kv) + (h + 2 * kv) + h * h + h;
  const std::int64_t expert = 3 * h * 6400;
  const std::int64_t layer = attn + 2 * 2 * h + h * 16 + 16 * expert;
  CHECK(p.total == 32 * layer + 2 * 32064LL * h + 32064 + 2 * h);
  CHECK(p.total == 41873153344);
  CHECK(p.total - p.active == 32 * 14 * expert);
  json c = phimoe_test_config("phi-3.5-moe-instruct.json");
  c["lm_head_bias"] = false;
  c["attention_bias"] = false;
  CHECK(count_parameters(test::spec(c)).total == p.total - 32064 - 32 * (2 * h + 2 * kv));
}

TEST_CASE("dbrx: fused Wqkv, bias-free LayerNorms, 16 experts top-4") {
  const auto& rec = flopcast::find_model("databricks/dbrx-base");
  const auto p = count_parameters(rec.spec);
  const std::int64_t h = 6144, kv = 8 * 128;
  const std::int64_t expert = 3 * h * 10752;
  // Wqkv h x (h + 2 kv), out_proj h x h, 2 LayerNorms without bias, router h x 16.
  const std::int64_t layer = h * (h + 2 * kv) + h * h + 2 * h + h * 16 + 16 * expert;
  CHECK(p.total == 40 * layer + 2 * 100352LL * h + h);
  CHECK(p.total == 131596523520);  // "132B total"
  CHECK(p.active == 36469708800);  // "36B active": 4 of 16 experts
  CHECK(rec.spec.norm == flopcast::norm_kind::layernorm);
  json c = phimoe_test_config("dbrx-base.json");
  c["ffn_config"]["moe_top_k"] = 17;
  CHECK(test::pointer_of([&] { (void)test::spec(c); }) == "/ffn_config/moe_top_k");
  c["ffn_config"]["moe_top_k"] = 4;
  c["attn_config"]["kv_n_heads"] = 5;
  CHECK(test::pointer_of([&] { (void)test::spec(c); }) == "/attn_config/kv_n_heads");
}

TEST_CASE("hunyuan_v1_moe: Hunyuan-A13B, per-head q/k norms, 64 experts and a shared MLP, tied") {
  const auto& rec = flopcast::find_model("tencent/Hunyuan-A13B-Instruct");
  const auto p = count_parameters(rec.spec);
  const std::int64_t h = 4096, kv = 8 * 128;
  const std::int64_t expert = 3 * h * 3072;
  // q, k, v, o without biases, query_layernorm and key_layernorm of head_dim 128, 2 norms, router
  // h x 64, 64 experts, one shared MLP of intermediate_size 3072. Tied embeddings.
  const std::int64_t layer = h * (h + 2 * kv) + h * h + 2 * 128 + 2 * h + h * 64 + 64 * expert + expert;
  CHECK(p.total == 32 * layer + 128167LL * h + h);
  CHECK(p.total == 80393183232);
  CHECK(p.active == p.total - 32 * 56 * expert);
  json c = phimoe_test_config("hunyuan-a13b-instruct.json");
  c["moe_topk"] = 8;  // an integer instead of the per-layer list
  CHECK(count_parameters(test::spec(c)).total == p.total);
  c["moe_intermediate_size"][7] = 1024;  // one expert shape per model
  CHECK(test::pointer_of([&] { (void)test::spec(c); }) == "/moe_intermediate_size/7");
  c = phimoe_test_config("hunyuan-a13b-instruct.json");
  c["use_cla"] = true;
  CHECK(test::pointer_of([&] { (void)test::spec(c); }) == "/use_cla");
}

TEST_CASE("bailing_moe: Ling-lite-1.5, fused query_key_value, 64 experts and 2 shared") {
  const auto& rec = flopcast::find_model("inclusionAI/Ling-lite-1.5");
  const auto p = count_parameters(rec.spec);
  const std::int64_t h = 2048, kv = 4 * 128;
  const std::int64_t expert = 3 * h * 1408;
  // query_key_value h x (h + 2 kv) and dense h x h without biases, 2 norms, router h x 64, 64
  // experts, 2 shared experts as one MLP of 2 x 1408; every layer MoE (first_k_dense_replace 0).
  const std::int64_t layer = h * (h + 2 * kv) + h * h + 2 * h + h * 64 + 64 * expert + 2 * expert;
  CHECK(p.total == 28 * layer + 2 * 126464LL * h + h);
  CHECK(p.total == 16801974272);  // "16.8B"
  CHECK(p.active == 2753153024);  // "2.75B activated": 6 of 64 experts
  // Ling 2.0's fields: q/k norms, a router bias, an explicit shared width, a dense first layer.
  json c = phimoe_test_config("ling-lite-1.5.json");
  c["model_type"] = "bailing_moe_v2";
  c["use_qk_norm"] = true;
  c["moe_router_enable_expert_bias"] = true;
  c["moe_shared_expert_intermediate_size"] = 1408;
  c["first_k_dense_replace"] = 1;
  c["intermediate_size"] = 5120;
  const std::int64_t dense = h * (h + 2 * kv) + h * h + 2 * h + 3 * h * 5120 + 2 * 128;
  const std::int64_t v2 = layer + 2 * 128 + 64 - expert;
  CHECK(count_parameters(test::spec(c)).total == dense + 27 * v2 + 2 * 126464LL * h + h);
}

TEST_CASE("bailing_moe_v2: Ling-mini-2.0, q/k norms, 256 experts with a router bias, one dense layer") {
  const auto& rec = flopcast::find_model("inclusionAI/Ling-mini-2.0");
  const auto p = count_parameters(rec.spec);
  const std::int64_t h = 2048, kv = 4 * 128;
  const std::int64_t expert = 3 * h * 512;
  // query_key_value and dense without biases, query_layernorm and key_layernorm of 128, 2 norms.
  const std::int64_t attn = h * (h + 2 * kv) + h * h + 2 * 128 + 2 * h;
  const std::int64_t dense = attn + 3 * h * 5120;
  // Router h x 256 plus its expert bias, 256 experts, one shared expert of 512.
  const std::int64_t moe = attn + h * 256 + 256 + 256 * expert + expert;
  CHECK(p.total == dense + 19 * moe + 2 * 157184LL * h + h);
  CHECK(p.total == 16255643392);  // the safetensors count; the MTP layer is not counted
  CHECK(p.active == 1432973056);  // "1.43B activated"
  json c = phimoe_test_config("ling-mini-2.0.json");
  c["model_type"] = "bailing_moe";  // the checkpoint's own spelling reads the same
  CHECK(count_parameters(test::spec(c)).total == p.total);
}
