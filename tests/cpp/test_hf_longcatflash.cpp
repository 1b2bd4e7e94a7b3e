// LongCat-Flash (longcat_flash: two MLA sublayers a layer, a shortcut MoE with zero-computation
// experts): counts hand-computed from the modeling code at LongCat-Flash-Chat's sizes.
#include <catch2/catch.hpp>

#include "helpers.hpp"

using flopcast::count_parameters;
using test::json;

TEST_CASE("longcat_flash: LongCat-Flash-Chat, two MLA sublayers, shortcut MoE with zero-computation experts") {
  const auto& rec = flopcast::find_model("meituan-longcat/LongCat-Flash-Chat");
  const auto p = count_parameters(rec.spec);
  const std::int64_t h = 6144;
  // LongcatFlashMLA: q_a_proj, q_a_layernorm, q_b_proj (64 heads x 192), kv_a_proj_with_mqa
  // (512 + 64), kv_a_layernorm, kv_b_proj (64 x (128 + 128)), o_proj (64 x 128 -> h).
  const std::int64_t mla = h * 1536 + 1536 + 1536 * 64 * 192 + h * 576 + 512 + 512 * 64 * 256 + 64 * 128 * h;
  const std::int64_t mlp = 3 * h * 12288;  // LongcatFlashMLP (gate, up, down)
  const std::int64_t expert = 3 * h * 2048;
  // Router: classifier h x (512 + 256) without bias, e_score_correction_bias of 768; 512 experts
  // with weights (the 256 identity experts have none).
  const std::int64_t moe = h * 768 + 768 + 512 * expert;
  // One layer: two MLA sublayers, two MLPs, four RMSNorms, the shortcut MoE.
  const std::int64_t layer = 2 * mla + 2 * mlp + 4 * h + moe;
  CHECK(p.total == 28 * layer + 2 * 131072LL * h + h);
  CHECK(p.total == 560664980480);
  // The checkpoint adds the MTP module (vLLM longcat_flash_mtp.py): its own embedding, eh_proj
  // (2h -> h), enorm and hnorm, one MLA + dense MLP layer with two norms, and a final norm.
  const std::int64_t mtp = 131072LL * h + 2 * h * h + 2 * h + mla + mlp + 2 * h + h;
  CHECK(p.total + mtp == 561862880256);  // total_params of the Hugging Face checkpoint
  // At most 12 routed experts a token (zero-computation picks use none).
  CHECK(p.total - p.active == 28 * (512 - 12) * expert);
  REQUIRE(rec.spec.groups.size() == 2);
  CHECK(rec.spec.num_layers == 56);
  CHECK(rec.spec.groups[rec.spec.layer_group_of[0]].moe);
  CHECK_FALSE(rec.spec.groups[rec.spec.layer_group_of[1]].moe);
  CHECK(rec.spec.moe.zero_experts == 256);

  json c = json::parse(test::read_text("data/models/longcat-flash-chat.json"))["config"];
  c["zero_expert_num"] = 0;
  CHECK(count_parameters(test::spec(c)).total == p.total - 28 * (256 * h + 256));
  c["moe_topk"] = 513;
  CHECK(test::pointer_of([&] { (void)test::spec(c); }) == "/moe_topk");
  c = json::parse(test::read_text("data/models/longcat-flash-chat.json"))["config"];
  c["router_bias"] = true;
  CHECK(test::pointer_of([&] { (void)test::spec(c); }) == "/router_bias");
  c.erase("num_layers");
  CHECK(test::pointer_of([&] { (void)test::spec(c); }) == "/num_layers");
}
