// flopcast validate-model: the reference decoder's counted FLOPs and bytes per operation against
// estimate() of the same truncated model, for each layer kind; a deliberately wrong estimator
// input fails; MoE and MLA layers' counts against hand counts written from their configs.
#include <catch2/catch.hpp>
#include <string>

#include "flopcast/base/error.hpp"
#include "flopcast/flopcast.hpp"
#include "flopcast/measure/thread_pool.hpp"
#include "flopcast/measure/validate_model.hpp"
#include "helpers.hpp"

using namespace flopcast::measure;
using flopcast::model_spec;

namespace {

// Mixtral-style MoE: h 64, 4 heads of 16 (2 KV heads), 4 experts of width 96, top-2.
test::json tiny_mixtral() {
  return {{"model_type", "mixtral"},     {"hidden_size", 64},        {"intermediate_size", 96},
          {"num_local_experts", 4},      {"num_experts_per_tok", 2}, {"num_attention_heads", 4},
          {"num_key_value_heads", 2},    {"num_hidden_layers", 2},   {"vocab_size", 200},
          {"tie_word_embeddings", false}};
}

// DeepSeek-V2-style MLA: h 64, 4 heads, qk_nope 8 + qk_rope 4, v 8, kv_lora 16, no q_lora;
// layer 0 dense (width 96), then MoE layers (8 experts of 32, top-2, one shared expert).
test::json tiny_deepseek(std::int64_t q_lora = 0) {
  test::json j = {{"model_type", q_lora > 0 ? "deepseek_v3" : "deepseek_v2"},
                  {"hidden_size", 64},
                  {"intermediate_size", 96},
                  {"moe_intermediate_size", 32},
                  {"n_routed_experts", 8},
                  {"num_experts_per_tok", 2},
                  {"n_shared_experts", 1},
                  {"first_k_dense_replace", 1},
                  {"num_attention_heads", 4},
                  {"num_key_value_heads", 4},
                  {"kv_lora_rank", 16},
                  {"qk_nope_head_dim", 8},
                  {"qk_rope_head_dim", 4},
                  {"v_head_dim", 8},
                  {"vocab_size", 200},
                  {"num_hidden_layers", 2},
                  {"tie_word_embeddings", false}};
  j["q_lora_rank"] = q_lora > 0 ? test::json(q_lora) : test::json(nullptr);
  if (q_lora > 0) {
    j["n_group"] = 2;
    j["topk_group"] = 1;
  }
  return j;
}

validate_options small(std::int64_t layers = 2, std::int64_t prompt = 8) {
  validate_options o;
  o.layers = layers;
  o.prompt = prompt;
  o.decode_steps = 2;
  o.threads = 2;
  return o;
}

void require_all_ok(const validate_result& r) {
  INFO(to_text(r));
  CHECK(r.ok());
  std::size_t checked = 0;
  for (const auto& w : r.rows) checked += w.checked ? 1 : 0;
  CHECK(checked >= 3 * 11);  // every FLOP component of the prefill and of both decode steps
}

const validate_row& find_row(const validate_result& r, const std::string& pass, const std::string& op) {
  for (const auto& w : r.rows)
    if (w.pass == pass && w.op == op) return w;
  FAIL("no row " << pass << " " << op);
  throw std::logic_error("unreachable");
}

}  // namespace

TEST_CASE("validate-model: every layer kind agrees with the estimate", "[validate-model]") {
  SECTION("dense + GQA: llama-3.2-1b, first layer") {
    const auto r = validate_model(flopcast::find_model("llama-3.2-1b").spec, small(1));
    require_all_ok(r);
    CHECK(r.kinds.front() == "GQA");
    CHECK(r.layers == 1);
    CHECK(r.scaling.size() == 1);
  }
  SECTION("MQA, MHA and sliding windows crossed by the prompt") {
    auto mistral = test::json{{"model_type", "mistral"},  {"hidden_size", 64},        {"num_hidden_layers", 2},
                              {"num_attention_heads", 4}, {"num_key_value_heads", 1}, {"intermediate_size", 96},
                              {"vocab_size", 200},        {"sliding_window", 5},      {"tie_word_embeddings", true}};
    mistral["layer_types"] = {"sliding_attention", "full_attention"};
    const auto r = validate_model(test::spec(mistral), small(2, 12));
    require_all_ok(r);
    CHECK(r.kinds == std::vector<std::string>{"MQA", "sliding-window", "dense MLP"});
    // The prefill's KV write differs by convention (the estimate caps the windowed cache).
    CHECK_FALSE(find_row(r, "prefill", "kv_write_bytes").checked);
    CHECK(find_row(r, "decode 2", "kv_read_bytes").checked);
  }
  SECTION("a registry window cut to a short one: mistral-7b --window 8, 1 layer") {
    validate_options o = small(1, 12);
    o.window = 8;
    const auto r = validate_model(flopcast::find_model("mistral-7b").spec, o);
    require_all_ok(r);
    CHECK(r.scaling.size() == 2);
  }
  SECTION("MoE: tiny Mixtral and granite-3.1-1b-a400m") {
    const auto r = validate_model(test::spec(tiny_mixtral()), small());
    require_all_ok(r);
    CHECK(r.kinds.back() == "MoE");
    CHECK(find_row(r, "decode 1", "weight_bytes").checked);  // one token: exactly k experts per layer
    CHECK_FALSE(find_row(r, "prefill", "weight_bytes").checked);
    const auto g = validate_model(flopcast::find_model("granite-3.1-1b-a400m").spec, small(1));
    require_all_ok(g);
    CHECK(g.experts_built <= g.experts_total);
  }
  SECTION("MLA: tiny DeepSeek-V2 (dense + MoE layers), DeepSeek-V3 with a q latent, deepseek-v2-lite") {
    require_all_ok(validate_model(test::spec(tiny_deepseek()), small()));
    require_all_ok(validate_model(test::spec(tiny_deepseek(24)), small()));
    const auto r = validate_model(flopcast::find_model("deepseek-v2-lite").spec, small(1));
    require_all_ok(r);
    CHECK(r.kinds.front() == "MLA");
  }
}

TEST_CASE("validate-model: an estimate of a wrong model fails", "[validate-model]") {
  const auto m = test::spec(tiny_mixtral());
  const validate_options o = small(1);
  const model_spec s = scaled_model(m, o);
  const counted_run run = count_run(s, o);
  const auto agree = compare_counts(s, o, run);
  for (const auto& w : agree) CHECK(w.ok);
  model_spec wrong = s;
  wrong.attention.num_kv_heads += 1;  // 3 KV heads where the decoder ran 2
  const auto rows = compare_counts(wrong, o, run);
  bool qkv_failed = false, kv_write_failed = false;
  for (const auto& w : rows) {
    if (w.op == "qkv_projection" && !w.ok) qkv_failed = true;
    if (w.op == "kv_write_bytes" && w.checked && !w.ok) kv_write_failed = true;
    if (w.op == "mlp" || w.op == "output_head") CHECK(w.ok);  // only what the KV heads touch fails
  }
  CHECK(qkv_failed);
  CHECK(kv_write_failed);
  model_spec fewer = s;
  fewer.moe.experts_per_token = 1;
  bool mlp_failed = false;
  for (const auto& w : compare_counts(fewer, o, run)) mlp_failed |= w.op == "mlp" && !w.ok;
  CHECK(mlp_failed);
}

TEST_CASE("validate-model: MoE and MLA layers against hand counts", "[validate-model]") {
  thread_pool pool(2);
  decoder_options d;
  d.max_tokens = 9;
  d.moe_mla = true;
  std::vector<float> logits(200);
  std::vector<std::int32_t> prompt{3, 14, 15, 92, 65, 35, 89, 79};  // T = 8
  SECTION("a Mixtral layer (h 64, E 4, top-2, expert width 96), prefill of 8 tokens") {
    decoder dec(first_layers(test::spec(tiny_mixtral()), 1), d, pool);
    dec.prefill(prompt.data(), 8, logits.data());
    // router 2 T h E = 2*8*64*4 = 4096; softmax/top-k 5 T E = 160;
    // 2 experts x (SwiGLU 6 T h I + 2 T I = 6*8*64*96 + 2*8*96 = 294912 + 1536 = 296448) = 592896;
    // weighted sum 2 T k h = 2*8*2*64 = 2048.  4096 + 160 + 592896 + 2048 = 599200.
    CHECK(dec.counts().mlp == 599200);
    // q/k/v: 2 T h (q 64 + k 32 + v 32) = 2*8*64*128 = 131072.
    CHECK(dec.counts().qkv_projection == 131072);
  }
  SECTION("a DeepSeek MoE layer with a shared expert (8 experts of 32, top-2, shared width 32)") {
    auto j = tiny_deepseek();
    j["first_k_dense_replace"] = 0;  // layer 0 routed
    decoder dec(first_layers(test::spec(j), 1), d, pool);
    dec.prefill(prompt.data(), 8, logits.data());
    // router 2*8*64*8 = 8192; softmax/top-k 5*8*8 = 320; 2 experts x (6*8*64*32 + 2*8*32 = 98816)
    // = 197632; weighted sum 2*8*2*64 = 2048; the shared expert 98816.  Sum 307008.
    CHECK(dec.counts().mlp == 307008);
    CHECK(dec.experts_built() <= 8);
  }
  SECTION("an MLA layer (h 64, 4 heads, nope 8 + rope 4, v 8, kv_lora 16), prefill of 8, one decode step") {
    decoder dec(first_layers(test::spec(tiny_deepseek()), 1), d, pool);
    dec.prefill(prompt.data(), 8, logits.data());
    const op_counts p = dec.counts();
    // q_proj 2 T h nh qk = 2*8*64*4*12 = 49152; kv_a 2 T h (16 + 4) = 20480;
    // kv_b over the 8 latents 2*8*16*4*(8 + 8) = 16384.  Sum 86016.
    CHECK(p.qkv_projection == 86016);
    CHECK(p.rotary == 3 * 8 * (4 + 1) * 4);  // 480: every head's rope part and the shared key
    // causal pairs 8*9/2 = 36 per head: scores 2*36*4*12 = 3456, softmax 5*36*4 = 720,
    // values 2*36*4*8 = 2304; o_proj 2*8*32*64 = 32768.
    CHECK(p.attention_scores == 3456);
    CHECK(p.softmax == 720);
    CHECK(p.attention_values == 2304);
    CHECK(p.output_projection == 32768);
    // norms: 2 per layer 2*4*8*64 = 4096, the kv latent 4*8*16 = 512, final 4*8*64 = 2048.
    CHECK(p.norm == 4096 + 512 + 2048);
    // The cache stores the latent and the rope key: (16 + 4) floats per token.
    CHECK(p.kv_write_bytes == 8 * 20 * 4);
    dec.reset_counts();
    const std::int32_t next = 7;
    dec.decode(&next, logits.data());
    const op_counts s = dec.counts();
    // Absorbed: q 2*64*48 = 6144, kv_a 2*64*20 = 2560, q_nope x W_UK 2*4*8*16 = 1024 -> 9728;
    // 9 keys: scores 2*9*4*(16 + 4) = 1440, softmax 5*9*4 = 180, values 2*9*4*16 = 1152;
    // W_UV 2*4*16*8 = 1024 + o_proj 2*4*8*64 = 4096 -> 5120; KV read 9*20*4 = 720 B.
    CHECK(s.qkv_projection == 9728);
    CHECK(s.attention_scores == 1440);
    CHECK(s.softmax == 180);
    CHECK(s.attention_values == 1152);
    CHECK(s.output_projection == 5120);
    CHECK(s.kv_read_bytes == 720);
  }
}

TEST_CASE("validate-model: bad options and unsupported layers are errors", "[validate-model]") {
  const auto& llama = flopcast::find_model("llama-3.2-1b").spec;
  validate_options o = small(1);
  o.prompt = 0;
  CHECK_THROWS_AS(validate_model(llama, o), flopcast::error);
  o = small(0);
  try {
    (void)validate_model(llama, o);
    FAIL("accepted 0 layers");
  } catch (const flopcast::error& e) {
    CHECK(e.pointer() == "/layers");
  }
  try {
    (void)validate_model(flopcast::find_model("gpt2").spec, small(1));
    FAIL("accepted gpt2");
  } catch (const flopcast::error& e) {
    CHECK(e.code() == flopcast::error_code::unsupported_model);
    CHECK(e.pointer() == "MODEL");
  }
}
