// Solar Pro, Step-1, Jais, IQuest-Coder, Maincoder, Refact and Tele-FLM (issue 25): published counts and the
// structure behind them, summed by hand from each family's modeling code.
#include <catch2/catch.hpp>

#include "flopcast/flopcast.hpp"
#include "helpers.hpp"

using flopcast::count_parameters;
using test::json;

TEST_CASE("solar: Llama layers with weightless skip connections; Solar Pro Preview 22B") {
  const auto m = test::model("upstage/solar-pro-preview-instruct");
  CHECK(m.model_type == "solar");
  CHECK_FALSE(m.attention.qkv_bias);
  CHECK_FALSE(m.tie_word_embeddings);
  REQUIRE(m.groups.size() == 1);
  CHECK(m.groups[0].window == 0);  // vLLM's solar.py ignores sliding_window
  const auto p = count_parameters(m);
  // vLLM's solar.py per layer: q and o 5120 x 5120, k and v 5120 x 1280 (10 KV heads of 128),
  // gate/up/down 5120 x 17920, two RMSNorms of 5120 = 340,797,440.
  const std::int64_t layer = 2 * 5120LL * 5120 + 2 * 5120LL * 1280 + 3 * 5120LL * 17920 + 2 * 5120;
  CHECK(p.per_layer[0] == layer);
  // 64 layers + embedding and untied head 2 x 32128 x 5120 + final norm = 22,140,032,000: the card's
  // "22 billion parameters".
  CHECK(p.total == 64 * layer + 2 * 32128LL * 5120 + 5120);
  CHECK(p.total == 22140032000);

  // bias (vLLM: attention_bias or bias) puts biases on q, k, v and o.
  json c = json::parse(test::read_text("data/models/solar-pro-preview-instruct.json"))["config"];
  c["bias"] = true;
  CHECK(count_parameters(test::spec(c)).total - p.total == 64 * (5120 + 2 * 1280 + 5120));
}

TEST_CASE("step1: Llama layers with ALiBi and attention groups; Step-Audio-TTS-3B exact") {
  const auto m = test::model("stepfun-ai/Step-Audio-TTS-3B");
  CHECK(m.position == flopcast::position_kind::alibi);
  CHECK(m.attention.rotary_dim == 0);
  CHECK(m.attention.num_kv_heads == 4);
  CHECK(m.attention.head_dim == 64);
  CHECK(m.max_position_embeddings == 32768);
  CHECK_FALSE(m.tie_word_embeddings);
  const auto p = count_parameters(m);
  // vLLM's step1.py per layer: q and o 3072 x 3072, k and v 3072 x 256 (4 groups of 64), gate/up/down
  // 3072 x 8192, two RMSNorms of 3072 = 95,950,848.
  const std::int64_t layer = 2 * 3072LL * 3072 + 2 * 3072LL * 256 + 3 * 3072LL * 8192 + 2 * 3072;
  CHECK(p.per_layer[0] == layer);
  // 32 layers + embedding and head 2 x 74752 x 3072 + final norm = 3,529,706,496: the BF16 index's
  // total_size of 7,059,412,992 bytes, so the checkpoint has a separate head.
  CHECK(p.total == 32 * layer + 2 * 74752LL * 3072 + 3072);
  CHECK(p.total == 3529706496);

  // Without num_attention_groups (or num_key_value_heads) vLLM uses one key/value head.
  json c = json::parse(test::read_text("data/models/step-audio-tts-3b.json"))["config"];
  c.erase("num_attention_groups");
  CHECK(test::spec(c).attention.num_kv_heads == 1);
  c["num_attention_groups"] = 5;
  CHECK_THROWS_WITH(test::spec(c), Catch::Contains("(/num_attention_groups)"));
}

TEST_CASE("jais: GPT-2 blocks with ALiBi and a biased SwiGLU MLP; Jais-13B") {
  const auto m = test::model("inceptionai/jais-13b");
  CHECK(m.position == flopcast::position_kind::alibi);
  CHECK(m.learned_positions == 0);
  CHECK(m.norm == flopcast::norm_kind::layernorm);
  CHECK(m.mlp.gated);
  CHECK(m.mlp.activation == "silu");
  CHECK(m.tie_word_embeddings);
  const auto p = count_parameters(m);
  // vLLM's jais.py per layer: c_attn 5120 x 15360 + bias, c_proj 5120 x 5120 + bias, ln_1 and ln_2
  // (weight and bias), c_fc and c_fc2 5120 x 13653 + biases, c_proj 13653 x 5120 + bias.
  const std::int64_t h = 5120, inner = 13653;
  const std::int64_t layer = (h * 3 * h + 3 * h) + (h * h + h) + 4 * h + (2 * (h * inner + inner) + inner * h + h);
  CHECK(p.per_layer[0] == layer);
  CHECK(layer == 314641066);
  // 40 layers + wte 84992 x 5120 (tied head) + ln_f = 13,020,811,920: the card's "13 billion".
  CHECK(p.total == 40 * layer + 84992 * h + 2 * h);
  CHECK(p.total == 13020811920);

  // Learned positions add a wpe table of n_positions rows; without "swiglu" the MLP is c_fc -> c_proj.
  json c = json::parse(test::read_text("data/models/jais-13b.json"))["config"];
  c["position_embedding_type"] = "learned";
  CHECK(count_parameters(test::spec(c)).total - p.total == 2048 * h);
  c["position_embedding_type"] = "rotary";
  CHECK_THROWS_WITH(test::spec(c), Catch::Contains("(/position_embedding_type)"));
  c["position_embedding_type"] = "alibi";
  c["activation_function"] = "gelu";
  CHECK(p.total - count_parameters(test::spec(c)).total == 40 * (h * inner + inner));
}

TEST_CASE("iquestcoder: Llama with head_dim 128; IQuest-Coder-V1 40B") {
  const auto m = test::model("IQuestLab/IQuest-Coder-V1-40B-Base");
  CHECK(m.attention.head_dim == 128);
  CHECK(m.attention.num_kv_heads == 8);
  CHECK_FALSE(m.tie_word_embeddings);
  const auto p = count_parameters(m);
  // Per layer: q and o 5120 x 5120, k and v 5120 x 1024, gate/up/down 5120 x 27648, two norms.
  const std::int64_t layer = 2 * 5120LL * 5120 + 2 * 5120LL * 1024 + 3 * 5120LL * 27648 + 2 * 5120;
  CHECK(p.per_layer[0] == layer);
  // 80 layers + embedding and head 2 x 76800 x 5120 + final norm = 39,794,283,520: the README's 40B.
  CHECK(p.total == 80 * layer + 2 * 76800LL * 5120 + 5120);
  CHECK(p.total == 39794283520);
}

TEST_CASE("maincoder: Llama with per-head q/k RMSNorms; Maincoder-1B") {
  const auto m = test::model("Maincode/Maincoder-1B");
  CHECK(m.attention.qk_norm);
  CHECK(m.attention.head_dim == 96);
  CHECK(m.tie_word_embeddings);
  const auto p = count_parameters(m);
  // Per layer: q and o 1536 x 1536 (16 heads of 96), k and v 1536 x 384, gate/up/down 1536 x 4096,
  // two norms of 1536, q_norm and k_norm of 96 = 24,775,872.
  const std::int64_t layer = 2 * 1536LL * 1536 + 2 * 1536LL * 384 + 3 * 1536LL * 4096 + 2 * 1536 + 2 * 96;
  CHECK(p.per_layer[0] == layer);
  // 32 layers + tied embedding 151936 x 1536 + final norm = 1,026,203,136: the card's "1 billion".
  CHECK(p.total == 32 * layer + 151936LL * 1536 + 1536);
  CHECK(p.total == 1026203136);

  json c = json::parse(test::read_text("data/models/maincoder-1b.json"))["config"];
  c["use_qk_norm"] = false;
  CHECK(p.total - count_parameters(test::spec(c)).total == 32 * 2 * 96);
}

TEST_CASE("gpt_refact: Llama layers with ALiBi and one key/value head; Refact-1.6B") {
  const auto m = test::model("smallcloudai/Refact-1_6B-fim");
  CHECK(m.position == flopcast::position_kind::alibi);
  CHECK(m.attention.num_kv_heads == 1);
  CHECK(m.attention.head_dim == 64);
  CHECK(m.mlp.intermediate_size == 5632);  // 256 x ceil(int(8 x 2048 / 3) / 256) = 256 x 22
  CHECK_FALSE(m.tie_word_embeddings);
  const auto p = count_parameters(m);
  // Per layer: q and o 2048 x 2048, k and v 2048 x 64, gate/up/down 2048 x 5632, two RMSNorms.
  const std::int64_t layer = 2 * 2048LL * 2048 + 2 * 2048LL * 64 + 3 * 2048LL * 5632 + 2 * 2048;
  CHECK(p.per_layer[0] == layer);
  // 32 layers + embedding and head 2 x 49216 x 2048 + final norm = 1,585,842,176: "1.6B", and
  // 3.17 GB at two bytes a parameter.
  CHECK(p.total == 32 * layer + 2 * 49216LL * 2048 + 2048);
  CHECK(p.total == 1585842176);

  // multi_query false gives every head its own keys and values.
  json c = json::parse(test::read_text("data/models/refact-1.6b-fim.json"))["config"];
  c["multi_query"] = false;
  CHECK(count_parameters(test::spec(c)).total - p.total == 32 * 2 * 2048LL * (2048 - 64));
}

TEST_CASE("TeleFLM: Llama layers with muP scalars; Tele-FLM-1T") {
  const auto m = test::model("CofeAI/Tele-FLM-1T");
  CHECK(m.model_type == "TeleFLM");
  CHECK_FALSE(m.tie_word_embeddings);
  CHECK(m.attention.num_kv_heads == 160);
  const auto p = count_parameters(m);
  // Per layer: q, k, v, o 20480 x 20480, gate/up/down 20480 x 98304, two RMSNorms.
  const std::int64_t layer = 4 * 20480LL * 20480 + 3 * 20480LL * 98304 + 2 * 20480;
  CHECK(p.per_layer[0] == layer);
  // 140 layers + embedding and head 2 x 81920 x 20480 + final norm = 1,083,813,908,480: the card's 1T.
  CHECK(p.total == 140 * layer + 2 * 81920LL * 20480 + 20480);
  CHECK(p.total == 1083813908480);
}
