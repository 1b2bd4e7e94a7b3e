// Throughput of the estimator (numeric results, no formatting) and of the JSON path.
//   build/flopcast_bench --benchmark_min_time=0.5
#include <benchmark/benchmark.h>

#include "flopcast/flopcast.hpp"

namespace {

void estimate_one(benchmark::State& state, const char* model) {
  const auto& m = flopcast::find_model(model).spec;
  const auto& gpu = flopcast::find_gpu("A100");
  flopcast::settings s;
  s.batch_size = 4;
  for (auto _ : state) {
    auto r = flopcast::estimate(m, s, &gpu);
    benchmark::DoNotOptimize(r);
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_estimate_dense(benchmark::State& state) { estimate_one(state, "llama-3-8b"); }
void BM_estimate_moe(benchmark::State& state) { estimate_one(state, "mixtral-8x7b"); }
void BM_estimate_windowed(benchmark::State& state) { estimate_one(state, "gemma-2-9b"); }

// A compare sweep: batch x sequence x precision, one estimate per point.
void BM_compare_sweep(benchmark::State& state) {
  const auto& m = flopcast::find_model("llama-3-8b").spec;
  const auto& gpu = flopcast::find_gpu("H100");
  std::int64_t points = 0;
  for (auto _ : state) {
    for (std::int64_t b : {1, 2, 4, 8, 16, 32, 64, 128})
      for (std::int64_t q : {128, 512, 2048, 8192, 32768})
        for (flopcast::precision p : flopcast::all_precisions) {
          flopcast::settings s;
          s.batch_size = b;
          s.sequence_length = q;
          s.weight_precision = p;
          auto r = flopcast::estimate(m, s, &gpu);
          benchmark::DoNotOptimize(r);
          ++points;
        }
  }
  state.SetItemsProcessed(points);
}

// The whole request path the WASM module takes: parse request JSON, estimate, write JSON.
void BM_estimate_json(benchmark::State& state) {
  const std::string request = R"({"model": "llama-3-8b", "batch_size": 4, "gpu": "A100"})";
  for (auto _ : state) {
    auto text = flopcast::estimate_json(request);
    benchmark::DoNotOptimize(text);
  }
  state.SetItemsProcessed(state.iterations());
}

}  // namespace

BENCHMARK(BM_estimate_dense);
BENCHMARK(BM_estimate_moe);
BENCHMARK(BM_estimate_windowed);
BENCHMARK(BM_compare_sweep);
BENCHMARK(BM_estimate_json);
BENCHMARK_MAIN();
