// The measurement kernels: thread pool, weight packing, GEMM/GEMV against a naive product,
// on every path (decode rows, prefill blocks, AVX2 and the portable baseline).
#include <atomic>
#include <catch2/catch.hpp>
#include <cmath>
#include <numeric>
#include <random>
#include <stdexcept>
#include <vector>

#include "flopcast/base/error.hpp"
#include "flopcast/measure/kernels.hpp"

using namespace flopcast::measure;

namespace {

std::vector<float> random_values(std::size_t n, unsigned seed, float scale = 1.0f) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<float> u(-scale, scale);
  std::vector<float> v(n);
  for (auto& x : v) x = u(g);
  return v;
}

// C = A . W^T in double, W as dequantised by the packed matrix.
std::vector<double> naive(const std::vector<float>& a, std::int64_t m, const std::vector<float>& w, std::int64_t n,
                          std::int64_t k) {
  std::vector<double> c(static_cast<std::size_t>(m * n), 0.0);
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      double s = 0;
      for (std::int64_t p = 0; p < k; ++p) s += static_cast<double>(a[i * k + p]) * w[j * k + p];
      c[i * n + j] = s;
    }
  return c;
}

}  // namespace

TEST_CASE("thread pool: every index once, the first exception rethrown", "[measure]") {
  for (int threads : {1, 2, 3}) {
    thread_pool pool(threads);
    CHECK(pool.size() == threads);
    for (std::int64_t n : {0, 1, 7, 1000}) {
      std::vector<std::atomic<int>> hits(static_cast<std::size_t>(n));
      pool.parallel_for(n, [&](std::int64_t i) { hits[static_cast<std::size_t>(i)]++; });
      for (auto& h : hits) CHECK(h.load() == 1);
    }
    std::vector<int> seen(static_cast<std::size_t>(threads), 0);
    pool.run_on_all([&](int t) { seen[static_cast<std::size_t>(t)] = 1; });
    CHECK(std::accumulate(seen.begin(), seen.end(), 0) == threads);
    CHECK_THROWS_WITH(pool.parallel_for(100,
                                        [](std::int64_t i) {
                                          if (i == 42) throw std::runtime_error("boom");
                                        }),
                      "boom");
    // Still usable afterwards.
    std::atomic<std::int64_t> sum{0};
    pool.parallel_for(100, [&](std::int64_t i) { sum += i; });
    CHECK(sum == 4950);
  }
  CHECK_THROWS_AS(thread_pool(0), flopcast::error);
}

TEST_CASE("split covers a range in near-equal contiguous parts", "[measure]") {
  std::int64_t covered = 0, prev_end = 0;
  for (int t = 0; t < 3; ++t) {
    const auto [a, b] = thread_pool::split(10, 3, t);
    CHECK(a == prev_end);
    CHECK((b - a == 3 || b - a == 4));
    covered += b - a;
    prev_end = b;
  }
  CHECK(covered == 10);
}

TEST_CASE("bf16 rounds to nearest even and keeps NaN", "[measure]") {
  CHECK(from_bf16(to_bf16(1.0f)) == 1.0f);
  CHECK(from_bf16(to_bf16(-2.5f)) == -2.5f);
  // 1 + 2^-8 is halfway between two bf16 values: ties to even (1.0).
  CHECK(from_bf16(to_bf16(1.0f + 1.0f / 256)) == 1.0f);
  CHECK(from_bf16(to_bf16(1.0f + 3.0f / 256)) == 1.0f + 4.0f / 256);
  CHECK(std::isnan(from_bf16(to_bf16(std::nanf("")))));
  for (float v : {0.1f, 3.14159f, -1e-3f, 65504.0f}) CHECK(std::fabs(from_bf16(to_bf16(v)) - v) <= std::fabs(v) / 256);
}

TEST_CASE("packing keeps every row, int8 and bf16 quantise within their step", "[measure]") {
  thread_pool pool(2);
  const std::int64_t n = 37, k = 29;  // a partial last panel, an odd K
  const auto w = random_values(static_cast<std::size_t>(n * k), 1);
  for (auto f : {weight_format::f32, weight_format::bf16, weight_format::i8}) {
    INFO(to_string(f));
    const packed_matrix p = packed_matrix::from_dense(w.data(), n, k, f, pool);
    CHECK(p.rows() == n);
    CHECK(p.cols() == k);
    CHECK(p.panels() == 3);
    CHECK(p.storage_bytes() == n * k * bytes_per_element(f) + (f == weight_format::i8 ? 4.0 * n : 0.0));
    const auto back = p.unpack();
    for (std::int64_t r = 0; r < n; ++r) {
      float absmax = 0;
      for (std::int64_t c = 0; c < k; ++c) absmax = std::max(absmax, std::fabs(w[r * k + c]));
      for (std::int64_t c = 0; c < k; ++c) {
        const float x = w[r * k + c], y = back[r * k + c];
        if (f == weight_format::f32)
          REQUIRE(x == y);
        else if (f == weight_format::bf16)
          REQUIRE(std::fabs(x - y) <= std::fabs(x) / 256);
        else
          REQUIRE(std::fabs(x - y) <= absmax / 127 / 2 * 1.001f);
      }
    }
  }
}

TEST_CASE("GEMM matches a naive product on every path", "[measure]") {
  std::vector<isa> isas{isa::generic};
  if (best_isa() == isa::avx2_fma) isas.push_back(isa::avx2_fma);
  struct shape {
    std::int64_t m, n, k;
  };
  // Decode (m <= 6), prefill blocks (m > 6, several row blocks, K beyond one slice), edges.
  const std::vector<shape> shapes{{1, 16, 16}, {1, 50, 300},  {2, 33, 17},    {3, 64, 1},    {6, 40, 70},
                                  {7, 17, 5},  {13, 48, 260}, {150, 70, 300}, {300, 20, 33}, {5, 1, 9}};
  for (int threads : {1, 2}) {
    thread_pool pool(threads);
    for (const isa kernel : isas)
      for (auto f : {weight_format::f32, weight_format::bf16, weight_format::i8})
        for (const auto& s : shapes) {
          INFO("threads " << threads << " isa " << to_string(kernel) << " format " << to_string(f) << " m " << s.m
                          << " n " << s.n << " k " << s.k);
          const auto a = random_values(static_cast<std::size_t>(s.m * s.k), 2);
          const auto wd = random_values(static_cast<std::size_t>(s.n * s.k), 3);
          const packed_matrix w = packed_matrix::from_dense(wd.data(), s.n, s.k, f, pool);
          const auto expect = naive(a, s.m, w.unpack(), s.n, s.k);
          // ldc > n: columns beyond n must stay untouched.
          const std::int64_t ldc = s.n + 3;
          std::vector<float> c(static_cast<std::size_t>(s.m * ldc), 7.0f);
          work_tally tally;
          gemm(pool, s.m, a.data(), s.k, w, c.data(), ldc, false, &tally, kernel);
          CHECK(tally.flops == 2.0 * s.m * s.n * s.k);
          CHECK(tally.bytes == w.storage_bytes());
          double worst = 0;
          for (std::int64_t i = 0; i < s.m; ++i) {
            for (std::int64_t j = 0; j < s.n; ++j)
              worst = std::max(worst, std::fabs(c[i * ldc + j] - expect[i * s.n + j]) / (1.0 + std::sqrt(double(s.k))));
            for (std::int64_t j = s.n; j < ldc; ++j) REQUIRE(c[i * ldc + j] == 7.0f);
          }
          CHECK(worst < 1e-5);
          // Accumulate: C += A W^T.
          gemm(pool, s.m, a.data(), s.k, w, c.data(), ldc, true, nullptr, kernel);
          double worst2 = 0;
          for (std::int64_t i = 0; i < s.m; ++i)
            for (std::int64_t j = 0; j < s.n; ++j)
              worst2 = std::max(worst2,
                                std::fabs(c[i * ldc + j] - 2 * expect[i * s.n + j]) / (1.0 + std::sqrt(double(s.k))));
          CHECK(worst2 < 2e-5);
        }
  }
}

TEST_CASE("GEMM results do not depend on the thread count", "[measure]") {
  const std::int64_t m = 40, n = 200, k = 160;  // above the serial threshold (2^20 FLOPs)
  const auto a = random_values(static_cast<std::size_t>(m * k), 4);
  const auto wd = random_values(static_cast<std::size_t>(n * k), 5);
  std::vector<float> c1(static_cast<std::size_t>(m * n)), c2(c1.size());
  thread_pool one(1), two(2);
  const packed_matrix w = packed_matrix::from_dense(wd.data(), n, k, weight_format::f32, one);
  gemm(one, m, a.data(), k, w, c1.data(), n);
  gemm(two, m, a.data(), k, w, c2.data(), n);
  CHECK(c1 == c2);
}
