// Grok-1 (grok-1), K-EXAONE (exaone_moe), openPangu-Ultra-MoE (pangu_ultra_moe), Mistral Small 4
// (mistral4), A.X K1 (axk1) and Sarvam-105B (sarvam_mla): the structure read from config.json and
// the counts behind the published figures, summed by hand from the families' modeling code
// (HPC-AI Tech's modeling_grok1.py and vLLM grok1.py; transformers modular_exaone_moe.py,
// modular_mistral4.py, modular_sarvam_mla.py and the AXK1 port; the openPangu checkpoint's
// modeling_openpangu_moe.py).
#include <catch2/catch.hpp>

#include "flopcast/flopcast.hpp"
#include "helpers.hpp"

using flopcast::count_parameters;
using test::json;

namespace {
// The config.json of a bundled record (data/models/<file>), to vary one field at a time.
json grok1_exaonemoe_config(const std::string& file) {
  return json::parse(test::read_text("data/models/" + file))["config"];
}
}  // namespace

TEST_CASE("grok-1: 8 GELU-gated experts in every layer, four norms per layer, tied head", "[hf_grok1_exaonemoe_moe]") {
  const auto m = test::model("hpcai-tech/grok-1");
  CHECK(m.norms_per_layer == 4);
  CHECK(m.tie_word_embeddings);
  CHECK(m.mlp.activation == "gelu");
  CHECK(m.moe.num_experts == 8);
  CHECK(m.moe.experts_per_token == 2);
  CHECK(m.moe.expert_intermediate_size == 32768);
  CHECK_FALSE(m.moe.router_bias);
  REQUIRE(m.groups.size() == 1);
  CHECK(m.groups[0].moe);
  CHECK(m.groups[0].count == 64);
  const auto p = count_parameters(m);
  // Per layer: q and o 6144x6144 (48 heads of 128), k and v 6144x1024 (8 KV heads); 8 experts of
  // 3 x 6144 x 32768 and a router 6144 -> 8; pre/post attention and pre/post MoE RMSNorms.
  const std::int64_t attn = 2LL * 6144 * 6144 + 2LL * 6144 * 1024;
  const std::int64_t expert = 3LL * 6144 * 32768;
  const std::int64_t layer = attn + 8 * expert + 8LL * 6144 + 4 * 6144;
  CHECK(p.per_layer[0] == layer);
  // 64 layers + one tied 131072 x 6144 table + final norm = 315,684,820,992: the README's "314B"
  // is this count truncated (314.88B without the embedding).
  CHECK(p.total == 64 * layer + 131072LL * 6144 + 6144);
  CHECK(p.total == 315684820992);
  // Two of the eight experts per token.
  CHECK(p.active == p.total - 64 * 6 * expert);
  // num_local_experts (Mixtral's name, used by some Grok ports) reads the same.
  json c = grok1_exaonemoe_config("grok-1.json");
  c.erase("num_experts");
  c["num_local_experts"] = 8;
  CHECK(count_parameters(test::spec(c)).total == p.total);
  c["num_experts_per_tok"] = 9;
  CHECK_THROWS_WITH(test::spec(c), Catch::Contains("(/num_experts_per_tok)"));
}

TEST_CASE("exaone_moe: EXAONE 4.0 hybrid attention with a dense first layer and 128 experts",
          "[hf_grok1_exaonemoe_moe]") {
  const auto m = test::model("LGAI-EXAONE/K-EXAONE-236B-A23B");
  CHECK(m.attention.qk_norm);
  CHECK_FALSE(m.attention.qk_norm_full_width);
  CHECK(m.norms_per_layer == 2);
  CHECK(m.moe.router_bias);
  CHECK(m.moe.shared_intermediate_size == 2048);
  REQUIRE(m.layer_group_of.size() == 48);
  std::int64_t sliding = 0, global = 0, moe = 0;
  for (std::size_t i = 0; i < 48; ++i) {
    const auto& g = m.groups[m.layer_group_of[i]];
    CHECK(g.moe == (i > 0));
    CHECK(g.window == ((i + 1) % 4 == 0 ? 0 : 128));
    CHECK(g.nope == ((i + 1) % 4 == 0));  // the global layers have no RoPE
    (g.window == 0 ? global : sliding) += 1;
    moe += g.moe ? 1 : 0;
  }
  CHECK(sliding == 36);
  CHECK(global == 12);
  CHECK(moe == 47);
  const auto p = count_parameters(m);
  // Attention: q and o 6144x8192 (64 heads of 128), k and v 6144x1024 (8 KV heads), per-head
  // q/k norms of 128, two RMSNorms of 6144.
  const std::int64_t attn = 2LL * 6144 * 8192 + 2LL * 6144 * 1024 + 2 * 128 + 2 * 6144;
  // Layer 0: a dense MLP 3 x 6144 x 18432.
  const std::int64_t dense = attn + 3LL * 6144 * 18432;
  // MoE layers: 128 experts and one shared of 3 x 6144 x 2048, a router 6144 -> 128 with its
  // score-correction bias.
  const std::int64_t expert = 3LL * 6144 * 2048;
  const std::int64_t sparse = attn + 129 * expert + 128LL * 6144 + 128;
  // + embedding and head 2 x 153600 x 6144 + final norm = 236,571,156,352 (the card's "236B").
  CHECK(p.total == dense + 47 * sparse + 2LL * 153600 * 6144 + 6144);
  CHECK(p.total == 236571156352);
  // Per token 8 of the 128 routed experts: 23,668,285,312 (the card's "23B").
  CHECK(p.active == p.total - 47 * 120 * expert);
  CHECK(p.active == 23668285312);

  // Without a dense layer intermediate_size is not counted; mlp_layer_types overrides
  // first_k_dense_replace.
  json c = grok1_exaonemoe_config("k-exaone-236b-a23b.json");
  c["first_k_dense_replace"] = 0;
  const auto all = test::spec(c);
  CHECK(all.mlp.intermediate_size == 0);
  CHECK(count_parameters(all).total == p.total - dense + sparse);
  c = grok1_exaonemoe_config("k-exaone-236b-a23b.json");
  json types = json::array();
  for (int i = 0; i < 48; ++i) types.push_back(i < 2 ? "dense" : "sparse");
  c["mlp_layer_types"] = types;
  CHECK(count_parameters(test::spec(c)).total == p.total - sparse + dense);
  types[3] = "moe";
  c["mlp_layer_types"] = types;
  CHECK_THROWS_WITH(test::spec(c), Catch::Contains("(/mlp_layer_types/3)"));
  c = grok1_exaonemoe_config("k-exaone-236b-a23b.json");
  c["num_experts_per_tok"] = 129;
  CHECK_THROWS_WITH(test::spec(c), Catch::Contains("(/num_experts_per_tok)"));
}

TEST_CASE("pangu_ultra_moe: latent attention, three dense layers, sandwich norms", "[hf_grok1_exaonemoe_moe]") {
  const auto m = test::model("FreedomIntelligence/openPangu-Ultra-MoE-718B");
  CHECK(m.attention.mla);
  CHECK(m.attention.q_lora_rank == 1536);
  CHECK(m.attention.kv_lora_rank == 512);
  CHECK(m.attention.head_dim == 192);
  CHECK(m.attention.v_head_dim == 128);
  CHECK(m.norms_per_layer == 4);
  CHECK_FALSE(m.moe.router_bias);
  CHECK_FALSE(m.tie_word_embeddings);
  REQUIRE(m.layer_group_of.size() == 61);
  for (std::size_t i = 0; i < 61; ++i) CHECK(m.groups[m.layer_group_of[i]].moe == (i >= 3));
  const auto p = count_parameters(m);
  // MLA (modeling_openpangu_moe.py OpenPanguMoEAttention): q_a 7680 -> 1536 with its norm,
  // q_b 1536 -> 128 x (128 + 64), kv_a 7680 -> 512 + 64 with a norm of 512,
  // kv_b 512 -> 128 x (128 + 128), o 128 x 128 -> 7680.
  const std::int64_t attn =
      7680LL * 1536 + 1536 + 1536LL * 128 * 192 + 7680LL * 576 + 512 + 512LL * 128 * 256 + 128LL * 128 * 7680;
  CHECK(attn == 196577280);
  // Four RMSNorms of 7680 per layer (input, post-attention, pre-MLP, post-MLP).
  const std::int64_t dense = attn + 3LL * 7680 * 18432 + 4 * 7680;
  // 256 routed experts and one shared of 3 x 7680 x 2048, a bias-free router 7680 -> 256.
  const std::int64_t expert = 3LL * 7680 * 2048;
  const std::int64_t sparse = attn + 257 * expert + 256LL * 7680 + 4 * 7680;
  // + embedding and head 2 x 153600 x 7680 + final norm = 719,093,767,680 (the card's "718B").
  CHECK(p.total == 3 * dense + 58 * sparse + 2LL * 153600 * 7680 + 7680);
  CHECK(p.total == 719093767680);
  // 8 of 256 routed experts per token: 40,371,494,400 (the card's "39B" without the input table).
  CHECK(p.active == p.total - 58 * 248 * expert);
  CHECK(p.active - 153600LL * 7680 == 39191846400);

  // Without sandwich_norm two norms a layer; a plain q projection when attention_q_lora_dim is null.
  json c = grok1_exaonemoe_config("openpangu-ultra-moe-718b.json");
  c["sandwich_norm"] = false;
  CHECK(count_parameters(test::spec(c)).total == p.total - 61 * 2 * 7680);
  c["attention_q_lora_dim"] = nullptr;
  const auto plain = test::spec(c);
  CHECK(plain.attention.q_lora_rank == 0);
  // num_routed_experts null: a dense model.
  c = grok1_exaonemoe_config("openpangu-ultra-moe-718b.json");
  c["num_routed_experts"] = nullptr;
  const auto d = test::spec(c);
  CHECK(d.moe.num_experts == 0);
  CHECK(count_parameters(d).total == 61 * dense + 2LL * 153600 * 7680 + 7680);
  c = grok1_exaonemoe_config("openpangu-ultra-moe-718b.json");
  c["attention_kv_lora_dim"] = 0;
  CHECK_THROWS_WITH(test::spec(c), Catch::Contains("(/attention_kv_lora_dim)"));
}

TEST_CASE("mistral4: DeepSeek-V3 latent attention and experts without a router bias", "[hf_grok1_exaonemoe_moe]") {
  const auto m = test::model("mistralai/Mistral-Small-4-119B-2603");
  CHECK(m.model_type == "mistral4");
  CHECK(m.attention.mla);
  CHECK(m.attention.q_lora_rank == 1024);
  CHECK(m.attention.kv_lora_rank == 256);
  CHECK(m.attention.head_dim == 128);
  CHECK_FALSE(m.moe.router_bias);
  REQUIRE(m.groups.size() == 1);
  CHECK(m.groups[0].moe);
  const auto p = count_parameters(m);
  // MLA (modular_mistral4.py Mistral4Attention): q_a 4096 -> 1024 with its norm,
  // q_b 1024 -> 32 x (64 + 64), kv_a 4096 -> 256 + 64 with a norm of 256, kv_b 256 -> 32 x (64 + 128),
  // o 32 x 128 -> 4096.
  const std::int64_t attn =
      4096LL * 1024 + 1024 + 1024LL * 32 * 128 + 4096LL * 320 + 256 + 256LL * 32 * 192 + 32LL * 128 * 4096;
  CHECK(attn == 28050688);
  // 128 routed experts and one shared of 3 x 4096 x 2048, a router 4096 -> 128, two norms.
  const std::int64_t expert = 3LL * 4096 * 2048;
  const std::int64_t layer = attn + 129 * expert + 128LL * 4096 + 2 * 4096;
  // 36 layers + embedding and head 2 x 131072 x 4096 + final norm = 118,972,826,624: the text
  // model of the card's "119B" (the Pixtral tower is not in this record).
  CHECK(p.total == 36 * layer + 2LL * 131072 * 4096 + 4096);
  CHECK(p.total == 118972826624);
  CHECK(p.active == p.total - 36 * 124 * expert);
  // As the text_config of its mistral3 wrapper the same text model is read.
  const json text = grok1_exaonemoe_config("mistral-small-4-119b-2603.json");
  const json wrapper = {{"model_type", "mistral3"}, {"text_config", text}};
  CHECK(count_parameters(test::spec(wrapper)).total == p.total);
  json c = text;
  c["first_k_dense_replace"] = 1;
  CHECK(count_parameters(test::spec(c)).total == p.total - layer + attn + 3LL * 4096 * 12288 + 2 * 4096);
}

TEST_CASE("axk1: DeepSeek-V3 layers with a post-MLP norm on the MoE layers", "[hf_grok1_exaonemoe_moe]") {
  const auto m = test::model("skt/A.X-K1");
  CHECK(m.attention.mla);
  CHECK(m.moe.router_bias);
  CHECK(m.moe.num_experts == 192);
  REQUIRE(m.layer_group_of.size() == 61);
  const auto& first = m.groups[m.layer_group_of[0]];
  const auto& rest = m.groups[m.layer_group_of[1]];
  CHECK_FALSE(first.moe);
  CHECK(first.norms == -1);  // the model's two
  CHECK(rest.moe);
  CHECK(rest.norms == 3);  // input, post-attention and post-MLP RMSNorms
  CHECK(rest.count == 60);
  const auto p = count_parameters(m);
  // MLA: q_a 7168 -> 1536 with its norm, q_b 1536 -> 64 x (128 + 64), kv_a 7168 -> 512 + 64 with a
  // norm of 512, kv_b 512 -> 64 x (128 + 128), o 64 x 128 -> 7168.
  const std::int64_t attn =
      7168LL * 1536 + 1536 + 1536LL * 64 * 192 + 7168LL * 576 + 512 + 512LL * 64 * 256 + 64LL * 128 * 7168;
  CHECK(attn == 101124096);
  // Layer 0: dense MLP 3 x 7168 x 18432, two norms. MoE layers: 192 routed + 1 shared expert of
  // 3 x 7168 x 2048, a router 7168 -> 192 with its score-correction bias, three norms.
  const std::int64_t expert = 3LL * 7168 * 2048;
  const std::int64_t dense = attn + 3LL * 7168 * 18432 + 2 * 7168;
  const std::int64_t sparse = attn + 193 * expert + 192LL * 7168 + 192 + 3 * 7168;
  // + embedding and head 2 x 163840 x 7168 + final norm = 518,983,063,808 (the card's "519B").
  CHECK(p.total == dense + 60 * sparse + 2LL * 163840 * 7168 + 7168);
  CHECK(p.total == 518983063808);
  // 8 of 192 routed experts per token: 32,779,344,128 (the card's "33B").
  CHECK(p.active == p.total - 60 * 184 * expert);
  CHECK(p.active == 32779344128);
  // Without a dense layer every layer carries the third norm.
  json c = grok1_exaonemoe_config("a.x-k1.json");
  c["first_k_dense_replace"] = 0;
  c.erase("intermediate_size");
  CHECK(count_parameters(test::spec(c)).total == p.total - dense + sparse);
}

TEST_CASE("sarvam_mla: DeepSeek-V3 layers under Sarvam's expert keys", "[hf_grok1_exaonemoe_moe]") {
  const auto m = test::model("sarvamai/sarvam-105b");
  CHECK(m.attention.mla);
  CHECK(m.attention.q_lora_rank == 0);  // q_lora_rank null: a plain q projection
  CHECK(m.moe.num_experts == 128);
  CHECK(m.moe.experts_per_token == 8);
  CHECK(m.moe.shared_intermediate_size == 2048);
  CHECK(m.moe.router_bias);
  REQUIRE(m.layer_group_of.size() == 32);
  CHECK_FALSE(m.groups[m.layer_group_of[0]].moe);
  CHECK(m.groups[m.layer_group_of[1]].moe);
  const auto p = count_parameters(m);
  // MLA without q LoRA: q 4096 -> 64 x (128 + 64), kv_a 4096 -> 512 + 64 with a norm of 512,
  // kv_b 512 -> 64 x (128 + 128), o 64 x 128 -> 4096.
  const std::int64_t attn = 4096LL * 64 * 192 + 4096LL * 576 + 512 + 512LL * 64 * 256 + 64LL * 128 * 4096;
  CHECK(attn == 94634496);
  // Layer 0 dense (3 x 4096 x 16384); then 128 routed + 1 shared expert of 3 x 4096 x 2048 and a
  // router 4096 -> 128 with its bias; two norms a layer.
  const std::int64_t expert = 3LL * 4096 * 2048;
  const std::int64_t dense = attn + 3LL * 4096 * 16384 + 2 * 4096;
  const std::int64_t sparse = attn + 129 * expert + 128LL * 4096 + 128 + 2 * 4096;
  // + embedding and head 2 x 262144 x 4096 + final norm = 106,031,767,424 (the "105B" model).
  CHECK(p.total == dense + 31 * sparse + 2LL * 262144 * 4096 + 4096);
  CHECK(p.total == 106031767424);
  CHECK(p.active == p.total - 31 * 120 * expert);
  // DeepSeek's key names read the same; the expert count is required.
  json c = grok1_exaonemoe_config("sarvam-105b.json");
  c["n_routed_experts"] = c["num_experts"];
  c.erase("num_experts");
  CHECK(count_parameters(test::spec(c)).total == p.total);
  c.erase("n_routed_experts");
  CHECK_THROWS_WITH(test::spec(c), Catch::Contains("(/num_experts)"));
}
