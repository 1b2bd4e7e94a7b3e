// Rows of a comparison through JSON (compare_json: request text in, every row's JSON out) beside
// the numeric sweep over the same grid (flopcast::sweep into a caller's buffer): issue 14 wants
// compare_json rows at the sweep rate. items_per_second counts rows, resp. points.
//   build/flopcast_bench --benchmark_filter='compare_json|sweep_rows'
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "flopcast/flopcast.hpp"

namespace {

// 2 models x 8 batches x 5 sequences x 2 precisions x 2 GPUs = 320 rows.
const char* const grid = R"({"model": ["llama-3-8b", "mixtral-8x7b"], "batch_size": [1, 2, 4, 8, 16, 32, 64, 128],
  "sequence_length": [128, 512, 2048, 8192, 32768], "precision": ["bf16", "int4"], "gpu": ["A100", "H100"]})";

void BM_compare_json(benchmark::State& state) {
  const std::string request = grid;
  const std::size_t rows = flopcast::read_compare_request(request).plan.size();
  for (auto _ : state) {
    auto text = flopcast::compare_json(request);
    benchmark::DoNotOptimize(text);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(rows));
}

void BM_sweep_rows(benchmark::State& state) {
  const flopcast::compare_request q = flopcast::read_compare_request(grid);
  const std::size_t points = q.plan.size();
  std::vector<double> out(points * flopcast::sweep_field_count());
  for (auto _ : state) {
    benchmark::DoNotOptimize(flopcast::sweep(q.plan, 0, points, out.data()));
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(points));
}

}  // namespace

BENCHMARK(BM_compare_json)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_sweep_rows)->Unit(benchmark::kMicrosecond);
