// The serving simulator's speed: 10,000 requests of 1k input / 1k output tokens from 256
// closed-loop clients (max_num_seqs 256), Llama 3 8B on one H100. Target: ~100 ms natively.
//   build/flopcast_bench --benchmark_filter=simulate
#include <benchmark/benchmark.h>

#include "flopcast/flopcast.hpp"
#include "flopcast/serving/simulator.hpp"

namespace {

void BM_simulate_10k_1k_1k_c256(benchmark::State& state) {
  const auto& m = flopcast::find_model("llama-3-8b").spec;
  const auto& gpu = flopcast::find_gpu("H100");
  flopcast::simulation_settings s;
  s.arrivals = flopcast::arrival_kind::closed_loop;
  s.clients = 256;
  s.num_requests = 10000;
  s.input_tokens = {1024, 1024};
  s.output_tokens = {1024, 1024};
  s.max_num_seqs = 256;
  s.max_num_batched_tokens = 8192;
  std::int64_t steps = 0, preemptions = 0;
  double tokens_per_s = 0;
  for (auto _ : state) {
    auto r = flopcast::simulate(m, s, gpu);
    steps = r.steps;
    preemptions = r.preemptions;
    tokens_per_s = r.output_tokens_per_s;
    benchmark::DoNotOptimize(r);
  }
  state.counters["steps"] = static_cast<double>(steps);
  state.counters["preemptions"] = static_cast<double>(preemptions);
  state.counters["sim_output_tok_per_s"] = tokens_per_s;
  state.SetItemsProcessed(state.iterations() * s.num_requests);
}

}  // namespace

BENCHMARK(BM_simulate_10k_1k_1k_c256)->Unit(benchmark::kMillisecond);
