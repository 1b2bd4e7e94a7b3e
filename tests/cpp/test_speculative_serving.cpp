// Speculative decoding in the serving simulator, the benchmark harnesses' conventions and the
// client term, and the SGLang memory split for hybrid (recurrent-state) models.
#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "flopcast/serving/engine.hpp"
#include "flopcast/serving/harness.hpp"
#include "flopcast/serving/serving.hpp"
#include "flopcast/serving/simulator.hpp"
#include "flopcast/serving/speculative.hpp"
#include "helpers.hpp"

using flopcast::arrival_kind;
using flopcast::simulate;
using flopcast::simulation_settings;
using flopcast::speculative_method;
using flopcast::step_model;

namespace {

bool close_speculative_serving(double a, double b, double rel) {
  return std::abs(a - b) <= rel * std::max(std::abs(a), std::abs(b));
}

simulation_settings batch_of(std::int64_t n, std::int64_t input, std::int64_t output) {
  simulation_settings s;
  s.arrivals = arrival_kind::batch;
  s.num_requests = n;
  s.input_tokens = {input, input};
  s.output_tokens = {output, output};
  s.keep_requests = true;
  return s;
}

simulation_settings speculating(simulation_settings s, speculative_method m, std::int64_t k, double a) {
  s.speculative.method = m;
  s.speculative.tokens = k;
  s.speculative.acceptance = {a};
  return s;
}

}  // namespace

TEST_CASE("expected tokens per verification: 1 + sum of cumulative acceptance products", "[spec_serving]") {
  // One rate a = 0.5, k = 3: 1 + 0.5 + 0.25 + 0.125 = 1.875.
  CHECK(flopcast::expected_tokens_per_step(3, {0.5}) == Approx(1.875).epsilon(1e-15));
  // Per position 0.8, 0.5 (the last repeats), k = 3: 1 + 0.8 + 0.4 + 0.2 = 2.4.
  CHECK(flopcast::expected_tokens_per_step(3, {0.8, 0.5}) == Approx(2.4).epsilon(1e-15));
  CHECK(flopcast::expected_tokens_per_step(4, {1.0}) == 5.0);
  CHECK(flopcast::expected_tokens_per_step(4, {0.0}) == 1.0);
  // The closed form (serve) uses the same formula: (1 - a^(k+1)) / (1 - a) at a = 0.7, k = 4.
  flopcast::serving_settings ss;
  ss.draft = &test::model("llama-3.2-1b");
  ss.concurrency = 4;
  const auto r = flopcast::serve(test::model("llama-3-8b"), ss, flopcast::find_gpu("H100"));
  CHECK(r.expected_tokens_per_step == Approx((1 - std::pow(0.7, 5)) / 0.3).epsilon(1e-12));
}

TEST_CASE("speculation off: the makespan is the step model's prefill plus its decode steps", "[spec_serving]") {
  // One request of 100 + 20 tokens alone: one prefill step, then 19 decode steps at contexts
  // 100 .. 118 (the feature-off path, to 1e-9).
  const auto& m = test::model("llama-3-8b");
  const auto& gpu = flopcast::find_gpu("H100");
  const simulation_settings s = batch_of(1, 100, 20);
  const step_model sm(m, s.base, gpu);
  double expect = sm.prefill(100).total_s;
  for (std::int64_t c = 100; c <= 118; ++c) expect += sm.decode_step(1, c).total_s;
  const auto r = simulate(m, s, gpu);
  CHECK(r.steps == 20);
  CHECK(std::abs(r.makespan_s - expect) <= 1e-9 * expect);
  CHECK(r.tokens_per_decode_step == 0);
  CHECK(r.speculative.method == speculative_method::off);
}

TEST_CASE("acceptance 1 emits k + 1 tokens per step; acceptance 0 costs more than no speculation", "[spec_serving]") {
  const auto& m = test::model("llama-3-8b");
  const auto& gpu = flopcast::find_gpu("H100");
  for (const speculative_method method :
       {speculative_method::mtp, speculative_method::eagle3, speculative_method::draft_model}) {
    for (const std::int64_t k : {1, 3, 4}) {
      CAPTURE(flopcast::to_string(method), k);
      simulation_settings base = batch_of(1, 64, 23);
      base.speculative.draft = &test::model("llama-3.2-1b");
      // One request of 23 output tokens: 1 prefill step (the first token), then
      // ceil(22 / (k + 1)) verifications: k = 1 -> 11, k = 3 -> 6, k = 4 -> 5.
      const std::int64_t verifications = (22 + k) / (k + 1);
      const auto one = simulate(m, speculating(base, method, k, 1.0), gpu);
      CHECK(one.steps == 1 + verifications);
      CHECK(one.requests_detail.at(0).emitted_tokens == 23);
      // 4 requests of 1 + 4 (k + 1) tokens: every verification emits exactly k + 1.
      simulation_settings four = batch_of(4, 64, 1 + 4 * (k + 1));
      four.speculative.draft = base.speculative.draft;
      const auto r1 = simulate(m, speculating(four, method, k, 1.0), gpu);
      CHECK(r1.tokens_per_decode_step == static_cast<double>(k + 1));
      CHECK(r1.expected_tokens_per_step == static_cast<double>(k + 1));
      // Acceptance 0: the same steps as without speculation, each dearer (verification of k + 1
      // tokens and the proposer's passes): a higher TPOT.
      const auto off = simulate(m, four, gpu);
      const auto r0 = simulate(m, speculating(four, method, k, 0.0), gpu);
      CHECK(r0.steps == off.steps);
      CHECK(r0.tokens_per_decode_step == 1.0);
      CHECK(r0.tpot.mean > off.tpot.mean);
      CHECK(r0.makespan_s > off.makespan_s);
    }
  }
}

TEST_CASE("speculation conserves tokens and keeps Little's law", "[spec_serving]") {
  const auto& m = test::model("qwen3-30b-a3b");
  const auto& gpu = flopcast::find_gpu("H100");
  simulation_settings s;
  s.arrivals = arrival_kind::poisson;
  s.rate_per_s = 20;
  s.num_requests = 300;
  s.input_tokens = {100, 900};
  s.output_tokens = {20, 300};
  s.keep_requests = true;
  s.seed = 7;
  s.speculative.method = speculative_method::mtp;
  s.speculative.tokens = 3;
  s.speculative.acceptance = {0.9, 0.7, 0.5};
  const auto r = simulate(m, s, gpu);
  std::int64_t asked = 0, emitted = 0;
  for (const auto& q : r.requests_detail) {
    asked += q.output_tokens;
    emitted += q.emitted_tokens;
    CHECK(q.emitted_tokens == q.output_tokens);
    CHECK(q.finish_s >= q.first_token_s);
  }
  CHECK(emitted == asked);
  // 1 + 0.9 + 0.63 + 0.315 = 2.845 expected per verification; the measured mean is below it only
  // where a request's last verification is cut at its length.
  CHECK(r.expected_tokens_per_step == Approx(2.845).epsilon(1e-12));
  CHECK(r.tokens_per_decode_step > 2.5);
  CHECK(r.tokens_per_decode_step <= 2.845 + 1e-9);
  // Little's law over the whole run: L = lambda W.
  CHECK(close_speculative_serving(r.mean_in_system, r.arrival_rate_all * r.mean_latency_all_s, 1e-9));
  // Deterministic: the same seed, the same result.
  CHECK(simulate(m, s, gpu).makespan_s == r.makespan_s);
}

TEST_CASE("speculative settings: defaults and errors", "[spec_serving]") {
  flopcast::speculative_settings s;
  s.method = speculative_method::mtp;
  const auto mtp = flopcast::resolve_speculative(s);
  CHECK(mtp.tokens == 1);                              // DeepSeek-V3's one MTP module
  CHECK(mtp.acceptance == std::vector<double>{0.85});  // DeepSeek-V3 report, 85-90%
  s.method = speculative_method::draft_model;
  try {
    (void)flopcast::resolve_speculative(s);
    FAIL("expected an error");
  } catch (const flopcast::error& e) {
    CHECK(e.pointer() == "/simulation/draft");
  }
  s.method = speculative_method::eagle3;
  s.acceptance = {0.5, 1.5};
  try {
    (void)flopcast::resolve_speculative(s);
    FAIL("expected an error");
  } catch (const flopcast::error& e) {
    CHECK(e.pointer() == "/simulation/acceptance_rate/1");
  }
}

TEST_CASE("harness conventions on hand-built client records", "[spec_serving]") {
  // Request 1: sent at 0, chunks at 0.1, 0.2, 0.4 of one token each: TTFT 0.1, latency 0.4,
  //   TPOT (0.4 - 0.1) / 2 = 0.15, gaps 0.1 and 0.2.
  // Request 2: sent at 1.0, chunks at 1.3 (1 token) and 1.35 (3 tokens): TTFT 0.3, latency 0.35,
  //   TPOT 0.05 / 3, gap 0.05.
  const std::vector<flopcast::client_record> recs = {{0.0, {0.1, 0.2, 0.4}, {1, 1, 1}}, {1.0, {1.3, 1.35}, {1, 3}}};
  const double tpot = (0.15 + 0.05 / 3) / 2, gaps = (0.1 + 0.2 + 0.05) / 3;
  for (const auto& h : flopcast::harness_profiles()) {
    CAPTURE(h.id);
    const auto m = flopcast::apply_harness(h, recs, 0.0);
    CHECK(m.requests == 2);
    CHECK(m.ttft_mean_s == Approx(0.2).epsilon(1e-12));
    CHECK(m.e2e_mean_s == Approx(0.375).epsilon(1e-12));
    CHECK(m.tpot_mean_s == Approx(tpot).epsilon(1e-12));
    // vLLM, SGLang, inference-perf pool every chunk gap; aiperf and trtllm-bench average each
    // request's mean gap (their ITL is vLLM's TPOT).
    const bool pooled = h.id == "vllm" || h.id == "sglang" || h.id == "inference-perf";
    CHECK(m.itl_mean_s == Approx(pooled ? gaps : tpot).epsilon(1e-12));
    // The client term adds exactly itself to TTFT and end-to-end latency, nothing to TPOT or ITL.
    const auto c = flopcast::apply_harness(h, recs, h.client_overhead_s);
    CHECK(c.ttft_mean_s - m.ttft_mean_s == Approx(h.client_overhead_s).epsilon(1e-12));
    CHECK(c.e2e_mean_s - m.e2e_mean_s == Approx(h.client_overhead_s).epsilon(1e-12));
    CHECK(c.tpot_mean_s == m.tpot_mean_s);
    CHECK(c.itl_mean_s == m.itl_mean_s);
  }
  CHECK_THROWS_AS(flopcast::find_harness("locust"), flopcast::error);
  CHECK(flopcast::find_harness("vLLM").id == "vllm");
}

TEST_CASE("harness on a simulation: the client term adds exactly its default", "[spec_serving]") {
  const auto& m = test::model("llama-3-8b");
  const auto& gpu = flopcast::find_gpu("H100");
  simulation_settings s = batch_of(8, 256, 64);
  const auto r = simulate(m, s, gpu);
  const auto& h = flopcast::find_harness("aiperf");
  const auto hm = flopcast::apply_harness(h, r, h.client_overhead_s);
  CHECK(hm.ttft_mean_s == r.ttft.mean + h.client_overhead_s);
  CHECK(hm.e2e_mean_s == r.e2e.mean + h.client_overhead_s);
  CHECK(hm.tpot_mean_s == r.tpot.mean);
  CHECK(hm.itl_mean_s == r.tpot.mean);  // aiperf: ITL per request
  CHECK(flopcast::apply_harness(flopcast::find_harness("vllm"), r, 0.0).itl_mean_s == r.itl.mean);
}

TEST_CASE("data/harnesses.json and the code's table agree", "[spec_serving]") {
  const test::json d = test::json::parse(test::read_text("data/harnesses.json"));
  const auto& table = flopcast::harness_profiles();
  REQUIRE(d.at("harnesses").size() == table.size());
  CHECK(d.at("default") == "none");
  for (std::size_t i = 0; i < table.size(); ++i) {
    const auto& j = d.at("harnesses").at(i);
    const auto& h = table[i];
    CAPTURE(h.id);
    CHECK(j.at("id") == h.id);
    CHECK(j.at("name") == h.name);
    CHECK(j.at("itl") == (h.itl == flopcast::itl_convention::chunk_gaps ? "chunk_gaps" : "request_mean"));
    CHECK(j.at("warmup_requests") == h.warmup_requests);
    CHECK(j.at("default_requests") == h.default_requests);
    CHECK(j.at("source").at("url") == h.source);
    CHECK(d.at("client_overhead_s").at("value").get<double>() == h.client_overhead_s);
  }
}

TEST_CASE("SGLang serves Qwen3.5-397B-A17B in FP8 at TP 8 on B200 with a KV pool", "[spec_serving]") {
  // The text config of Qwen/Qwen3.5-397B-A17B (60 layers, hidden 4096, 32 heads, 2 KV heads,
  // 512 experts top-10 + a shared expert, 3 Gated-DeltaNet layers per full-attention layer).
  test::json c = test::json::parse(test::read_text("data/models/qwen3-next-80b-a3b-instruct.json")).at("config");
  c["model_type"] = "qwen3_5_moe_text";
  c["hidden_size"] = 4096;
  c["num_hidden_layers"] = 60;
  c["num_attention_heads"] = 32;
  c["num_key_value_heads"] = 2;
  c["linear_num_value_heads"] = 64;
  c["moe_intermediate_size"] = 1024;
  c["shared_expert_intermediate_size"] = 1024;
  c["vocab_size"] = 248320;
  const flopcast::model_spec m = flopcast::read_hf_config(c.dump(), "qwen3.5-397b-a17b");
  const auto& gpu = flopcast::find_gpu("B200");
  simulation_settings s;
  s.base.weight_precision = flopcast::precision::fp8;
  s.base.parallel.tensor_parallel = 8;
  flopcast::apply_engine(flopcast::find_engine("sglang"), gpu, s);
  s.arrivals = arrival_kind::closed_loop;
  s.clients = 16;
  s.num_requests = 48;
  s.input_tokens = {1024, 1024};
  s.output_tokens = {128, 128};
  // Before: every one of the 10^6 "unbounded" running slots reserved a recurrent state, and the
  // simulator refused ("the weights ... leave no memory for the KV cache").
  const auto r = simulate(m, s, gpu);
  CHECK(r.measured_requests == 48);
  // SGLang splits what the weights leave: state pool / KV = 0.9, so the KV cache gets 1/1.9 of
  // it. A plausible pool: at least the 16 requests' 16 x 1151 tokens, and far below the 10^12
  // "unbounded" sentinel.
  CHECK(r.kv_blocks * r.block_size > 16 * 1151);
  CHECK(r.kv_blocks < (std::int64_t{1} << 40));
  const step_model sm(m, s.base, gpu);
  CHECK(sm.state_bytes_per_sequence() > 0);
  // The same split by hand: blocks x bytes per block = left / 1.9 (to the block's rounding).
  const double kv_bytes = static_cast<double>(r.kv_blocks) * sm.kv_bytes_per_token();
  simulation_settings vllm_like = s;
  vllm_like.state_memory_ratio = 0;
  vllm_like.max_num_seqs = 16;
  const auto rv = simulate(m, vllm_like, gpu);
  // vLLM-style reservation of 16 states leaves nearly everything to the KV cache: more than SGLang's
  // 1/1.9 share, less than twice it.
  const double kv_v = static_cast<double>(rv.kv_blocks) * sm.kv_bytes_per_token();
  CHECK(kv_v > kv_bytes);
  CHECK(kv_v < 2 * kv_bytes);
}
