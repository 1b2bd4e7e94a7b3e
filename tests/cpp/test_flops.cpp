// FLOP counts: reference values and properties.
#include <catch2/catch.hpp>
#include <cmath>

#include "helpers.hpp"

using flopcast::forward_flops;

TEST_CASE("calflops: Llama-2-7B forward, 1 x 128, full attention, within 0.1%") {
  const auto f = forward_flops(test::model("meta-llama/Llama-2-7b-hf"), 1, 128, false);
  CHECK(f.parts.embedding == 0);  // the lookup is not counted
  CHECK(std::fabs(f.parts.total - 1700.06e9) / 1700.06e9 < 0.001);
}

TEST_CASE("matmul FLOPs are exactly 2 per multiply-add") {
  const auto& m = test::model("meta-llama/Llama-2-7b-hf");
  const auto f = forward_flops(m, 1, 128, false);
  // Q, K, V, O: 4 x 4096^2 weights; scores and scores x V: 2 x 128^2 x 4096 each.
  CHECK(f.attention.qkv_projection == 2.0 * 128 * 32 * 3 * 4096.0 * 4096);
  CHECK(f.attention.output_projection == 2.0 * 128 * 32 * 4096.0 * 4096);
  CHECK(f.attention.attention_scores == 2.0 * 128 * 128 * 4096 * 32);
  CHECK(f.attention.attention_values == 2.0 * 128 * 128 * 4096 * 32);
  CHECK(f.parts.output_head == 2.0 * 128 * 4096 * 32000);
  const double attn = f.attention.qkv_projection + f.attention.rotary + f.attention.attention_scores +
                      f.attention.softmax + f.attention.attention_values + f.attention.output_projection;
  CHECK(attn == f.parts.attention);
}

TEST_CASE("forward FLOPs approach 2 x non-embedding parameters x tokens at short context") {
  for (const char* name : {"meta-llama/Meta-Llama-3-8B", "mistralai/Mistral-7B-v0.1", "gpt2"}) {
    const auto& m = test::model(name);
    const auto p = flopcast::count_parameters(m);
    const double tokens = 16;
    const double n =
        static_cast<double>(p.total - p.embedding + (m.tie_word_embeddings ? m.vocab_size * m.hidden_size : 0));
    const double f = forward_flops(m, 1, 16, true).parts.total;
    INFO(name << ": " << f << " vs " << 2 * n * tokens);
    CHECK(f >= 2 * n * tokens * 0.999);
    CHECK(f <= 2 * n * tokens * 1.02);
  }
}

TEST_CASE("FLOPs are linear in batch and increase with sequence") {
  const auto& m = test::model("meta-llama/Meta-Llama-3-8B");
  const double one = forward_flops(m, 1, 1024, false).parts.total;
  CHECK(forward_flops(m, 8, 1024, false).parts.total == 8 * one);
  double prev = 0;
  for (int s : {1, 2, 64, 512, 513, 4096, 32768}) {
    const double f = forward_flops(m, 1, s, true).parts.total;
    CHECK(f > prev);
    prev = f;
  }
}

TEST_CASE("causal counts the lower triangle, full counts the square") {
  const auto& m = test::model("meta-llama/Llama-2-7b-hf");
  const auto full = forward_flops(m, 1, 1000, false), causal = forward_flops(m, 1, 1000, true);
  CHECK(causal.attention.attention_scores / full.attention.attention_scores ==
        Approx(1000.0 * 1001 / 2 / 1e6).epsilon(1e-12));
  CHECK(causal.attention.qkv_projection == full.attention.qkv_projection);
}

TEST_CASE("sliding window bands causal attention") {
  const auto& m = test::model("mistralai/Mistral-7B-v0.1");  // window 4096
  const double at8k = forward_flops(m, 1, 8192, true).attention.attention_scores;
  // pairs: 4096 x 4097 / 2 + 4096 x 4096
  const double pairs = 4096.0 * 4097 / 2 + 4096.0 * 4096;
  CHECK(at8k == 2.0 * pairs * 32 * 128 * 32);
}

TEST_CASE("MoE FLOPs follow the active path") {
  const auto& mix = test::model("mistralai/Mixtral-8x7B-v0.1");
  const auto f = forward_flops(mix, 1, 1, false);
  // One token: 2 of 8 experts, each 6 h I + 2 I, plus router 2 h E + 5 E and combine 2 k h.
  const double expert = 6.0 * 4096 * 14336 + 2.0 * 14336;
  CHECK(f.parts.mlp == 32 * (2 * expert + 2.0 * 4096 * 8 + 5.0 * 8 + 2.0 * 2 * 4096));
}

TEST_CASE("counts beyond 2^63 stay correct") {
  const auto& m = test::model("meta-llama/Llama-3.1-405B");
  const double one = forward_flops(m, 1, 1 << 20, true).parts.total;
  const double many = forward_flops(m, 64, 1 << 20, true).parts.total;
  CHECK(many > 9.3e18);  // past 2^63
  CHECK(std::isfinite(many));
  CHECK(many == Approx(64 * one).epsilon(1e-12));
  flopcast::settings s;
  s.batch_size = 64;
  s.sequence_length = 1 << 20;
  const auto r = flopcast::estimate(m, s, &flopcast::find_gpu("H100"));
  CHECK(std::isfinite(r.perf.total_request_latency_s));
  CHECK(r.memory.kv_cache > 0);
}

TEST_CASE("decode step attends to the cache: FLOPs grow with context by the per-key cost") {
  const auto& m = test::model("meta-llama/Meta-Llama-3-8B");
  flopcast::settings s;
  s.sequence_length = 1000;
  const auto a = flopcast::estimate(m, s, nullptr);
  s.sequence_length = 1001;
  const auto b = flopcast::estimate(m, s, nullptr);
  // one more key: 32 layers x 32 heads x (2 x 128 scores + 5 softmax + 2 x 128 values)
  CHECK(b.decode_step.parts.total - a.decode_step.parts.total == 32.0 * 32 * (2 * 128 + 5 + 2 * 128));
}
