// The serving simulator: the step-time model against estimate(), and the simulator's
// invariants (Little's law, token conservation, the closed form of a fixed batch, the token
// budget, preemption when the KV blocks run out, determinism, ordered statistics).
#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "flopcast/serving/serving.hpp"
#include "flopcast/serving/simulator.hpp"
#include "helpers.hpp"

using flopcast::arrival_kind;
using flopcast::batching_policy;
using flopcast::simulate;
using flopcast::simulation_settings;
using flopcast::step_model;

namespace {

bool close_simulator(double a, double b, double rel) { return test::close_to(a, b, rel); }
using test::pointer_of;

flopcast::settings decode_settings(std::int64_t batch, std::int64_t context) {
  flopcast::settings s;
  s.batch_size = batch;
  s.sequence_length = context;
  s.num_generated_tokens = 2;  // one decode step, at context = sequence_length
  return s;
}

}  // namespace

TEST_CASE("simulator step model: B decode sequences at context c take estimate's decode step") {
  // Dense, MoE (expected distinct experts), sliding windows, MLA (absorbed decode), MXFP4
  // experts beside bf16 attention, hybrid attention/state-space and linear-attention layers.
  for (const char* name : {"llama-3-8b", "mixtral-8x7b", "gemma-2-9b", "deepseek-v2-lite", "gpt-oss-20b", "jamba-v0.1",
                           "qwen3-next-80b-a3b-instruct", "falcon-mamba-7b"}) {
    const auto& m = test::model(name);
    const auto& gpu = flopcast::find_gpu("H100");
    for (const flopcast::precision p : {flopcast::precision::bf16, flopcast::precision::int4}) {
      flopcast::settings base;
      base.weight_precision = p;
      const step_model sm(m, base, gpu);
      for (const std::int64_t B : {1, 7, 64, 256})
        for (const std::int64_t c : {1, 100, 4095, 4096, 4097, 30000}) {
          flopcast::settings s = decode_settings(B, c);
          s.weight_precision = p;
          const auto e = flopcast::estimate(m, s, &gpu);
          const auto st = sm.decode_step(B, c);
          INFO(name << " " << flopcast::to_string(p) << " B=" << B << " c=" << c);
          CHECK(close_simulator(st.total_s, e.perf.decode_first_step_s, 1e-9));
          CHECK(close_simulator(st.flops, e.perf.decode_first_step_flops, 1e-9));
          CHECK(close_simulator(st.bytes, e.perf.decode_first_step_bytes, 1e-9));
        }
    }
  }
}

TEST_CASE("simulator step model: a step of whole prefills takes estimate's prefill") {
  for (const char* name : {"llama-3-8b", "mixtral-8x7b", "gemma-2-9b", "deepseek-v2-lite", "jamba-v0.1"}) {
    const auto& m = test::model(name);
    const auto& gpu = flopcast::find_gpu("A100");
    for (const bool causal : {false, true}) {
      flopcast::settings base;
      base.causal = causal;
      const step_model sm(m, base, gpu);
      for (const std::int64_t P : {1, 17, 512, 4096, 9000})
        for (const std::int64_t B : {1, 3}) {
          flopcast::settings s = base;
          s.batch_size = B;
          s.sequence_length = P;
          s.num_generated_tokens = 1;
          const auto e = flopcast::estimate(m, s, &gpu);
          step_model::batch b;
          for (std::int64_t i = 0; i < B; ++i) sm.add_prefill(b, 0, P, true);
          INFO(name << " causal=" << causal << " P=" << P << " B=" << B);
          CHECK(close_simulator(sm.time(b).total_s, e.perf.prefill_latency_s, 1e-9));
          CHECK(close_simulator(sm.time(b).flops, e.perf.prefill_flops, 1e-9));
          if (B == 1) CHECK(close_simulator(sm.prefill(P).total_s, e.perf.prefill_latency_s, 1e-9));
        }
    }
  }
}

TEST_CASE("simulator step model: tensor parallelism matches estimate's parallel decode and prefill") {
  const auto& m = test::model("llama-3-8b");
  const auto& gpu = flopcast::find_gpu("H100");
  // The plain roofline, and an engine's fixed costs: every rank pays those once per step (the
  // layout divides only compute, memory traffic and their time), in estimate() as in the step model.
  flopcast::step_costs engine;
  engine.per_step_s = 2e-3;
  engine.per_layer_s = 5e-5;
  for (const flopcast::step_costs& costs : {flopcast::step_costs{}, engine}) {
    flopcast::settings base;
    base.parallel.tensor_parallel = 4;
    base.costs = costs;
    const step_model sm(m, base, gpu);
    for (const std::int64_t B : {1, 32}) {
      flopcast::settings s = decode_settings(B, 2000);
      s.parallel.tensor_parallel = 4;
      s.costs = costs;
      const auto e = flopcast::estimate(m, s, &gpu);
      CHECK(close_simulator(sm.decode_step(B, 2000).total_s, e.parallel.decode_latency_per_token_s, 1e-9));
      CHECK(sm.decode_step(B, 2000).fixed_s == Approx(costs.per_step_s + 32 * costs.per_layer_s));
    }
    flopcast::settings one = decode_settings(1, 2000);
    one.parallel.tensor_parallel = 4;
    one.num_generated_tokens = 1;
    one.costs = costs;
    CHECK(close_simulator(sm.prefill(2000).total_s, flopcast::estimate(m, one, &gpu).parallel.prefill_latency_s, 1e-9));
  }
}

TEST_CASE("simulator step model: causal chunks of a prompt add up to its whole prefill") {
  for (const char* name : {"llama-3-8b", "gemma-2-9b", "deepseek-v2-lite"}) {
    const auto& m = test::model(name);
    flopcast::settings base;
    base.causal = true;
    const step_model sm(m, base, flopcast::find_gpu("H100"));
    step_model::batch whole, chunks;
    sm.add_prefill(whole, 0, 10000, true);
    for (std::int64_t c = 0; c < 10000; c += 768)
      sm.add_prefill(chunks, c, std::min<std::int64_t>(768, 10000 - c), c + 768 >= 10000);
    INFO(name);
    CHECK(close_simulator(chunks.flops, whole.flops, 1e-12));
    // The later chunks read the cached context: more bytes than the whole prefill.
    CHECK(chunks.bytes > whole.bytes);
  }
}

TEST_CASE("simulator step model: fixed costs and the GEMM curve match estimate() and default to the plain roofline") {
  const auto& m = test::model("llama-3-8b");
  const auto& gpu = flopcast::find_gpu("H100");
  const step_model plain(m, flopcast::settings{}, gpu);
  CHECK(plain.decode_step(8, 1000).fixed_s == 0);
  flopcast::settings s;
  s.costs.per_step_s = 1e-3;
  s.costs.per_sequence_s = 1e-5;
  s.costs.per_layer_s = 2e-6;
  s.costs.per_kernel_launch_s = 3e-6;
  s.costs.launches_per_layer = 10;
  const step_model fixed(m, s, gpu);
  CHECK(fixed.layers() == 32);
  const double extra = 1e-3 + 8 * 1e-5 + 32 * (2e-6 + 10 * 3e-6);
  CHECK(close_simulator(fixed.decode_step(8, 1000).total_s, plain.decode_step(8, 1000).total_s + extra, 1e-12));
  // The GEMM curve: at T tokens the compute time is the plain one x (T + half) / T.
  s.costs.gemm_half_tokens = 512;
  const step_model curved(m, s, gpu);
  CHECK(close_simulator(curved.prefill(2048).compute_s, plain.prefill(2048).compute_s * (2048.0 + 512) / 2048, 1e-12));
  // estimate() applies the same costs: its prefill is the step model's, its decode the mean of
  // the steps the step model times one by one.
  s.batch_size = 4;
  s.sequence_length = 1000;
  s.num_generated_tokens = 3;
  const flopcast::estimate_result r = flopcast::estimate(m, s, &gpu);
  flopcast::settings one = s;
  one.batch_size = 1;
  const step_model at(m, one, gpu);
  step_model::batch b;
  for (int i = 0; i < 4; ++i) at.add_prefill(b, 0, 1000, true);
  CHECK(close_simulator(r.perf.prefill_latency_s, at.time(b).total_s, 1e-9));
  const double mean_step = (at.decode_step(4, 1000).total_s + at.decode_step(4, 1001).total_s) / 2;
  CHECK(close_simulator(r.perf.decode_latency_per_token_s, mean_step, 1e-9));
  s.costs.per_step_s = -1;
  CHECK(pointer_of([&] { step_model bad(m, s, gpu); }) == "/costs/per_step_s");
  CHECK(pointer_of([&] { (void)flopcast::estimate(m, s, &gpu); }) == "/costs/per_step_s");
}

TEST_CASE("simulator: a fixed batch at t=0 without chunking is estimate's request latency") {
  const auto& m = test::model("llama-3-8b");
  const auto& gpu = flopcast::find_gpu("H100");
  for (const batching_policy policy : {batching_policy::prefill_first, batching_policy::mixed}) {
    simulation_settings s;
    s.arrivals = arrival_kind::batch;
    s.num_requests = 8;
    s.input_tokens = {512, 512};
    s.output_tokens = {64, 64};
    s.chunked_prefill = false;
    s.policy = policy;
    s.max_num_batched_tokens = 8 * 512;
    s.keep_requests = true;
    const auto r = simulate(m, s, gpu);
    // Closed form 1: the step model's steps, one prefill of the 8 prompts, then 63 decode steps
    // of the batch at contexts 512..574.
    const step_model sm(m, s.base, gpu);
    step_model::batch pre;
    for (int i = 0; i < 8; ++i) sm.add_prefill(pre, 0, 512, true);
    double total = sm.time(pre).total_s;
    for (std::int64_t c = 512; c < 512 + 63; ++c) total += sm.decode_step(8, c).total_s;
    CHECK(close_simulator(r.makespan_s, total, 1e-12));
    // Closed form 2: estimate() at batch 8 (its decode summed exactly over the growing context).
    flopcast::settings e = s.base;
    e.batch_size = 8;
    e.sequence_length = 512;
    e.num_generated_tokens = 64;
    const auto est = flopcast::estimate(m, e, &gpu);
    CHECK(close_simulator(r.makespan_s, est.perf.total_request_latency_s, 1e-9));
    CHECK(close_simulator(r.ttft.max, est.perf.prefill_latency_s, 1e-9));
    CHECK(close_simulator(r.tpot.mean, est.perf.decode_latency_per_token_s, 1e-9));
    CHECK(r.steps == 64);
    CHECK(r.preemptions == 0);
  }
}

TEST_CASE("simulator: a long run of a fixed batch at t=0 reaches serve()'s closed-form steady state") {
  // Many more requests than fit at once, all at t = 0, fixed lengths, prompts batched up to the
  // token budget without chunking (TensorRT-LLM's max-throughput runs): the simulated output
  // rate approaches serve()'s cycle (O decode steps at the mean context plus the batched
  // prefills), which validate uses for such rows.
  const auto& m = test::model("llama-3-8b");
  const auto& gpu = flopcast::find_gpu("H100");
  for (const std::int64_t osl : {128, 1024}) {
    simulation_settings s;
    s.arrivals = arrival_kind::batch;
    s.num_requests = 4096;
    s.input_tokens = {128, 128};
    s.output_tokens = {osl, osl};
    s.chunked_prefill = false;
    s.max_num_seqs = 128;
    s.max_num_batched_tokens = 8192;
    const auto r = simulate(m, s, gpu);
    flopcast::serving_settings v;
    v.base = s.base;
    v.prompt_tokens = 128;
    v.output_tokens = osl;
    v.max_running = 128;
    v.prefill_batch_tokens = 8192;
    const auto c = flopcast::serve(m, v, gpu);
    REQUIRE(c.concurrency == 128);
    INFO("osl " << osl << ": simulated " << r.output_tokens_per_s << " closed form " << c.output_tokens_per_second);
    CHECK(close_simulator(r.output_tokens_per_s, c.output_tokens_per_second, 0.05));
    // One prefill per step instead (the old closed form) is far slower at short outputs: the
    // batching is what the agreement rests on.
    v.prefill_batch_tokens = 0;
    if (osl == 128) CHECK(flopcast::serve(m, v, gpu).output_tokens_per_second < 0.9 * r.output_tokens_per_s);
  }
}

TEST_CASE("simulator: tokens are conserved, with preemption too") {
  const auto& m = test::model("llama-3-8b");
  const auto& gpu = flopcast::find_gpu("H100");
  for (const std::int64_t blocks : {100000, 400}) {  // plenty; then tight enough to preempt
    simulation_settings s;
    s.arrivals = arrival_kind::poisson;
    s.rate_per_s = 40;
    s.num_requests = 300;
    s.input_tokens = {16, 1500};
    s.output_tokens = {1, 400};
    s.kv_blocks = blocks;
    s.max_num_batched_tokens = 1024;
    s.keep_requests = true;
    s.seed = 7;
    std::int64_t step_prefill = 0, step_decode = 0;
    s.on_step = [&](const flopcast::step_record& rec) {
      step_prefill += rec.prefill_tokens;
      step_decode += rec.decode_tokens;
    };
    const auto r = simulate(m, s, gpu);
    INFO("kv_blocks " << blocks);
    if (blocks == 400) CHECK(r.preemptions > 0);
    if (blocks == 100000) CHECK(r.preemptions == 0);
    std::int64_t prefilled = 0, outputs = 0, preempted = 0;
    REQUIRE(r.requests_detail.size() == 300);
    for (const auto& q : r.requests_detail) {
      CHECK(q.emitted_tokens == q.output_tokens);
      CHECK(q.prefill_tokens >= q.input_tokens);
      if (q.preemptions == 0) CHECK(q.prefill_tokens == q.input_tokens);
      CHECK(q.first_token_s > q.arrival_s);
      CHECK(q.finish_s >= q.first_token_s);
      prefilled += q.prefill_tokens;
      outputs += q.output_tokens;
      preempted += q.preemptions;
    }
    CHECK(preempted == r.preemptions);
    CHECK(step_prefill == prefilled);
    // Every output token comes from a decode step or from the end of a prefill (one per
    // request, plus one per recomputation that finished).
    CHECK(step_decode <= outputs - 300);
    CHECK(step_decode >= outputs - 300 - r.preemptions);
  }
}

TEST_CASE("simulator: the token budget and max_num_seqs are never exceeded") {
  const auto& m = test::model("mixtral-8x7b");
  const auto& gpu = flopcast::find_gpu("H200");
  for (const batching_policy policy : {batching_policy::mixed, batching_policy::prefill_first}) {
    simulation_settings s;
    s.arrivals = arrival_kind::poisson;
    s.rate_per_s = 30;
    s.num_requests = 400;
    s.input_tokens = {100, 3000};
    s.output_tokens = {10, 300};
    s.max_num_batched_tokens = 512;
    s.max_num_seqs = 48;
    s.policy = policy;
    std::int64_t steps = 0, over = 0, too_many = 0, mixed_steps = 0, chunk_steps = 0, blocks_over = 0;
    s.on_step = [&](const flopcast::step_record& rec) {
      ++steps;
      if (rec.prefill_tokens + rec.decode_tokens > s.max_num_batched_tokens) ++over;
      if (rec.sequences > s.max_num_seqs || rec.running > s.max_num_seqs) ++too_many;
      if (rec.prefill_tokens > 0 && rec.decode_tokens > 0) ++mixed_steps;
      if (rec.prefill_tokens == s.max_num_batched_tokens) ++chunk_steps;
      if (rec.blocks_used > rec.blocks_total) ++blocks_over;
    };
    const auto r = simulate(m, s, gpu);
    CHECK(steps == r.steps);
    CHECK(over == 0);
    CHECK(too_many == 0);
    CHECK(blocks_over == 0);
    CHECK(chunk_steps > 0);  // prompts longer than the budget were chunked
    if (policy == batching_policy::prefill_first) CHECK(mixed_steps == 0);
    if (policy == batching_policy::mixed) CHECK(mixed_steps > 0);
  }
}

TEST_CASE("simulator: preemption happens exactly when the KV blocks run out") {
  // 4 requests of 64 + 64 tokens, blocks of 16: each holds ceil(computed / 16) blocks, at most
  // ceil(127 / 16) = 8. 24 blocks hold 3 such sequences; all 4 are admitted (4 blocks each).
  // Step 1 prefills them; decode step k (k >= 2) grows each to 64 + k - 1 tokens. Step 33 makes
  // 96 tokens = 6 blocks each (24 in all); step 34 needs a 7th each: the most recently admitted
  // (request 3) is preempted, the other three go on and fit to the end.
  const auto& m = test::model("llama-3-8b");
  const auto& gpu = flopcast::find_gpu("H100");
  simulation_settings s;
  s.arrivals = arrival_kind::batch;
  s.num_requests = 4;
  s.input_tokens = {64, 64};
  s.output_tokens = {64, 64};
  s.block_size = 16;
  s.max_num_seqs = 4;
  s.keep_requests = true;
  for (const std::int64_t blocks : {24, 32}) {
    s.kv_blocks = blocks;
    std::int64_t step = 0, first_preemption = 0, peak_used = 0, used_before = -1;
    s.on_step = [&](const flopcast::step_record& rec) {
      ++step;
      if (rec.preempted > 0 && first_preemption == 0) first_preemption = step;
      if (first_preemption == 0) used_before = rec.blocks_used;
      peak_used = std::max(peak_used, rec.blocks_used);
    };
    const auto r = simulate(m, s, gpu);
    INFO("kv_blocks " << blocks);
    if (blocks == 32) {
      CHECK(r.preemptions == 0);
      CHECK(peak_used == 32);  // 4 x 8 blocks at the end
      continue;
    }
    CHECK(r.preemptions == 1);
    CHECK(first_preemption == 34);
    CHECK(used_before == 24);  // the last step before it used every block
    CHECK(peak_used == 24);
    CHECK(r.requests_detail[3].preemptions == 1);
    for (int i = 0; i < 3; ++i) CHECK(r.requests_detail[static_cast<std::size_t>(i)].preemptions == 0);
    // Preempted after 33 tokens: recomputes its 64 prompt tokens and the 33 it had emitted.
    CHECK(r.requests_detail[3].prefill_tokens == 64 + 64 + 33);
    CHECK(r.requests_detail[3].emitted_tokens == 64);
  }
}

TEST_CASE("simulator: Little's law on the simulated system") {
  const auto& m = test::model("llama-3-8b");
  const auto& gpu = flopcast::find_gpu("H100");
  simulation_settings s;
  s.arrivals = arrival_kind::poisson;
  s.rate_per_s = 8;
  s.num_requests = 3000;
  s.input_tokens = {200, 1200};
  s.output_tokens = {50, 300};
  s.seed = 11;
  const auto r = simulate(m, s, gpu);
  // Over the whole run the time-average number in the system (integrated step by step) is the
  // arrival rate times the mean time in the system.
  CHECK(close_simulator(r.mean_in_system, r.arrival_rate_all * r.mean_latency_all_s, 1e-9));
  // In the measured window (after a warm-up), throughput x mean latency is the mean
  // concurrency within sampling error.
  s.warmup_s = 30;
  const auto w = simulate(m, s, gpu);
  CHECK(w.measured_requests < 3000);
  CHECK(close_simulator(w.requests_per_s * w.e2e.mean, w.mean_in_system, 0.1));
  // An offered load below capacity: the served rate is the arrival rate.
  CHECK(close_simulator(w.requests_per_s, 8, 0.1));
}

TEST_CASE("simulator: identical seeds give identical results, different seeds differ") {
  const auto& m = test::model("gemma-2-9b");
  const auto& gpu = flopcast::find_gpu("A100");
  simulation_settings s;
  s.arrivals = arrival_kind::poisson;
  s.rate_per_s = 5;
  s.num_requests = 200;
  s.input_tokens = {10, 2000};
  s.output_tokens = {10, 500};
  s.seed = 42;
  const auto a = simulate(m, s, gpu), b = simulate(m, s, gpu);
  CHECK(a.makespan_s == b.makespan_s);
  CHECK(a.steps == b.steps);
  CHECK(a.ttft.p99 == b.ttft.p99);
  CHECK(a.itl.mean == b.itl.mean);
  CHECK(a.e2e.mean == b.e2e.mean);
  s.seed = 43;
  const auto c = simulate(m, s, gpu);
  CHECK(c.makespan_s != a.makespan_s);
  CHECK(c.e2e.mean != a.e2e.mean);
}

TEST_CASE("simulator: goodput is at most throughput and percentiles are ordered") {
  const auto& m = test::model("llama-3-8b");
  const auto& gpu = flopcast::find_gpu("H100");
  simulation_settings s;
  s.arrivals = arrival_kind::closed_loop;
  s.clients = 64;
  s.num_requests = 1000;
  s.input_tokens = {100, 2000};
  s.output_tokens = {20, 600};
  s.warmup_requests = 100;
  const auto all = simulate(m, s, gpu);
  CHECK(all.measured_requests == 900);
  CHECK(all.goodput_requests == 900);  // no SLO: every request counts
  CHECK(all.goodput_requests_per_s == Approx(all.requests_per_s));
  s.slo_ttft_s = all.ttft.p50;
  s.slo_tpot_s = all.tpot.p90;
  const auto r = simulate(m, s, gpu);
  CHECK(r.goodput_requests_per_s <= r.requests_per_s);
  CHECK(r.goodput_requests < 900);
  CHECK(r.goodput_requests > 0);
  for (const auto* dist : {&r.ttft, &r.tpot, &r.itl, &r.e2e}) {
    CHECK(dist->count > 0);
    CHECK(dist->min <= dist->p50);
    CHECK(dist->p50 <= dist->p90);
    CHECK(dist->p90 <= dist->p99);
    CHECK(dist->p99 <= dist->max);
    CHECK(dist->mean >= dist->min);
    CHECK(dist->mean <= dist->max);
  }
  CHECK(r.total_tokens_per_s > r.output_tokens_per_s);
  CHECK(r.mean_running <= 64);
  CHECK(r.peak_kv_utilization <= 1);
  CHECK(r.timeline.size() <= 512);
  CHECK(r.timeline.size() >= 256);  // thinned by halves: at least half the cap stays
  for (std::size_t i = 1; i < r.timeline.size(); ++i) CHECK(r.timeline[i].t_s > r.timeline[i - 1].t_s);
}

TEST_CASE("simulator: a trace is replayed as given") {
  const auto& m = test::model("llama-3-8b");
  const auto& gpu = flopcast::find_gpu("H100");
  simulation_settings s;
  s.arrivals = arrival_kind::trace;
  s.trace = {{0.0, 100, 10}, {5.0, 200, 20}, {5.0, 300, 1}};
  s.keep_requests = true;
  const auto r = simulate(m, s, gpu);
  REQUIRE(r.requests_detail.size() == 3);
  CHECK(r.requests_detail[1].arrival_s == 5.0);
  CHECK(r.requests_detail[2].output_tokens == 1);
  CHECK(r.requests_detail[2].finish_s == r.requests_detail[2].first_token_s);
  // The first request finishes long before the others arrive: it ran alone.
  const step_model sm(m, s.base, gpu);
  double alone = sm.prefill(100).total_s;
  for (std::int64_t c = 100; c < 109; ++c) alone += sm.decode_step(1, c).total_s;
  CHECK(close_simulator(r.requests_detail[0].finish_s, alone, 1e-12));
}

TEST_CASE("simulator: nonsense is rejected with the field named") {
  const auto& m = test::model("llama-3-8b");
  const auto& gpu = flopcast::find_gpu("H100");
  const auto with = [&](auto edit) {
    simulation_settings s;
    s.num_requests = 10;
    edit(s);
    return pointer_of([&] { (void)simulate(m, s, gpu); });
  };
  CHECK(with([](simulation_settings&) {}).empty());
  CHECK(with([](simulation_settings& s) {
          s.arrivals = arrival_kind::closed_loop;
          s.clients = 0;
        }) == "/simulation/clients");
  CHECK(with([](simulation_settings& s) {
          s.arrivals = arrival_kind::poisson;
          s.rate_per_s = -1;
        }) == "/simulation/rate_per_s");
  CHECK(with([](simulation_settings& s) {
          s.arrivals = arrival_kind::poisson;
          s.rate_per_s = std::nan("");
        }) == "/simulation/rate_per_s");
  CHECK(with([](simulation_settings& s) { s.num_requests = 1000001; }) == "/simulation/num_requests");
  CHECK(with([](simulation_settings& s) { s.max_num_seqs = 0; }) == "/simulation/max_num_seqs");
  CHECK(with([](simulation_settings& s) { s.max_num_batched_tokens = 0; }) == "/simulation/max_num_batched_tokens");
  CHECK(with([](simulation_settings& s) { s.block_size = 0; }) == "/simulation/block_size");
  CHECK(with([](simulation_settings& s) { s.input_tokens = {0, 10}; }) == "/simulation/input_tokens/min");
  CHECK(with([](simulation_settings& s) { s.output_tokens = {10, 5}; }) == "/simulation/output_tokens/max");
  CHECK(with([](simulation_settings& s) { s.warmup_s = -1; }) == "/simulation/warmup_s");
  CHECK(with([](simulation_settings& s) { s.slo_tpot_s = 0.0; }) == "/simulation/slo_tpot_s");
  CHECK(with([](simulation_settings& s) { s.max_samples = 1; }) == "/simulation/max_samples");
  CHECK(with([](simulation_settings& s) {
          s.chunked_prefill = false;
          s.max_num_batched_tokens = 512;
        }) == "/simulation/max_num_batched_tokens");
  CHECK(with([](simulation_settings& s) {
          s.arrivals = arrival_kind::trace;
          s.trace = {{1.0, 10, 10}, {0.5, 10, 10}};
        }) == "/simulation/trace/1/arrival_s");
  CHECK(with([](simulation_settings& s) { s.arrivals = arrival_kind::trace; }) == "/simulation/trace");
  CHECK(with([](simulation_settings& s) { s.base.parallel.pipeline_parallel = 2; }) ==
        "/parallelism/pipeline_parallel");
  // A request longer than the KV cache: a clear error, not a scheduler that never finishes.
  simulation_settings s;
  s.kv_blocks = 100;  // 1600 tokens
  s.input_tokens = {1024, 1024};
  s.output_tokens = {1024, 1024};
  CHECK_THROWS_WITH(simulate(m, s, gpu), Catch::Contains("needs 128 KV blocks of 16 tokens, but the KV cache holds "
                                                         "100 blocks"));
  CHECK(pointer_of([&] { (void)simulate(m, s, gpu); }) == "/simulation/input_tokens");
  CHECK(pointer_of([&] { (void)simulate(test::model("bert-base"), simulation_settings{}, gpu); }) == "/model");
  // The default KV budget: 405B parameters in bf16 (810 GB) leave no memory on one 80 GB GPU.
  CHECK_THROWS_WITH(simulate(test::model("llama-3.1-405b"), simulation_settings{}, gpu),
                    Catch::Contains("leave no memory for the KV cache"));
}

TEST_CASE("simulator: the default KV blocks are what the usable memory holds after the weights") {
  const auto& m = test::model("llama-3-8b");
  const auto& gpu = flopcast::find_gpu("H100");
  simulation_settings s;
  s.num_requests = 4;
  const auto r = simulate(m, s, gpu);
  // 128 KiB of K/V per token (2 x 32 layers x 8 KV heads x 128 x 2 bytes), blocks of 16 tokens.
  const double block = 16.0 * 131072;
  flopcast::settings one;
  one.sequence_length = s.max_num_batched_tokens;
  one.num_generated_tokens = 1;
  const auto e = flopcast::estimate(m, one, &gpu);
  const double budget = gpu.memory_bytes * 0.9 - e.memory.weights - e.memory.activations;
  CHECK(r.kv_blocks == static_cast<std::int64_t>(std::floor(budget / block)));
  // More memory for the engine, more blocks.
  s.base.gpu_memory_utilization = 0.95;
  CHECK(simulate(m, s, gpu).kv_blocks > r.kv_blocks);
}
