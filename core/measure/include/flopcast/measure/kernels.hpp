#pragma once
// The measurement kernels: a cache-blocked, multithreaded matrix multiply over weights
// pre-packed in panels of 16 output columns (fp32, bf16 or int8 with a scale per output
// row), used for prefill (GEMM) and decode (GEMV, or a few rows). One packed layout serves
// both: panel j holds W[16j .. 16j+15][k] for every k as K rows of 16 contiguous values, so
// a decode step streams each weight exactly once and a prefill block reuses a panel slice
// from L1 across all rows of the activation block.
//
// The ISA is chosen at run time: AVX2+FMA kernels (compiled with __attribute__((target)))
// where the CPU has them, otherwise portable kernels the compiler vectorises for the
// x86-64 baseline (SSE2).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "flopcast/measure/thread_pool.hpp"

namespace flopcast::measure {

enum class isa : std::uint8_t { generic, avx2_fma };
[[nodiscard]] std::string_view to_string(isa i) noexcept;
// The best ISA this CPU runs (AVX2 and FMA both present: avx2_fma).
[[nodiscard]] isa best_isa() noexcept;

// Storage format of packed weights. bf16: round-to-nearest-even of the fp32 value; i8:
// symmetric int8 with one fp32 scale per output row (absmax / 127).
enum class weight_format : std::uint8_t { f32, bf16, i8 };
[[nodiscard]] std::string_view to_string(weight_format f) noexcept;
[[nodiscard]] double bytes_per_element(weight_format f) noexcept;

// 64-byte aligned storage; buffers of 2 MiB or more ask for transparent huge pages.
struct aligned_deleter {
  void operator()(void* p) const noexcept;
};
template <class T>
using aligned_array = std::unique_ptr<T[], aligned_deleter>;
[[nodiscard]] void* aligned_allocate(std::size_t bytes);
template <class T>
[[nodiscard]] aligned_array<T> make_aligned(std::size_t n) {
  return aligned_array<T>(static_cast<T*>(aligned_allocate(n * sizeof(T))));
}

inline constexpr int panel_width = 16;

// W[n][k] (PyTorch Linear layout: y = x W^T) packed in panels.
class packed_matrix {
 public:
  packed_matrix() = default;
  // Packs rows produced by row(n, out): out receives the K fp32 values of row n. Rows are
  // generated in parallel (row() must be thread-safe) and quantised to `format`.
  template <class RowFn>
  static packed_matrix build(std::int64_t n, std::int64_t k, weight_format format, thread_pool& pool, RowFn&& row);
  static packed_matrix from_dense(const float* w, std::int64_t n, std::int64_t k, weight_format format,
                                  thread_pool& pool);

  [[nodiscard]] std::int64_t rows() const noexcept { return n_; }  // N: outputs
  [[nodiscard]] std::int64_t cols() const noexcept { return k_; }  // K: inputs
  [[nodiscard]] std::int64_t panels() const noexcept { return (n_ + panel_width - 1) / panel_width; }
  [[nodiscard]] weight_format format() const noexcept { return format_; }
  // Bytes of the weights as stored (N x K elements in the format, plus int8 scales): what a
  // pass over the matrix reads. Padding of the last panel is not counted.
  [[nodiscard]] double storage_bytes() const noexcept;
  // Bytes allocated (padding included).
  [[nodiscard]] std::size_t allocated_bytes() const noexcept;

  // Row n dequantised to fp32 (K values).
  void row(std::int64_t n, float* out) const;
  [[nodiscard]] std::vector<float> unpack() const;  // N x K, row-major, dequantised

  // Raw access for the kernels.
  [[nodiscard]] const void* panel(std::int64_t j) const noexcept {
    return static_cast<const unsigned char*>(data_.get()) + static_cast<std::size_t>(j) * static_cast<std::size_t>(k_) *
                                                                panel_width *
                                                                static_cast<std::size_t>(bytes_per_element(format_));
  }
  [[nodiscard]] const float* scales() const noexcept { return scales_.get(); }  // i8: per row (padded)

 private:
  void allocate(std::int64_t n, std::int64_t k, weight_format format);
  void store_panel_rows(std::int64_t j, const float* rows16);  // 16 rows x K, row-major (padding rows zero)

  std::int64_t n_ = 0, k_ = 0;
  weight_format format_ = weight_format::f32;
  aligned_array<unsigned char> data_;
  aligned_array<float> scales_;
};

// Work a kernel executed, in flopcast's conventions: a multiply-add is 2 FLOPs; bytes are
// those of the weights (or cache) the kernel streams, each counted once per call.
struct work_tally {
  double flops = 0;
  double bytes = 0;
  work_tally& operator+=(const work_tally& o) noexcept {
    flops += o.flops;
    bytes += o.bytes;
    return *this;
  }
};

// C[m][n] = A[m][k] . W^T (+ C when accumulate). A is row-major with row stride lda, C with
// ldc. Runs on the pool; adds 2 m n k FLOPs and the weights' storage bytes to `tally`;
// `kernel` forces an ISA (tests compare both).
void gemm(thread_pool& pool, std::int64_t m, const float* a, std::int64_t lda, const packed_matrix& w, float* c,
          std::int64_t ldc, bool accumulate = false, work_tally* tally = nullptr, isa kernel = best_isa());

// fp32 <-> bf16 (round to nearest even; NaN stays NaN).
[[nodiscard]] std::uint16_t to_bf16(float v) noexcept;
[[nodiscard]] float from_bf16(std::uint16_t v) noexcept;

// --- implementation of the template ---

template <class RowFn>
packed_matrix packed_matrix::build(std::int64_t n, std::int64_t k, weight_format format, thread_pool& pool,
                                   RowFn&& row) {
  packed_matrix m;
  m.allocate(n, k, format);
  const std::int64_t panels = m.panels();
  const int threads = pool.size();
  std::vector<std::vector<float>> scratch(static_cast<std::size_t>(threads));
  pool.run_on_all([&](int t) {
    auto& rows16 = scratch[static_cast<std::size_t>(t)];
    rows16.assign(static_cast<std::size_t>(panel_width * k), 0.0f);
    const auto [p0, p1] = thread_pool::split(panels, threads, t);
    for (std::int64_t j = p0; j < p1; ++j) {
      for (int r = 0; r < panel_width; ++r) {
        float* out = rows16.data() + static_cast<std::size_t>(r) * static_cast<std::size_t>(k);
        const std::int64_t row_index = j * panel_width + r;
        if (row_index < n)
          row(row_index, out);
        else
          std::fill(out, out + k, 0.0f);
      }
      m.store_panel_rows(j, rows16.data());
    }
  });
  return m;
}

}  // namespace flopcast::measure
