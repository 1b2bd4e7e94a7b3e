// RWKV-6 (rwkv6: Rwkv6ForCausalLM, BBuf/RWKV-World-HF-Tokenizer's modeling_rwkv6.py) and RWKV-7
// (rwkv7: flash-linear-attention's RWKV7ForCausalLM, fla/layers/rwkv7.py and
// fla/models/rwkv7/modeling_rwkv7.py): counts hand-computed from those layouts (the same tensors
// llama.cpp's convert_hf_to_gguf.py Rwkv6Model / Rwkv7Model map), the published figures, a
// constant per-sequence state and FLOPs per token that do not grow with the context.
#include <catch2/catch.hpp>

#include "flopcast/checkpoint/checkpoint.hpp"
#include "helpers.hpp"

using flopcast::count_parameters;
using test::json;

namespace {

// RWKV/v6-Finch-1B6-HF's config.json (the fields that size it).
json rwkv_test_v6_config() {
  return {{"model_type", "rwkv6"}, {"hidden_size", 2048},          {"num_hidden_layers", 24},
          {"head_size", 64},       {"intermediate_size", nullptr}, {"attention_hidden_size", 2048},
          {"vocab_size", 65536},   {"tie_word_embeddings", false}};
}

// fla's RWKV7Config at RWKV7-Goose-World3-2.9B's sizes.
json rwkv_test_v7_config() {
  return {
      {"model_type", "rwkv7"},        {"hidden_size", 2560},      {"num_hidden_layers", 32},  {"head_dim", 64},
      {"intermediate_size", 10240},   {"vocab_size", 65536},      {"decay_low_rank_dim", 96}, {"a_low_rank_dim", 96},
      {"v_low_rank_dim", 64},         {"gate_low_rank_dim", 320}, {"norm_first", true},       {"norm_bias", true},
      {"tie_word_embeddings", false}, {"attn", nullptr}};
}

}  // namespace

TEST_CASE("rwkv6: RWKV-6 Finch 1.6B counted from modeling_rwkv6.py, against the published 1.6B", "[rwkv]") {
  const auto& r = flopcast::find_model("RWKV/v6-Finch-1B6-HF");
  CHECK(r.family == "rwkv6");
  const flopcast::model_spec& m = r.spec;
  CHECK(m.model_type == "rwkv6");
  REQUIRE(m.groups.size() == 1);
  CHECK(m.groups[0].mixer == flopcast::mixer_kind::rwkv);
  const std::int64_t h = 2048, I = 7168;  // int(2048 x 3.5) // 32 x 32
  CHECK(m.mlp.intermediate_size == I);
  // Rwkv6SelfAttention: time_maa_x/w/k/v/r/g 6h, time_maa_w1 h x 5 x 32 and w2 5 x 32 x h,
  // time_decay h, time_decay_w1 h x 64 and w2 64 x h, time_faaaa 32 heads x 64 = h,
  // key/value/receptance/gate 4 h^2, output h^2, ln_x weight and bias 2h.
  const std::int64_t time_mix = 6 * h + 2 * (h * 160) + h + 2 * (h * 64) + h + 5 * h * h + 2 * h;
  CHECK(time_mix == 21909504);
  // Rwkv6FeedForward: time_maa_k, time_maa_r; key h x I, value I x h, receptance h x h.
  const std::int64_t channel_mix = 2 * h + 2 * h * I + h * h;
  CHECK(channel_mix == 33558528);
  // Two LayerNorms per block (ln1, ln2), blocks.0.pre_ln, ln_out; embeddings and an untied head.
  const std::int64_t total = 24 * (time_mix + channel_mix + 4 * h) + 2 * h + 2 * h + 2 * 65536 * h;
  const auto p = count_parameters(m);
  CHECK(p.mixer == 24 * time_mix);
  CHECK(p.mlp == 24 * channel_mix);
  CHECK(p.attention == 0);
  CHECK(p.total == total);
  CHECK(p.total == 1599873024);
  CHECK(p.active == p.total);
  // "1.6 billion" (arXiv 2404.05892) promises +-0.05B.
  CHECK(r.published_significant_digits == 2);
  CHECK(flopcast::matches_published(p.total, r.published_parameters, r.published_significant_digits));
  CHECK_FALSE(flopcast::matches_published(p.total + 100000000, r.published_parameters, 2));
  // The reader gives the same spec from the test config.
  CHECK(count_parameters(test::spec(rwkv_test_v6_config())).total == total);
}

TEST_CASE("rwkv6: the 7B's wider LoRAs (hidden 4096) and the 3B at the paper's 3.1B", "[rwkv]") {
  json c = rwkv_test_v6_config();
  c["hidden_size"] = 2560;
  c["attention_hidden_size"] = 2560;
  c["num_hidden_layers"] = 32;
  // Finch 3B (L32-D2560): intermediate 8960; per layer time mix 458 h + 5 h^2, channel mix
  // 2h + 2 h x 8960 + h^2, norms 4h; then embeddings, head, pre_ln and ln_out.
  const std::int64_t h = 2560;
  const std::int64_t layer = 458 * h + 5 * h * h + 2 * h + 2 * h * 8960 + h * h + 4 * h;
  const std::int64_t total = 32 * layer + 2 * 65536 * h + 4 * h;
  CHECK(total == 3099863040);
  CHECK(count_parameters(test::spec(c)).total == total);
  CHECK(flopcast::matches_published(total, 3100000000, 2));  // "3.1 billion", arXiv 2404.05892
  // At hidden 4096 the token-shift LoRA is 64 wide and the decay LoRA 128 (convert_hf_to_gguf.py).
  c["hidden_size"] = 4096;
  c["attention_hidden_size"] = 4096;
  const flopcast::model_spec wide = test::spec(c);
  CHECK(wide.rwkv.mix_rank == 64);
  CHECK(wide.rwkv.decay_rank == 128);
  CHECK(wide.mlp.intermediate_size == 14336);
}

TEST_CASE("rwkv7: RWKV-7 Goose 2.9B counted from fla's RWKV7 layers, against the published 2.9B", "[rwkv]") {
  const auto& r = flopcast::find_model("RWKV/RWKV7-Goose-World3-2.9B-HF");
  CHECK(r.family == "rwkv7");
  const flopcast::model_spec& m = r.spec;
  CHECK(m.model_type == "rwkv7");
  const std::int64_t h = 2560, I = 10240;
  // RWKV7Attention: x_r/w/k/v/a/g 6h, k_k, k_a, r_k 3h, r/k/v/o_proj 4 h^2, w_lora h x 96 + 96 x h
  // + bias h, a_lora the same at 96, v_lora at 64 (+ bias; not in layer 0), g_lora h x 320 +
  // 320 x h (no bias), g_norm 2h.
  const std::int64_t v_lora = 2 * h * 64 + h;
  const std::int64_t later =
      6 * h + 3 * h + 4 * h * h + (2 * h * 96 + h) + (2 * h * 96 + h) + v_lora + 2 * h * 320 + 2 * h;
  const std::int64_t first = later - v_lora;
  // RWKV7FeedForward: x_k h, key h x I, value I x h (relu^2).
  const std::int64_t channel_mix = h + 2 * h * I;
  // attn_norm, ffn_norm (LayerNorm with bias) per block; layer 0's pre_norm; the final norm;
  // embeddings and an untied lm_head.
  const std::int64_t total = first + 31 * later + 32 * (channel_mix + 4 * h) + 2 * h + 2 * h + 2 * 65536 * h;
  const auto p = count_parameters(m);
  CHECK(p.mixer == first + 31 * later);
  CHECK(p.mlp == 32 * channel_mix);
  CHECK(p.total == total);
  CHECK(p.total == 2947735040);
  // BlinkDL's .pth keeps a dummy v LoRA in layer 0 as well: 330,240 more (2,948,065,280).
  CHECK(p.total + v_lora == 2948065280);
  REQUIRE(m.groups.size() == 2);
  CHECK(m.groups[0].count == 1);
  CHECK(m.groups[0].rwkv_first);
  CHECK(m.groups[1].count == 31);
  // "2.9 billion" (arXiv 2503.14456) promises +-0.05B.
  CHECK(r.published_significant_digits == 2);
  CHECK(flopcast::matches_published(p.total, r.published_parameters, r.published_significant_digits));
  CHECK_FALSE(flopcast::matches_published(p.total + 100000000, r.published_parameters, 2));
  CHECK(count_parameters(test::spec(rwkv_test_v7_config())).total == total);
}

TEST_CASE("rwkv7: defaults, null LoRA ranks, no gate in RWKV-6-style configs, RWKV's own key names", "[rwkv]") {
  json c = rwkv_test_v7_config();
  // Absent ranks: RWKV7Config's defaults 64, 64, 16, 128.
  for (const char* k : {"decay_low_rank_dim", "a_low_rank_dim", "v_low_rank_dim", "gate_low_rank_dim"}) c.erase(k);
  flopcast::model_spec m = test::spec(c);
  CHECK(m.rwkv.decay_rank == 64);
  CHECK(m.rwkv.a_rank == 64);
  CHECK(m.rwkv.value_rank == 16);
  CHECK(m.rwkv.gate_rank == 128);
  // Null ranks: fla's formula max(32, round(k sqrt(2560) / 32) x 32): 2.5 -> 128, 1.7 -> 96, 5 -> 256.
  for (const char* k : {"decay_low_rank_dim", "a_low_rank_dim", "v_low_rank_dim", "gate_low_rank_dim"}) c[k] = nullptr;
  m = test::spec(c);
  CHECK(m.rwkv.decay_rank == 128);
  CHECK(m.rwkv.a_rank == 128);
  CHECK(m.rwkv.value_rank == 96);
  CHECK(m.rwkv.gate_rank == 256);
  // No intermediate_size: hidden x hidden_ratio rounded up to 32.
  c = rwkv_test_v7_config();
  c.erase("intermediate_size");
  c["hidden_ratio"] = 3.5;
  CHECK(test::spec(c).mlp.intermediate_size == 8960);
  // RWKV's own config keys (head_size, lora_rank_*), as convert_hf_to_gguf.py reads them.
  json own = {{"model_type", "rwkv7"}, {"hidden_size", 2560},        {"num_hidden_layers", 32},
              {"head_size", 64},       {"intermediate_size", 10240}, {"vocab_size", 65536},
              {"lora_rank_decay", 96}, {"lora_rank_iclr", 96},       {"lora_rank_value_residual_mix", 64},
              {"lora_rank_gate", 320}};
  CHECK(count_parameters(test::spec(own)).total == 2947735040);
  // Without norm_first there is no pre_norm (2h less).
  c = rwkv_test_v7_config();
  c["norm_first"] = false;
  CHECK(count_parameters(test::spec(rwkv_test_v7_config())).total - count_parameters(test::spec(c)).total == 2 * 2560);
}

TEST_CASE("rwkv: a constant per-sequence state instead of a KV cache, FLOPs per token flat in the context", "[rwkv]") {
  for (const char* id : {"RWKV/v6-Finch-1B6-HF", "RWKV/RWKV7-Goose-World3-2.9B-HF"}) {
    const flopcast::model_spec& m = flopcast::find_model(id).spec;
    const double h = static_cast<double>(m.hidden_size);
    const double layers = static_cast<double>(m.num_layers);
    flopcast::settings s;
    s.batch_size = 1;
    s.num_generated_tokens = 16;
    s.sequence_length = 1000;
    const flopcast::estimate_result short_ctx = flopcast::estimate(m, s, nullptr);
    s.sequence_length = 100000;
    const flopcast::estimate_result long_ctx = flopcast::estimate(m, s, nullptr);
    // Per layer: heads x 64 x 64 of state plus the last token for the time and channel mixes, bf16.
    const double state = layers * (h * 64 + 2 * h) * 2;
    CHECK(short_ctx.memory.recurrent_state == state);
    CHECK(long_ctx.memory.recurrent_state == state);
    CHECK(short_ctx.memory.kv_cache_per_token == 0);
    CHECK(long_ctx.memory.kv_cache == short_ctx.memory.kv_cache);
    CHECK((short_ctx.notes & flopcast::note_recurrent_state) != 0);
    // A prompt's FLOPs grow linearly: 100 x the tokens, 100 x the work (no pairwise term).
    const flopcast::pass_flops f1 = flopcast::forward_flops(m, 1, 1000, true);
    const flopcast::pass_flops f2 = flopcast::forward_flops(m, 1, 100000, true);
    CHECK(f2.parts.mixer == Approx(100 * f1.parts.mixer).epsilon(1e-12));
    CHECK(f2.parts.mlp == Approx(100 * f1.parts.mlp).epsilon(1e-12));
    CHECK(f2.parts.attention == 0);
  }
  // One RWKV-6 token by hand: the channel mix's key/value (2 x 2 h I), relu^2 (I), token shift
  // (h + 2 x 2h) and receptance (2 h^2 + 2h).
  const flopcast::model_spec& v6 = flopcast::find_model("RWKV/v6-Finch-1B6-HF").spec;
  const double h = 2048, I = 7168;
  const flopcast::pass_flops one = flopcast::forward_flops(v6, 1, 1, true);
  CHECK(one.parts.mlp == Approx(24 * (4 * h * I + I + 5 * h + 2 * h * h + 2 * h)).epsilon(1e-12));
}

TEST_CASE("rwkv: bad fields name the field", "[rwkv]") {
  json bad = rwkv_test_v6_config();
  bad["head_size"] = 48;
  CHECK(test::pointer_of([&] { (void)test::spec(bad); }) == "/head_size");
  CHECK_THROWS_WITH(test::spec(bad), Catch::Contains("divides the time-mix width 2048"));
  bad = rwkv_test_v6_config();
  bad["head_size"] = 0;
  CHECK(test::pointer_of([&] { (void)test::spec(bad); }) == "/head_size");
  bad = rwkv_test_v6_config();
  bad["attention_hidden_size"] = 1024;
  CHECK(test::pointer_of([&] { (void)test::spec(bad); }) == "/attention_hidden_size");
  bad = rwkv_test_v6_config();
  bad.erase("hidden_size");
  CHECK(test::pointer_of([&] { (void)test::spec(bad); }) == "/hidden_size");

  json b7 = rwkv_test_v7_config();
  b7["head_dim"] = 100;
  CHECK(test::pointer_of([&] { (void)test::spec(b7); }) == "/head_dim");
  b7 = rwkv_test_v7_config();
  b7["a_low_rank_dim"] = -1;
  CHECK(test::pointer_of([&] { (void)test::spec(b7); }) == "/a_low_rank_dim");
  b7 = rwkv_test_v7_config();
  b7["value_dim"] = 5120;
  CHECK(test::pointer_of([&] { (void)test::spec(b7); }) == "/value_dim");
  b7 = rwkv_test_v7_config();
  b7["attn"] = json{{"layers", {1}}};
  CHECK(test::pointer_of([&] { (void)test::spec(b7); }) == "/attn");
  b7 = rwkv_test_v7_config();
  b7.erase("intermediate_size");
  b7["hidden_ratio"] = 0;
  CHECK(test::pointer_of([&] { (void)test::spec(b7); }) == "/hidden_ratio");
  b7 = rwkv_test_v7_config();
  b7.erase("head_dim");
  b7["num_heads"] = 0;
  CHECK(test::pointer_of([&] { (void)test::spec(b7); }) == "/num_heads");
}
