// GEMM/GEMV over panel-packed weights. See kernels.hpp for the layout.
//
// Prefill (m > MR): the activations are packed once into MR-row blocks (a[k * MR + r]); each
// task takes a block of MC rows and a range of panels, walks the panels in chunks of NCP,
// the K dimension in slices of KC, then every panel of the chunk and every row block; the
// 6 x 16 microkernel (12 AVX2 accumulators) computes MR x 16 outputs over one slice. A
// KC x 16 fp32 panel slice (16 KiB) stays in L1 across the rows, the chunk's C block
// (MC x 256 floats) and the MC x KC activation slice in L2. bf16/int8 panels are converted
// to fp32 one slice at a time and the slice is reused by every row.
// Decode (m <= MR): each thread streams a contiguous range of panels once, with a kernel
// that converts bf16/int8 in registers and keeps 4 (m = 1) or 2 (m = 2) independent
// accumulator sets to hide the FMA latency.
#include "flopcast/measure/kernels.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <new>
#include <utility>

#if defined(__x86_64__)
#include <immintrin.h>
#define FLOPCAST_X86 1
#define FLOPCAST_AVX2 __attribute__((target("avx2,fma")))
#else
#define FLOPCAST_X86 0
#endif

namespace flopcast::measure {

std::string_view to_string(isa i) noexcept { return i == isa::avx2_fma ? "avx2+fma" : "generic (sse2)"; }

isa best_isa() noexcept {
#if FLOPCAST_X86
  static const isa best =
      (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) ? isa::avx2_fma : isa::generic;
  return best;
#else
  return isa::generic;
#endif
}

std::string_view to_string(weight_format f) noexcept {
  switch (f) {
    case weight_format::f32:
      return "fp32";
    case weight_format::bf16:
      return "bf16";
    case weight_format::i8:
      return "int8";
  }
  return "fp32";
}

double bytes_per_element(weight_format f) noexcept {
  switch (f) {
    case weight_format::f32:
      return 4;
    case weight_format::bf16:
      return 2;
    case weight_format::i8:
      return 1;
  }
  return 4;
}

void* aligned_allocate(std::size_t bytes) {
  constexpr std::size_t huge = std::size_t{2} << 20;
  const std::size_t align = bytes >= huge ? huge : 64;
  const std::size_t rounded = (std::max<std::size_t>(bytes, 1) + align - 1) / align * align;
  void* p = nullptr;
  if (posix_memalign(&p, align, rounded) != 0 || p == nullptr) throw std::bad_alloc();
#ifdef MADV_HUGEPAGE
  if (align == huge) (void)madvise(p, rounded, MADV_HUGEPAGE);
#endif
  return p;
}

void aligned_deleter::operator()(void* p) const noexcept { std::free(p); }

std::uint16_t to_bf16(float v) noexcept {
  std::uint32_t bits = 0;
  std::memcpy(&bits, &v, 4);
  if ((bits & 0x7f800000u) == 0x7f800000u && (bits & 0x007fffffu) != 0)
    return static_cast<std::uint16_t>((bits >> 16) | 0x40);
  const std::uint32_t rounding = 0x7fffu + ((bits >> 16) & 1u);
  return static_cast<std::uint16_t>((bits + rounding) >> 16);
}

float from_bf16(std::uint16_t v) noexcept {
  const std::uint32_t bits = static_cast<std::uint32_t>(v) << 16;
  float f = 0;
  std::memcpy(&f, &bits, 4);
  return f;
}

// ---------------------------------------------------------------------------------------
// packed_matrix

void packed_matrix::allocate(std::int64_t n, std::int64_t k, weight_format format) {
  n_ = n;
  k_ = k;
  format_ = format;
  data_.reset(static_cast<unsigned char*>(aligned_allocate(allocated_bytes())));
  if (format == weight_format::i8) {
    scales_ = make_aligned<float>(static_cast<std::size_t>(panels() * panel_width));
    std::fill(scales_.get(), scales_.get() + panels() * panel_width, 0.0f);
  }
}

double packed_matrix::storage_bytes() const noexcept {
  const double elements = static_cast<double>(n_) * static_cast<double>(k_);
  return elements * bytes_per_element(format_) + (format_ == weight_format::i8 ? 4.0 * static_cast<double>(n_) : 0.0);
}

std::size_t packed_matrix::allocated_bytes() const noexcept {
  return static_cast<std::size_t>(panels()) * panel_width * static_cast<std::size_t>(k_) *
         static_cast<std::size_t>(bytes_per_element(format_));
}

void packed_matrix::store_panel_rows(std::int64_t j, const float* rows16) {
  const std::size_t K = static_cast<std::size_t>(k_);
  switch (format_) {
    case weight_format::f32: {
      float* p = static_cast<float*>(const_cast<void*>(panel(j)));
      for (std::size_t k = 0; k < K; ++k)
        for (std::size_t r = 0; r < panel_width; ++r) p[k * panel_width + r] = rows16[r * K + k];
      break;
    }
    case weight_format::bf16: {
      auto* p = static_cast<std::uint16_t*>(const_cast<void*>(panel(j)));
      for (std::size_t k = 0; k < K; ++k)
        for (std::size_t r = 0; r < panel_width; ++r) p[k * panel_width + r] = to_bf16(rows16[r * K + k]);
      break;
    }
    case weight_format::i8: {
      auto* p = static_cast<std::int8_t*>(const_cast<void*>(panel(j)));
      float inv[panel_width];
      for (std::size_t r = 0; r < panel_width; ++r) {
        float absmax = 0;
        for (std::size_t k = 0; k < K; ++k) absmax = std::max(absmax, std::fabs(rows16[r * K + k]));
        const float scale = absmax > 0 ? absmax / 127.0f : 1.0f;
        scales_[static_cast<std::size_t>(j) * panel_width + r] = scale;
        inv[r] = 1.0f / scale;
      }
      for (std::size_t k = 0; k < K; ++k)
        for (std::size_t r = 0; r < panel_width; ++r) {
          const float q = std::nearbyint(rows16[r * K + k] * inv[r]);
          p[k * panel_width + r] = static_cast<std::int8_t>(std::min(127.0f, std::max(-127.0f, q)));
        }
      break;
    }
  }
}

packed_matrix packed_matrix::from_dense(const float* w, std::int64_t n, std::int64_t k, weight_format format,
                                        thread_pool& pool) {
  return build(n, k, format, pool,
               [&](std::int64_t row, float* out) { std::copy(w + row * k, w + (row + 1) * k, out); });
}

void packed_matrix::row(std::int64_t n, float* out) const {
  const std::int64_t j = n / panel_width;
  const std::size_t r = static_cast<std::size_t>(n % panel_width);
  const std::size_t K = static_cast<std::size_t>(k_);
  switch (format_) {
    case weight_format::f32: {
      const float* p = static_cast<const float*>(panel(j));
      for (std::size_t k = 0; k < K; ++k) out[k] = p[k * panel_width + r];
      break;
    }
    case weight_format::bf16: {
      const auto* p = static_cast<const std::uint16_t*>(panel(j));
      for (std::size_t k = 0; k < K; ++k) out[k] = from_bf16(p[k * panel_width + r]);
      break;
    }
    case weight_format::i8: {
      const auto* p = static_cast<const std::int8_t*>(panel(j));
      const float s = scales_[static_cast<std::size_t>(n)];
      for (std::size_t k = 0; k < K; ++k) out[k] = static_cast<float>(p[k * panel_width + r]) * s;
      break;
    }
  }
}

std::vector<float> packed_matrix::unpack() const {
  std::vector<float> out(static_cast<std::size_t>(n_ * k_));
  for (std::int64_t n = 0; n < n_; ++n) row(n, out.data() + n * k_);
  return out;
}

// ---------------------------------------------------------------------------------------
// Microkernels

namespace {

constexpr int MR = 6;
constexpr std::int64_t KC = 256;
constexpr std::int64_t MC = 144;
constexpr double serial_flops = 1 << 20;
constexpr std::int64_t NCP = 16;  // panels per column chunk of the prefill loop
#ifndef FLOPCAST_PREFETCH
#define FLOPCAST_PREFETCH 1024
#endif
// bf16/int8 decode kernels spend more instructions per byte; prefetching 1 KiB ahead keeps
// their streams at fp32's rate (fp32 needs no help from software).
constexpr std::int64_t prefetch_distance = FLOPCAST_PREFETCH;  // bytes ahead in a decode stream

// Writes an MR x 16 tile (row-major in `tile`) to C: only `nvalid` columns, added when acc.
template <int R>
inline void store_tile(const float* tile, float* c, std::int64_t ldc, int nvalid, bool acc) {
  for (int m = 0; m < R; ++m) {
    float* cr = c + m * ldc;
    const float* t = tile + m * panel_width;
    if (acc)
      for (int r = 0; r < nvalid; ++r) cr[r] += t[r];
    else
      for (int r = 0; r < nvalid; ++r) cr[r] = t[r];
  }
}

// Loads 16 weights of row k of a panel as fp32 (generic path).
template <weight_format F>
inline void load_row16(const void* panel, std::int64_t k, float* out) {
  if constexpr (F == weight_format::f32) {
    const float* p = static_cast<const float*>(panel) + k * panel_width;
    for (int r = 0; r < panel_width; ++r) out[r] = p[r];
  } else if constexpr (F == weight_format::bf16) {
    const std::uint16_t* p = static_cast<const std::uint16_t*>(panel) + k * panel_width;
    for (int r = 0; r < panel_width; ++r) {
      const std::uint32_t bits = static_cast<std::uint32_t>(p[r]) << 16;
      std::memcpy(&out[r], &bits, 4);
    }
  } else {
    const std::int8_t* p = static_cast<const std::int8_t*>(panel) + k * panel_width;
    for (int r = 0; r < panel_width; ++r) out[r] = static_cast<float>(p[r]);
  }
}

// Generic kernel: R rows x 16 columns over k in [0, kc), weights of any format; the
// compiler vectorises the 16-wide loops for the baseline ISA.
// A(m, k) of the activations: row-major with stride lda, or packed by MR-row blocks
// (a[k * MR + m]) for the prefill path.
template <bool Packed>
inline const float* a_at(const float* a, std::int64_t lda, int m, std::int64_t k) noexcept {
  return Packed ? a + k * MR + m : a + m * lda + k;
}

template <int R, weight_format F, bool Packed>
void ukr_generic(std::int64_t kc, const float* a, std::int64_t lda, const void* panel, const float* scale16, float* c,
                 std::int64_t ldc, int nvalid, bool acc) {
  alignas(64) float sum[R][panel_width] = {};
  alignas(64) float b[panel_width];
  for (std::int64_t k = 0; k < kc; ++k) {
    load_row16<F>(panel, k, b);
    for (int m = 0; m < R; ++m) {
      const float av = *a_at<Packed>(a, lda, m, k);
      for (int r = 0; r < panel_width; ++r) sum[m][r] += av * b[r];
    }
  }
  if (F == weight_format::i8)
    for (int m = 0; m < R; ++m)
      for (int r = 0; r < panel_width; ++r) sum[m][r] *= scale16[r];
  store_tile<R>(&sum[0][0], c, ldc, nvalid, acc);
}

#if FLOPCAST_X86
template <weight_format F>
FLOPCAST_AVX2 inline void load16_avx2(const void* panel, std::int64_t k, __m256& lo, __m256& hi) {
  if constexpr (F == weight_format::f32) {
    const float* p = static_cast<const float*>(panel) + k * panel_width;
    lo = _mm256_loadu_ps(p);
    hi = _mm256_loadu_ps(p + 8);
  } else if constexpr (F == weight_format::bf16) {
    const __m256i w = _mm256_loadu_si256(
        reinterpret_cast<const __m256i*>(static_cast<const std::uint16_t*>(panel) + k * panel_width));
    lo = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(_mm256_castsi256_si128(w)), 16));
    hi = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(_mm256_extracti128_si256(w, 1)), 16));
  } else {
    const __m128i w =
        _mm_loadu_si128(reinterpret_cast<const __m128i*>(static_cast<const std::int8_t*>(panel) + k * panel_width));
    lo = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(w));
    hi = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_srli_si128(w, 8)));
  }
}

// AVX2 kernel: R rows x 16 columns; U independent accumulator sets over k hide the FMA
// latency when R is small (decode: R = batch).
template <int R, weight_format F, bool Packed>
FLOPCAST_AVX2 void ukr_avx2(std::int64_t kc, const float* a, std::int64_t lda, const void* panel, const float* scale16,
                            float* c, std::int64_t ldc, int nvalid, bool acc) {
  constexpr int U = R == 1 ? 4 : R == 2 ? 2 : 1;
  __m256 s0[U][R], s1[U][R];
#pragma GCC unroll 8
  for (int u = 0; u < U; ++u)
#pragma GCC unroll 8
    for (int m = 0; m < R; ++m) s0[u][m] = s1[u][m] = _mm256_setzero_ps();
  // Decode streams each panel once from memory: prefetch ahead for the narrow formats.
  constexpr std::int64_t row_bytes = panel_width * (F == weight_format::f32 ? 4 : F == weight_format::bf16 ? 2 : 1);
  const char* stream = static_cast<const char*>(panel);
  std::int64_t k = 0;
  for (; k + U <= kc; k += U) {
    if constexpr (!Packed && F != weight_format::f32) {
#pragma GCC unroll 4
      for (std::int64_t o = 0; o < U * row_bytes; o += 64)
        _mm_prefetch(stream + k * row_bytes + prefetch_distance + o, _MM_HINT_T0);
    }
#pragma GCC unroll 8
    for (int u = 0; u < U; ++u) {
      __m256 b0, b1;
      load16_avx2<F>(panel, k + u, b0, b1);
#pragma GCC unroll 8
      for (int m = 0; m < R; ++m) {
        const __m256 av = _mm256_broadcast_ss(a_at<Packed>(a, lda, m, k + u));
        s0[u][m] = _mm256_fmadd_ps(av, b0, s0[u][m]);
        s1[u][m] = _mm256_fmadd_ps(av, b1, s1[u][m]);
      }
    }
  }
  for (; k < kc; ++k) {
    __m256 b0, b1;
    load16_avx2<F>(panel, k, b0, b1);
#pragma GCC unroll 8
    for (int m = 0; m < R; ++m) {
      const __m256 av = _mm256_broadcast_ss(a_at<Packed>(a, lda, m, k));
      s0[0][m] = _mm256_fmadd_ps(av, b0, s0[0][m]);
      s1[0][m] = _mm256_fmadd_ps(av, b1, s1[0][m]);
    }
  }
#pragma GCC unroll 8
  for (int u = 1; u < U; ++u)
#pragma GCC unroll 8
    for (int m = 0; m < R; ++m) {
      s0[0][m] = _mm256_add_ps(s0[0][m], s0[u][m]);
      s1[0][m] = _mm256_add_ps(s1[0][m], s1[u][m]);
    }
  if constexpr (F == weight_format::i8) {
    const __m256 sc0 = _mm256_loadu_ps(scale16), sc1 = _mm256_loadu_ps(scale16 + 8);
#pragma GCC unroll 8
    for (int m = 0; m < R; ++m) {
      s0[0][m] = _mm256_mul_ps(s0[0][m], sc0);
      s1[0][m] = _mm256_mul_ps(s1[0][m], sc1);
    }
  }
  if (nvalid == panel_width) {
#pragma GCC unroll 8
    for (int m = 0; m < R; ++m) {
      float* cr = c + m * ldc;
      if (acc) {
        _mm256_storeu_ps(cr, _mm256_add_ps(_mm256_loadu_ps(cr), s0[0][m]));
        _mm256_storeu_ps(cr + 8, _mm256_add_ps(_mm256_loadu_ps(cr + 8), s1[0][m]));
      } else {
        _mm256_storeu_ps(cr, s0[0][m]);
        _mm256_storeu_ps(cr + 8, s1[0][m]);
      }
    }
  } else {
    alignas(64) float tile[R][panel_width];
#pragma GCC unroll 8
    for (int m = 0; m < R; ++m) {
      _mm256_store_ps(tile[m], s0[0][m]);
      _mm256_store_ps(tile[m] + 8, s1[0][m]);
    }
    store_tile<R>(&tile[0][0], c, ldc, nvalid, acc);
  }
}
#endif

using kernel_fn = void (*)(std::int64_t, const float*, std::int64_t, const void*, const float*, float*, std::int64_t,
                           int, bool);

template <weight_format F, bool Packed, std::size_t... I>
constexpr std::array<kernel_fn, MR> generic_table(std::index_sequence<I...>) {
  return {&ukr_generic<static_cast<int>(I) + 1, F, Packed>...};
}
#if FLOPCAST_X86
template <weight_format F, bool Packed, std::size_t... I>
constexpr std::array<kernel_fn, MR> avx2_table(std::index_sequence<I...>) {
  return {&ukr_avx2<static_cast<int>(I) + 1, F, Packed>...};
}
#endif

// Kernel for `rows` (1..MR) rows of row-major activations and weights in format f.
kernel_fn pick(isa kernel, weight_format f, int rows) {
  using seq = std::make_index_sequence<MR>;
  static const std::array<std::array<kernel_fn, MR>, 3> generic = {generic_table<weight_format::f32, false>(seq{}),
                                                                   generic_table<weight_format::bf16, false>(seq{}),
                                                                   generic_table<weight_format::i8, false>(seq{})};
#if FLOPCAST_X86
  static const std::array<std::array<kernel_fn, MR>, 3> avx2 = {avx2_table<weight_format::f32, false>(seq{}),
                                                                avx2_table<weight_format::bf16, false>(seq{}),
                                                                avx2_table<weight_format::i8, false>(seq{})};
  if (kernel == isa::avx2_fma) return avx2[static_cast<std::size_t>(f)][static_cast<std::size_t>(rows - 1)];
#else
  (void)kernel;
#endif
  return generic[static_cast<std::size_t>(f)][static_cast<std::size_t>(rows - 1)];
}

// Kernel for `rows` rows of packed activations and an fp32 panel slice (prefill).
kernel_fn pick_packed(isa kernel, int rows) {
  using seq = std::make_index_sequence<MR>;
  static const std::array<kernel_fn, MR> generic = generic_table<weight_format::f32, true>(seq{});
#if FLOPCAST_X86
  static const std::array<kernel_fn, MR> avx2 = avx2_table<weight_format::f32, true>(seq{});
  if (kernel == isa::avx2_fma) return avx2[static_cast<std::size_t>(rows - 1)];
#else
  (void)kernel;
#endif
  return generic[static_cast<std::size_t>(rows - 1)];
}

// Per calling thread: the packed activations of the current prefill product, reused.
float* packing_buffer(std::size_t floats) {
  thread_local aligned_array<float> buffer;
  thread_local std::size_t capacity = 0;
  if (floats > capacity) {
    buffer = make_aligned<float>(floats);
    capacity = floats;
  }
  return buffer.get();
}

// Converts rows [k0, k0 + kc) of panel j to fp32 (int8 dequantised with its row scales).
void convert_slice(const packed_matrix& w, std::int64_t j, std::int64_t k0, std::int64_t kc, float* out) {
  const std::size_t n = static_cast<std::size_t>(kc) * panel_width;
  if (w.format() == weight_format::bf16) {
    const std::uint16_t* p = static_cast<const std::uint16_t*>(w.panel(j)) + k0 * panel_width;
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint32_t bits = static_cast<std::uint32_t>(p[i]) << 16;
      std::memcpy(&out[i], &bits, 4);
    }
  } else {
    const std::int8_t* p = static_cast<const std::int8_t*>(w.panel(j)) + k0 * panel_width;
    const float* s = w.scales() + j * panel_width;
    for (std::size_t i = 0; i < n; i += panel_width)
      for (std::size_t r = 0; r < panel_width; ++r) out[i + r] = static_cast<float>(p[i + r]) * s[r];
  }
}

}  // namespace

void gemm(thread_pool& pool, std::int64_t m, const float* a, std::int64_t lda, const packed_matrix& w, float* c,
          std::int64_t ldc, bool accumulate, work_tally* tally, isa kernel) {
  const std::int64_t N = w.rows(), K = w.cols(), panels = w.panels();
  if (tally) {
    tally->flops += 2.0 * static_cast<double>(m) * static_cast<double>(N) * static_cast<double>(K);
    tally->bytes += w.storage_bytes();
  }
  if (m <= 0 || N <= 0) return;
  if (K == 0) {
    if (!accumulate)
      for (std::int64_t i = 0; i < m; ++i) std::fill(c + i * ldc, c + i * ldc + N, 0.0f);
    return;
  }
  const weight_format f = w.format();
  // Small products run on the calling thread: waking the others costs more than they save.
  const double work = 2.0 * static_cast<double>(m) * static_cast<double>(N) * static_cast<double>(K);
  const int threads = work < serial_flops ? 1 : pool.size();
  const auto nvalid_of = [&](std::int64_t j) {
    return static_cast<int>(std::min<std::int64_t>(panel_width, N - j * panel_width));
  };
  const auto scale_of = [&](std::int64_t j) { return f == weight_format::i8 ? w.scales() + j * panel_width : nullptr; };

  if (m <= MR) {
    // Decode: each thread streams a contiguous range of panels once.
    const kernel_fn fn = pick(kernel, f, static_cast<int>(m));
    const int parts = static_cast<int>(std::min<std::int64_t>(threads, panels));
    const auto run = [&](std::int64_t part) {
      const auto [j0, j1] = thread_pool::split(panels, parts, static_cast<int>(part));
      for (std::int64_t j = j0; j < j1; ++j)
        fn(K, a, lda, w.panel(j), scale_of(j), c + j * panel_width, ldc, nvalid_of(j), accumulate);
    };
    if (parts == 1)
      run(0);
    else
      pool.parallel_for(parts, run);
    return;
  }

  // Prefill: pack the activations in MR-row blocks (a[k * MR + r], zero rows past m), then
  // blocks of MC rows x ranges of panels, spread over the threads.
  const std::int64_t row_blocks = (m + MR - 1) / MR;
  float* ap = packing_buffer(static_cast<std::size_t>(row_blocks * MR * K));
  const auto pack = [&](std::int64_t rb) {
    float* dst = ap + rb * MR * K;
    for (int r = 0; r < MR; ++r) {
      const std::int64_t i = rb * MR + r;
      if (i < m) {
        const float* src = a + i * lda;
        for (std::int64_t k = 0; k < K; ++k) dst[k * MR + r] = src[k];
      } else {
        for (std::int64_t k = 0; k < K; ++k) dst[k * MR + r] = 0.0f;
      }
    }
  };
  if (threads == 1)
    for (std::int64_t rb = 0; rb < row_blocks; ++rb) pack(rb);
  else
    pool.parallel_for(row_blocks, pack);

  constexpr std::int64_t MCB = MC / MR;  // row blocks per MC block
  const std::int64_t mblocks = (row_blocks + MCB - 1) / MCB;
  const int parts = static_cast<int>(std::min<std::int64_t>(panels, threads));
  const kernel_fn full = pick_packed(kernel, MR);
  const std::int64_t tasks = mblocks * parts;
  const auto run = [&](std::int64_t task) {
    const std::int64_t ib = task / parts;
    const auto [j0, j1] = thread_pool::split(panels, parts, static_cast<int>(task % parts));
    const std::int64_t rb0 = ib * MCB, rb1 = std::min(row_blocks, rb0 + MCB);
    alignas(64) float slice[KC * panel_width];
    // Chunks of NCP panels: the chunk's C block (MC x 16 NCP) stays in L2 across the K slices.
    for (std::int64_t jc = j0; jc < j1; jc += NCP)
      for (std::int64_t k0 = 0; k0 < K; k0 += KC) {
        const std::int64_t kc = std::min(KC, K - k0);
        const bool acc = accumulate || k0 > 0;
        for (std::int64_t j = jc; j < std::min(j1, jc + NCP); ++j) {
          const float* b = nullptr;
          if (f == weight_format::f32) {
            b = static_cast<const float*>(w.panel(j)) + k0 * panel_width;
          } else {
            convert_slice(w, j, k0, kc, slice);
            b = slice;
          }
          const int nvalid = nvalid_of(j);
          float* cj = c + j * panel_width;
          for (std::int64_t rb = rb0; rb < rb1; ++rb) {
            const std::int64_t i = rb * MR, rows = std::min<std::int64_t>(MR, m - i);
            const float* a_blk = ap + rb * MR * K + k0 * MR;
            const kernel_fn fn = rows == MR ? full : pick_packed(kernel, static_cast<int>(rows));
            fn(kc, a_blk, MR, b, nullptr, cj + i * ldc, ldc, nvalid, acc);
          }
        }
      }
  };
  if (threads == 1)
    for (std::int64_t t = 0; t < tasks; ++t) run(t);
  else
    pool.parallel_for(tasks, run);
}

}  // namespace flopcast::measure
