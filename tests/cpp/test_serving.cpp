// Serving throughput under continuous batching.
#include <catch2/catch.hpp>
#include <cmath>

#include "flopcast/serving/serving.hpp"
#include "helpers.hpp"

using flopcast::serve;
using flopcast::serving_settings;

TEST_CASE("the KV budget sets the concurrency") {
  const auto& m = test::model("meta-llama/Meta-Llama-3-8B");
  const auto& a100 = flopcast::find_gpu("A100");
  serving_settings s;
  s.prompt_tokens = 512;
  s.output_tokens = 256;
  s.paged = false;
  const auto r = serve(m, s, a100);
  // 128 KiB per token (2 x 32 layers x 8 heads x 128 x 2 bytes) x 768 tokens.
  CHECK(r.kv_bytes_per_sequence == 768.0 * 131072);
  flopcast::settings one;
  one.sequence_length = 512;
  one.num_generated_tokens = 256;
  const auto e = flopcast::estimate(m, one, &a100);
  // The one fit rule: each sequence holds its cache and its share of the batch's activations.
  const double budget = a100.memory_bytes * 0.9 - e.memory.weights;
  CHECK(r.kv_budget_bytes == Approx(budget).epsilon(1e-12));
  CHECK(r.activation_bytes_per_sequence == e.memory.activations);
  const auto most = static_cast<std::int64_t>(std::floor(budget / (768.0 * 131072 + e.memory.activations)));
  CHECK(r.max_concurrency == most);
  // ... which is where estimate() at that batch stops fitting.
  one.batch_size = most;
  CHECK(flopcast::estimate(m, one, &a100).memory.fits_on_gpu);
  one.batch_size = most + 1;
  CHECK_FALSE(flopcast::estimate(m, one, &a100).memory.fits_on_gpu);
  // More concurrency than fits: not "fits", the figures at the most that do.
  s.concurrency = most + 5;
  const auto over = serve(m, s, a100);
  CHECK_FALSE(over.fits);
  CHECK(over.concurrency_capped);
  CHECK(over.concurrency == most);
  s.concurrency.reset();
  // Paged blocks round each sequence up to whole blocks.
  s.paged = true;
  s.block_size = 500;
  CHECK(serve(m, s, a100).kv_bytes_per_sequence == 1000.0 * 131072);
}

TEST_CASE("throughput, TTFT, TPOT and cost are consistent") {
  const auto& m = test::model("meta-llama/Meta-Llama-3-8B");
  const auto& h100 = flopcast::find_gpu("H100");
  serving_settings s;
  s.concurrency = 32;
  const auto r = serve(m, s, h100);
  CHECK(r.concurrency == 32);
  CHECK(r.output_tokens_per_second == Approx(32.0 * 256 / r.cycle_s));
  CHECK(r.requests_per_second == Approx(32.0 / r.cycle_s));
  CHECK(r.tpot_s == Approx(r.cycle_s / 256));
  CHECK(r.cost_per_1m_output_tokens_usd == Approx(h100.cost_per_hour_usd / 3600 / r.output_tokens_per_second * 1e6));
  CHECK(r.output_tokens_per_second_range.low <= r.output_tokens_per_second);
  CHECK(r.output_tokens_per_second <= r.output_tokens_per_second_range.high);
  // More concurrency: more tokens/s, slower tokens for each sequence.
  s.concurrency = 128;
  const auto busy = serve(m, s, h100);
  CHECK(busy.output_tokens_per_second > r.output_tokens_per_second);
  CHECK(busy.tpot_s > r.tpot_s);
  // Chunked prefill removes the prefill stalls from TPOT at the same load.
  s.chunked_prefill_tokens = 256;
  const auto chunked = serve(m, s, h100);
  CHECK(chunked.tpot_s < busy.tpot_s);
}

TEST_CASE("speculative decoding: expected tokens per step (Leviathan et al. 2023)") {
  const auto& target = test::model("meta-llama/Meta-Llama-3-8B");
  const auto& draft = test::model("meta-llama/Llama-3.2-1B");
  serving_settings s;
  s.concurrency = 4;
  s.draft = &draft;
  s.speculative_tokens = 4;
  s.acceptance_rate = 0.8;
  const auto r = serve(target, s, flopcast::find_gpu("H100"));
  CHECK(r.expected_tokens_per_step == Approx((1 - std::pow(0.8, 5)) / 0.2));
  CHECK(r.speedup > 1);
  s.acceptance_rate = 0.0;  // every draft rejected: slower than plain decoding
  CHECK(serve(target, s, flopcast::find_gpu("H100")).speedup < 1);
}

TEST_CASE("a model that does not fit serves nothing, bad settings are named") {
  const auto& big = test::model("meta-llama/Llama-2-70b-hf");
  serving_settings s;
  s.base.weight_precision = flopcast::precision::fp16;
  const auto r = serve(big, s, flopcast::find_gpu("A100"));
  CHECK_FALSE(r.fits);
  CHECK(r.max_concurrency == 0);
  s.base.parallel.tensor_parallel = 4;
  CHECK(serve(big, s, flopcast::find_gpu("A100")).fits);
  s.output_tokens = 0;
  CHECK_THROWS_WITH(
      serve(big, s, flopcast::find_gpu("A100")),
      "[flopcast.config.range] (/serving/output_tokens) expected a positive integer (at most 2^30), but got 0");
  CHECK_THROWS_WITH(serve(test::model("bert-base"), serving_settings{}, flopcast::find_gpu("A100")),
                    Catch::Contains("encoder-only"));
}
