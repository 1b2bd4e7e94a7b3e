// Expert parallelism and attention data parallelism in the step model and the simulator
// (core/src/serving/step_model_ep.cpp, attention_dp.cpp; README "Expert and attention-data
// parallelism"): all-to-all bytes and memory per rank against hand counts from DeepSeek-V3's
// published shapes, the feature-off path unchanged, invariants, and the errors.
//
// DeepSeek-V3 / R1 shapes (huggingface.co/deepseek-ai/DeepSeek-V3/blob/main/config.json):
// hidden 7168, 61 layers of which the first 3 dense (first_k_dense_replace) and 58 MoE, 256
// routed experts of moe_intermediate 2048, top-8, one shared expert, dense intermediate 18432,
// vocab 129280 (untied), 128 heads, MLA q_lora 1536, kv_lora 512, rope 64, nope 128, v 128.
#include <catch2/catch.hpp>
#include <cmath>
#include <string>

#include "flopcast/serving/simulator.hpp"
#include "helpers.hpp"

using flopcast::arrival_kind;
using flopcast::simulate;
using flopcast::simulation_settings;
using flopcast::step_model;

namespace {

// Relative closeness (Catch's Approx with a relative margin).
bool close_expert_parallel(double a, double b, double rel) { return a == Approx(b).epsilon(rel); }

// Throws a flopcast::error naming `pointer`.
#define CHECK_FIELD(expr, ptr)                                      \
  CHECK_THROWS_MATCHES(expr, flopcast::error,                       \
                       Catch::Matchers::Predicate<flopcast::error>( \
                           [](const flopcast::error& e) { return e.pointer() == std::string(ptr); }, ptr))

flopcast::settings layout(std::int64_t tp, std::int64_t ep, std::int64_t adp, double imbalance = 1.0) {
  flopcast::settings s;
  s.parallel.tensor_parallel = tp;
  s.parallel.expert_parallel = ep;
  s.parallel.attention_data_parallel = adp;
  s.parallel.expert_imbalance = imbalance;
  return s;
}

// Routed expert parameters of DeepSeek-V3: 58 layers x 256 experts x 3 x 7168 x 2048.
constexpr double routed_params = 58.0 * 256 * 3 * 7168 * 2048;  // 653,908,770,816
// Everything else (the parameters each attention rank holds whole at tp 1):
//   attention per layer: q_a 7168x1536 + norm 1536, q_b 1536x(128x192), kv_a 7168x(512+64) +
//     norm 512, kv_b 512x(128x(128+128)), o (128x128)x7168 = 187,107,328; x 61
//   norms 2 x 7168 per layer x 61; final norm 7168
//   dense MLP 3 x (3 x 7168 x 18432); shared expert 58 x 3 x 7168 x 2048
//   router 58 x (256 x 7168 + 256 bias); embedding and head 2 x 129280 x 7168
constexpr double other_params = 61.0 * (187107328 + 2 * 7168) + 7168 + 3.0 * 3 * 7168 * 18432 + 58.0 * 3 * 7168 * 2048 +
                                58.0 * (256 * 7168 + 256) + 2.0 * 129280 * 7168;
// = 17,117,648,384; with routed_params 671,026,419,200 (the published 671B).

}  // namespace

TEST_CASE("[ep] the model's published shapes", "[ep]") {
  const auto& m = test::model("deepseek-v3");
  CHECK(m.hidden_size == 7168);
  CHECK(m.moe.num_experts == 256);
  CHECK(m.moe.experts_per_token == 8);
  double moe_layers = 0;
  for (const auto& g : m.groups)
    if (g.moe && g.mlp) moe_layers += static_cast<double>(g.count);
  CHECK(moe_layers == 58);
  const auto r = flopcast::estimate(m, flopcast::settings{}, nullptr);
  CHECK(static_cast<double>(r.parameters.total) == other_params + routed_params);
}

TEST_CASE("[ep] all-to-all bytes per step equal a hand count", "[ep]") {
  const auto& m = test::model("deepseek-v3");
  const auto& gpu = flopcast::find_gpu("H100");
  const double T = 64;  // decode tokens of one attention rank
  // Dispatch and combine per MoE layer, each T x top-k x hidden x bf16 bytes x (ep-1)/ep:
  //   ep 8:  2 x 58 x 64 x 8 x 7168 x 2 = 851,443,712; x 7/8   = 745,013,248 bytes
  //   ep 32:                               851,443,712; x 31/32 = 824,836,096 bytes
  const double ep8 = 2.0 * 58 * 64 * 8 * 7168 * 2 * 7 / 8;
  const double ep32 = 2.0 * 58 * 64 * 8 * 7168 * 2 * 31 / 32;
  CHECK(ep8 == 745013248.0);
  CHECK(ep32 == 824836096.0);
  {
    const step_model sm(m, layout(1, 8, 8), gpu);
    const auto st = sm.decode_step(64, 1000);
    CHECK(close_expert_parallel(st.alltoall_bytes, ep8, 1e-12));
    CHECK(close_expert_parallel(sm.alltoall_bytes(T), ep8, 1e-12));
    // Within the 8-GPU NVLink domain: half the listed both-ways NVLink bandwidth, plus 2 x 58 x
    // (ep - 1) link latencies of 2 us.
    const double bw = gpu.interconnect_bandwidth_bytes_per_s / 2;
    CHECK(close_expert_parallel(st.alltoall_s, ep8 / bw + 2 * 58 * 7 * 2e-6, 1e-12));
    CHECK(close_expert_parallel(st.communication_s, st.alltoall_s, 1e-12));  // tp 1: no all-reduce
    CHECK(sm.experts_per_rank() == 32);                                      // 256 / 8
  }
  {
    // EP 32 spans four 8-GPU nodes: the scale-out rate, 50 GB/s per direction (parallel.cpp).
    REQUIRE(gpu.interconnect_domain_size == 8);
    const step_model sm(m, layout(1, 32, 32), gpu);
    const auto st = sm.decode_step(64, 1000);
    CHECK(close_expert_parallel(st.alltoall_bytes, ep32, 1e-12));
    CHECK(close_expert_parallel(st.alltoall_s, ep32 / 50e9 + 2 * 58 * 31 * 2e-6, 1e-12));
  }
  {
    // The busiest rank receives imbalance x the mean: the bytes counted stay, the time grows.
    const step_model sm(m, layout(1, 8, 8, 1.5), gpu);
    const auto st = sm.decode_step(64, 1000);
    CHECK(close_expert_parallel(st.alltoall_bytes, ep8, 1e-12));
    CHECK(close_expert_parallel(st.alltoall_s,
                                1.5 * ep8 / (gpu.interconnect_bandwidth_bytes_per_s / 2) + 2 * 58 * 7 * 2e-6, 1e-12));
  }
}

TEST_CASE("[ep] an attention-DP x EP layout's memory per rank equals a hand count", "[ep]") {
  const auto& m = test::model("deepseek-v3");
  const auto& gpu = flopcast::find_gpu("H200");
  // bf16 weights (2 bytes each), tp 1, ep 8, attention DP 8 (8 GPUs): each GPU holds the
  // non-routed parameters whole and 256 / 8 = 32 experts per MoE layer:
  //   (17,117,648,384 + 653,908,770,816 / 8) x 2 = 197,712,489,472 bytes.
  const double weights = (other_params + routed_params / 8) * 2;
  CHECK(weights == 197712489472.0);
  flopcast::settings s = layout(1, 8, 8);
  s.batch_size = 64;
  s.sequence_length = 1000;
  s.num_generated_tokens = 24;
  const auto e = flopcast::estimate(m, s, &gpu);
  CHECK(close_expert_parallel(e.parallel.weights_per_gpu, weights, 1e-12));
  CHECK(e.parallel.total_gpus == 8);
  // KV per token (MLA, bf16 cache): (512 latent + 64 rope) x 61 layers x 2 bytes = 70,272 bytes;
  // each rank caches its own 64 / 8 = 8 sequences of 1000 + 24 tokens: 8 x 1024 x 70,272.
  const step_model sm(m, s, gpu);
  CHECK(close_expert_parallel(sm.kv_bytes_per_token(), 70272.0, 1e-12));
  CHECK(close_expert_parallel(sm.weights_per_gpu(), weights, 1e-12));
  CHECK(close_expert_parallel(e.parallel.kv_cache_per_gpu, 8.0 * 1024 * 70272, 1e-12));
  // Without attention DP every EP rank holds the whole batch's cache (8x), the same weights.
  flopcast::settings one = s;
  one.parallel.attention_data_parallel = 1;
  const auto e1 = flopcast::estimate(m, one, &gpu);
  CHECK(close_expert_parallel(e1.parallel.kv_cache_per_gpu, 64.0 * 1024 * 70272, 1e-12));
  CHECK(close_expert_parallel(e1.parallel.weights_per_gpu, weights, 1e-12));
}

TEST_CASE("[ep] ep 1 and attention DP 1 give today's step times", "[ep]") {
  // The layout fields at their defaults, set explicitly, against estimate()'s decode step and
  // prefill (which the plain step model already equals: test_simulator.cpp).
  const auto& gpu = flopcast::find_gpu("H100");
  for (const char* name : {"mixtral-8x7b", "deepseek-v2-lite", "gpt-oss-20b"}) {
    const auto& m = test::model(name);
    const step_model sm(m, layout(1, 1, 1, 1.0), gpu);
    for (const std::int64_t B : {1, 64}) {
      flopcast::settings s = layout(1, 1, 1, 1.0);
      s.batch_size = B;
      s.sequence_length = 2000;
      s.num_generated_tokens = 2;
      const auto e = flopcast::estimate(m, s, &gpu);
      INFO(name << " B=" << B);
      CHECK(close_expert_parallel(sm.decode_step(B, 2000).total_s, e.perf.decode_first_step_s, 1e-9));
      CHECK(sm.decode_step(B, 2000).alltoall_bytes == 0);
    }
  }
}

TEST_CASE("[ep] the EP step: FLOPs per rank and invariants", "[ep]") {
  const auto& m = test::model("deepseek-v3");
  const auto& gpu = flopcast::find_gpu("H200");
  const step_model plain(m, layout(1, 1, 1), gpu);
  // Attention DP = EP = N, uniform routing: the N ranks' tokens spread over N ranks, so each rank
  // computes as many token-expert pairs as its own tokens have: the plain step's FLOPs.
  for (const std::int64_t n : {2, 8, 32}) {
    const step_model sm(m, layout(1, n, n), gpu);
    INFO("ep " << n);
    CHECK(close_expert_parallel(sm.decode_step(16, 3000).flops, plain.decode_step(16, 3000).flops, 1e-9));
    CHECK(close_expert_parallel(sm.prefill(2048).flops, plain.prefill(2048).flops, 1e-9));
  }
  // More EP ranks: fewer expert weights per GPU and fewer bytes read per step.
  double last_weights = plain.weights_per_gpu(), last_bytes = plain.decode_step(4, 1000).bytes;
  for (const std::int64_t n : {2, 4, 8, 16, 32, 64}) {
    const step_model sm(m, layout(1, n, n), gpu);
    INFO("ep " << n);
    CHECK(sm.weights_per_gpu() < last_weights);
    CHECK(sm.decode_step(4, 1000).bytes < last_bytes);
    last_weights = sm.weights_per_gpu();
    last_bytes = sm.decode_step(4, 1000).bytes;
  }
  // Routing imbalance slows the busiest rank; with ep fixed, attention DP sends more tokens to a
  // rank's experts (more FLOPs) than a shared batch.
  const step_model even(m, layout(1, 8, 8, 1.0), gpu), skewed(m, layout(1, 8, 8, 2.0), gpu);
  CHECK(skewed.decode_step(128, 1000).total_s > even.decode_step(128, 1000).total_s);
  CHECK(skewed.decode_step(128, 1000).flops > even.decode_step(128, 1000).flops);
  const step_model shared(m, layout(1, 8, 1), gpu);
  CHECK(even.decode_step(128, 1000).flops > shared.decode_step(128, 1000).flops);
}

TEST_CASE("[ep] simulator with attention DP: one rank's share, replica's rates, Little's law", "[ep]") {
  const auto& m = test::model("deepseek-v3");
  const auto& gpu = flopcast::find_gpu("B200");
  simulation_settings s;
  s.base = layout(1, 8, 8);
  s.base.weight_precision = flopcast::precision::fp8;
  s.arrivals = arrival_kind::closed_loop;
  s.clients = 64;
  s.num_requests = 256;
  s.input_tokens = {1024, 1024};
  s.output_tokens = {128, 128};
  const auto r = simulate(m, s, gpu);
  CHECK(r.attention_ranks == 8);
  CHECK(r.requests == 256);  // 32 per rank x 8
  CHECK(r.mean_running <= 64 + 1e-9);
  CHECK(r.alltoall_bytes > 0);
  CHECK(r.communication_s > 0);
  // Little's law over the whole run (the replica: L = lambda W).
  CHECK(close_expert_parallel(r.mean_in_system, r.arrival_rate_all * r.mean_latency_all_s, 1e-6));
  const auto twice = simulate(m, s, gpu);
  CHECK(twice.ttft.mean == r.ttft.mean);  // deterministic
  // Errors name the field.
  simulation_settings few = s;
  few.clients = 4;
  CHECK_FIELD((void)simulate(m, few, gpu), "/simulation/clients");
}

TEST_CASE("[ep] invalid layouts name the field", "[ep]") {
  const auto& m = test::model("deepseek-v3");
  const auto& gpu = flopcast::find_gpu("H200");
  CHECK_FIELD((void)flopcast::estimate(m, layout(1, 8, 3), &gpu), "/parallelism/attention_data_parallel");
  CHECK_FIELD((void)flopcast::estimate(m, layout(1, 8, 16), &gpu), "/parallelism/attention_data_parallel");
  CHECK_FIELD((void)flopcast::estimate(m, layout(1, 8, 8, 0.5), &gpu), "/parallelism/expert_imbalance");
  CHECK_FIELD((void)flopcast::estimate(m, layout(1, 8, 8, 9), &gpu), "/parallelism/expert_imbalance");
  const auto& dense = test::model("llama-3-8b");
  CHECK_FIELD((void)flopcast::estimate(dense, layout(1, 1, 2), &gpu), "/parallelism/attention_data_parallel");
  CHECK_FIELD((void)step_model(dense, layout(1, 2, 2), gpu), "/parallelism/expert_parallel");
}
