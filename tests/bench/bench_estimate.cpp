// Throughput of the estimator (numeric results, no formatting) and of the JSON path.
//   build/flopcast_bench --benchmark_min_time=0.5
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

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

// The page's 1M-point sweep (tests/browser/bench.mjs's request): flopcast::sweep in the worker's
// 20,000-point chunks into one reused buffer. Reports ns per point (goal: 1M points <= 0.5 s).
void BM_sweep_1m(benchmark::State& state) {
  std::string models = R"("llama-3-8b", "mixtral-8x7b", "qwen2.5-7b", "gemma-2-9b")", batches, sequences;
  for (int i = 1; i <= 50; ++i) batches += (i > 1 ? ", " : "") + std::to_string(i);
  for (int i = 1; i <= 100; ++i) sequences += (i > 1 ? ", " : "") + std::to_string(128 * i);
  const std::string request =
      "{\"model\": [" + models + "], \"batch_size\": [" + batches + "], \"sequence_length\": [" + sequences +
      R"(], "precision": ["bf16", "fp8", "int8", "int4", "fp16"], )" +
      R"("gpu": ["A100", "H100", "H200", "L4", "L40S", "MI300X", "B200", "T4", "A10G", "RTX-4090"]})";
  const auto q = flopcast::read_compare_request(request, true);
  const std::size_t total = q.plan.size(), chunk = 20000;
  std::vector<double> buffer(chunk * flopcast::sweep_field_count());
  std::int64_t points = 0;
  for (auto _ : state) {
    for (std::size_t at = 0; at < total; at += chunk) points += flopcast::sweep(q.plan, at, chunk, buffer.data());
    benchmark::DoNotOptimize(buffer.data());
  }
  state.SetItemsProcessed(points);
  state.counters["ns_per_point"] =
      benchmark::Counter(static_cast<double>(points), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.counters["points"] = static_cast<double>(total);
}

}  // namespace

BENCHMARK(BM_estimate_dense);
BENCHMARK(BM_estimate_moe);
BENCHMARK(BM_estimate_windowed);
BENCHMARK(BM_compare_sweep);
BENCHMARK(BM_estimate_json);
BENCHMARK(BM_sweep_1m)->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();
