// OpenELM (openelm) and Nemotron-NAS / DeciLM (nemotron-nas): layers with their own head counts
// and MLP widths (layer_group::attention, layer_group::intermediate_size), DeciLM's layers
// without attention or without an MLP. Counts hand-computed from Apple's configuration_openelm.py /
// modeling_openelm.py and vLLM's nemotron_nas.py at the published checkpoints' sizes.
#include <catch2/catch.hpp>

#include "helpers.hpp"

using flopcast::count_parameters;
using test::json;

namespace {

json openelm_record_config(const char* file) {
  return json::parse(test::read_text(std::string("data/models/") + file))["config"];
}

// OpenELM parameters from the per-layer query heads, KV heads and FFN widths (head_dim hd):
// qkv_proj h x (q + 2 kv) hd, out_proj q hd x h, q/k norms of hd, two RMSNorms, proj_1 h x 2 I,
// proj_2 I x h; the tied embedding and the final norm.
std::int64_t openelm_hand_count(std::int64_t h, std::int64_t hd, const std::vector<std::int64_t>& q,
                                const std::vector<std::int64_t>& ff) {
  std::int64_t total = 32000 * h + h;
  for (std::size_t i = 0; i < q.size(); ++i) {
    const std::int64_t kv = q[i] / 4;
    total += h * (q[i] + 2 * kv) * hd + q[i] * hd * h + 2 * hd + 2 * h + 3 * h * ff[i];
  }
  return total;
}

// A small DeciLM: layer 0 attention (8 KV heads) + FFN 2.625, layer 1 no attention + FFN 1.0,
// layer 2 attention (4 KV heads, n_heads_in_group 4) + no FFN, layer 3 neither.
json nemotron_nas_small() {
  const auto block = [](json attention, json ffn) { return json{{"attention", attention}, {"ffn", ffn}}; };
  return json{{"model_type", "nemotron-nas"},
              {"architectures", {"DeciLMForCausalLM"}},
              {"hidden_size", 1024},
              {"num_attention_heads", 16},
              {"num_hidden_layers", 4},
              {"vocab_size", 1000},
              {"max_position_embeddings", 4096},
              {"tie_word_embeddings", false},
              {"block_configs",
               {block({{"n_heads_in_group", 2}, {"no_op", false}}, {{"ffn_mult", 2.625}, {"no_op", false}}),
                block({{"n_heads_in_group", nullptr}, {"no_op", true}}, {{"ffn_mult", 1.0}, {"no_op", false}}),
                block({{"n_heads_in_group", 4}, {"no_op", false}}, {{"ffn_mult", nullptr}, {"no_op", true}}),
                block({{"no_op", true}}, {{"no_op", true}})}}};
}

}  // namespace

TEST_CASE("openelm: per-layer heads and FFN widths, the published 270M, 1.08B and 3B") {
  // 270M: model_dim 1280, head_dim 64; query heads make_divisible(1280 x linspace(0.5, 1, 16),
  // 256) / 64, FFN make_divisible(1280 x linspace(0.5, 4, 16) (2 decimals), 256).
  const flopcast::model_spec m270 = test::spec(openelm_record_config("openelm-270m.json"));
  CHECK(m270.groups.size() == 16);  // every layer its own shape
  const std::int64_t p270 = count_parameters(m270).total;
  CHECK(p270 == openelm_hand_count(
                    1280, 64, {12, 12, 12, 12, 12, 16, 16, 16, 16, 16, 16, 16, 20, 20, 20, 20},
                    {768, 1024, 1280, 1536, 1792, 2048, 2560, 2816, 3072, 3328, 3584, 3840, 4352, 4608, 4864, 5120}));
  CHECK(p270 == 271527168);
  CHECK(flopcast::matches_published(p270, 270000000, 2));  // "270M" (card)

  // 1.1B: layers 13 and 14 share 24 heads and a 4608 FFN (2.19 and 2.31 x 2048 both round to 4608).
  const flopcast::model_spec m1b = test::spec(openelm_record_config("openelm-1.1b.json"));
  CHECK(m1b.groups.size() == 27);
  const std::int64_t p1b = count_parameters(m1b).total;
  CHECK(p1b ==
        openelm_hand_count(2048, 64, {16, 16, 16, 20, 20, 20, 20, 20, 20, 20, 24, 24, 24, 24,
                                      24, 24, 24, 24, 28, 28, 28, 28, 28, 28, 32, 32, 32, 32},
                           {1024, 1280, 1536, 1792, 2048, 2304, 2560, 2816, 3072, 3328, 3584, 3840, 4096, 4608,
                            4608, 5120, 5376, 5632, 5888, 6144, 6400, 6656, 6912, 7168, 7424, 7680, 7936, 8192}));
  CHECK(p1b == 1079891456);
  CHECK(flopcast::matches_published(p1b, 1080000000, 3));  // "1.08 billion"

  // 3B: 36 distinct layers, head_dim 128.
  const flopcast::model_spec m3b = test::spec(openelm_record_config("openelm-3b.json"));
  CHECK(m3b.groups.size() == 36);
  const std::int64_t p3b = count_parameters(m3b).total;
  CHECK(p3b == openelm_hand_count(3072, 128, {12, 12, 12, 12, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16,
                                              20, 20, 20, 20, 20, 20, 20, 20, 20, 20, 20, 20, 24, 24, 24, 24, 24, 24},
                                  {1536, 1792, 2048, 2560, 2816,  3072,  3328,  3584,  4096,  4352,  4608,  4864,
                                   5120, 5632, 5888, 6144, 6400,  6656,  7168,  7424,  7680,  7936,  8192,  8704,
                                   8960, 9216, 9472, 9728, 10240, 10496, 10752, 11008, 11264, 11776, 12032, 12288}));
  CHECK(p3b == 3036647424);
  CHECK(flopcast::matches_published(p3b, 3000000000, 1));  // "3B" (card)
}

TEST_CASE("openelm: the saved per-layer lists and the two-number ranges read the same") {
  // __post_init__ recomputes the heads from qkv_multipliers; ffn_multipliers may be the range.
  json c = openelm_record_config("openelm-270m.json");
  const std::int64_t saved = count_parameters(test::spec(c)).total;
  c["ffn_multipliers"] = {0.5, 4.0};
  c.erase("num_query_heads");
  c.erase("num_kv_heads");
  CHECK(count_parameters(test::spec(c)).total == saved);
  // One multiplier for every layer: a uniform model (one group).
  c["ffn_multipliers"] = 2.0;
  c["qkv_multipliers"] = 1.0;
  const flopcast::model_spec u = test::spec(c);
  CHECK(u.groups.size() == 1);
  CHECK(u.mlp.intermediate_size == 2560);
  CHECK(u.attention.num_heads == 20);
  CHECK(u.attention.num_kv_heads == 5);
  // A per-layer list of the wrong length names the field.
  c["ffn_multipliers"] = {1.0, 2.0, 3.0};
  CHECK_THROWS_WITH(test::spec(c), Catch::Contains("ffn_multipliers"));
  c["ffn_multipliers"] = 2.0;
  c["qkv_multipliers"] = {0.5, 0.75, 1.0};
  CHECK_THROWS_WITH(test::spec(c), Catch::Contains("qkv_multipliers"));
  c["qkv_multipliers"] = -1.0;
  CHECK_THROWS_WITH(test::spec(c), Catch::Contains("qkv_multipliers"));
}

TEST_CASE("per-group MLP widths: FLOPs, parameters and memory of mixed layers are the sum of the parts") {
  // Three layers of FFN multipliers 1, 2 and 3 against three uniform models of each: everything
  // but the MLPs is the same, and the MLPs are linear in the layers, so 3 x mixed == the sum.
  json c = openelm_record_config("openelm-270m.json");
  c["num_transformer_layers"] = 3;
  c["qkv_multipliers"] = 1.0;
  c.erase("num_query_heads");
  c.erase("num_kv_heads");
  c["ffn_multipliers"] = {1.0, 2.0, 3.0};
  const flopcast::model_spec mixed = test::spec(c);
  REQUIRE(mixed.groups.size() == 3);
  std::vector<flopcast::model_spec> parts;
  for (double f : {1.0, 2.0, 3.0}) {
    c["ffn_multipliers"] = f;
    parts.push_back(test::spec(c));
    CHECK(parts.back().groups.size() == 1);
  }
  const auto sum = [&](auto f) { return f(parts[0]) + f(parts[1]) + f(parts[2]); };
  CHECK(3 * count_parameters(mixed).total ==
        sum([](const flopcast::model_spec& m) { return count_parameters(m).total; }));
  const auto fwd = [](const flopcast::model_spec& m) { return flopcast::forward_flops(m, 2, 512, true).parts.total; };
  CHECK(3 * fwd(mixed) == Approx(sum(fwd)).epsilon(1e-12));
  const auto mlp = [](const flopcast::model_spec& m) { return flopcast::forward_flops(m, 2, 512, true).parts.mlp; };
  CHECK(3 * mlp(mixed) == Approx(sum(mlp)).epsilon(1e-12));
  flopcast::settings s;
  s.batch_size = 2;
  s.sequence_length = 512;
  const auto weights = [&](const flopcast::model_spec& m) { return flopcast::estimate(m, s, nullptr).memory.weights; };
  CHECK(3 * weights(mixed) == Approx(sum(weights)).epsilon(1e-12));
  const auto decode = [&](const flopcast::model_spec& m) {
    return flopcast::estimate(m, s, nullptr).decode_step.parts.total;
  };
  CHECK(3 * decode(mixed) == Approx(sum(decode)).epsilon(1e-12));
  // Activations take the widest layer's MLP.
  CHECK(flopcast::estimate(mixed, s, nullptr).memory.activations ==
        Approx(flopcast::estimate(parts[2], s, nullptr).memory.activations));
  // Per-layer heads: the KV cache is the sum over the layers' own KV heads.
  json h = openelm_record_config("openelm-270m.json");
  const flopcast::model_spec m270 = test::spec(h);
  const double per_token = 2.0 * 64 * (5 * 3 + 7 * 4 + 4 * 5) * 2;  // K and V, bf16
  CHECK(flopcast::kv_cache_bytes(m270, 1, 100, flopcast::precision::bf16, 0) == Approx(100 * per_token));
}

TEST_CASE("nemotron-nas: layers without attention, without an FFN, with their own KV heads and widths") {
  const flopcast::model_spec m = test::spec(nemotron_nas_small());
  REQUIRE(m.groups.size() == 4);
  // FFN widths: int(2 x 2.625 x 1024 / 3) = 1792 (a multiple of 256); int(2 x 1 x 1024 / 3) = 682
  // -> 768. Attention: q and o 1024 x 1024, k and v 1024 x 64 x KV heads (8, then 4).
  const std::int64_t h = 1024;
  const std::int64_t layer0 = 2 * h * h + 2 * h * 8 * 64 + h + 3 * h * 1792 + h;
  const std::int64_t layer1 = 3 * h * 768 + h;
  const std::int64_t layer2 = 2 * h * h + 2 * h * 4 * 64 + h;
  const std::int64_t total = 2 * 1000 * h + h + layer0 + layer1 + layer2;  // untied head, final norm
  CHECK(count_parameters(m).total == total);
  // Only layers 0 and 2 cache K and V: (8 + 4) KV heads x 64 x 2 x 2 bytes per token.
  CHECK(flopcast::kv_cache_bytes(m, 1, 10, flopcast::precision::bf16, 0) == Approx(10.0 * 12 * 64 * 2 * 2));
  // A forward pass: layer 1 and 3 have no attention FLOPs, layer 2 and 3 no MLP FLOPs.
  const flopcast::pass_flops f = flopcast::forward_flops(m, 1, 100, true);
  for (std::size_t g = 0; g < m.groups.size(); ++g) {
    const flopcast::layer_group& grp = m.groups[g];
    if (grp.mixer == flopcast::mixer_kind::none) CHECK(f.per_layer[g].attention == 0);
    if (!grp.mlp) CHECK(f.per_layer[g].mlp == 0);
  }
  // A linear layer in place of attention is refused with its field.
  json c = nemotron_nas_small();
  c["block_configs"][1]["attention"]["replace_with_linear"] = true;
  CHECK_THROWS_WITH(test::spec(c), Catch::Contains("/block_configs/1/attention/replace_with_linear"));
  c = nemotron_nas_small();
  c["block_configs"][0]["attention"]["n_heads_in_group"] = 3;
  CHECK_THROWS_WITH(test::spec(c), Catch::Contains("n_heads_in_group"));
  c = nemotron_nas_small();
  c["block_configs"].erase(3);
  CHECK_THROWS_WITH(test::spec(c), Catch::Contains("block_configs"));
}

TEST_CASE("nemotron-nas: Llama-3.1-Nemotron-Ultra-253B-v1, the published 253.4B") {
  const json rec = json::parse(test::read_text("data/models/llama-3.1-nemotron-ultra-253b-v1.json"));
  const flopcast::model_spec m = test::spec(rec["config"]);
  // 162 layers in 16 shapes (attention no_op or 8 KV heads, 12 FFN widths). Hand count: per
  // attention layer 2 x 16384 x 16384 + 2 x 16384 x 8 x 128 + 16384; per FFN layer 3 x 16384 x
  // I + 16384 with I = ceil256(int(2 x ffn_mult x 16384 / 3)); untied 128256-row head.
  CHECK(m.groups.size() == 16);
  std::int64_t total = 2 * 128256LL * 16384 + 16384;
  for (const auto& b : rec["config"]["block_configs"]) {
    if (!b["attention"]["no_op"].get<bool>()) total += 2 * 16384LL * 16384 + 2 * 16384LL * 8 * 128 + 16384;
    if (!b["ffn"]["no_op"].get<bool>()) {
      auto n = static_cast<std::int64_t>(2 * b["ffn"]["ffn_mult"].get<double>() * 16384 / 3);
      if (n % 256 != 0) n += 256 - n % 256;
      total += 3 * 16384LL * n + 16384;
    }
  }
  const std::int64_t p = count_parameters(m).total;
  CHECK(p == total);
  CHECK(p == 253401268224);
  CHECK(flopcast::matches_published(p, 253400000000, 4));  // "253.4B"
}

TEST_CASE("layer groups: up to 64 distinct layer shapes, a clear error beyond") {
  // FFN multipliers 1.00, 1.05, ... give widths 1280, 1344, ... (multiples of 8): one shape per layer.
  json c = openelm_record_config("openelm-270m.json");
  c["qkv_multipliers"] = 1.0;
  c["ffn_dim_divisor"] = 8;
  c.erase("num_query_heads");
  c.erase("num_kv_heads");
  const auto with_layers = [&](int n) {
    json multipliers = json::array();
    for (int i = 0; i < n; ++i) multipliers.push_back(1.0 + 0.05 * i);
    c["num_transformer_layers"] = n;
    c["ffn_multipliers"] = multipliers;
    return c;
  };
  CHECK(test::spec(with_layers(64)).groups.size() == 64);
  CHECK_THROWS_WITH(test::spec(with_layers(65)), Catch::Contains("more than 64"));
}
