#include "flopcast/measure/machine.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <optional>
#include <sstream>
#include <vector>

#include "flopcast/measure/energy.hpp"
#include "flopcast/measure/kernels.hpp"
#include "flopcast/measure/tracker.hpp"

#if defined(__x86_64__)
#include <immintrin.h>
#define FLOPCAST_X86 1
#else
#define FLOPCAST_X86 0
#endif

namespace flopcast::measure {

std::string cpu_model_name() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) {
        std::string v = line.substr(colon + 1);
        v.erase(0, v.find_first_not_of(" \t"));
        return v;
      }
    }
  return "unknown CPU";
}

double total_memory_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
  return pages > 0 && size > 0 ? static_cast<double>(pages) * static_cast<double>(size) : 0;
}

namespace {
// A number from a one-line file; empty when absent or not a number ("max").
std::optional<double> read_number(const char* path) {
  std::ifstream in(path);
  double v = 0;
  if (in >> v) return v;
  return std::nullopt;
}
}  // namespace

double available_memory_bytes() {
  double available = 0;
  {
    std::ifstream in("/proc/meminfo");
    std::string key, unit;
    double kb = 0;
    while (in >> key >> kb >> unit)
      if (key == "MemAvailable:") {
        available = kb * 1024.0;
        break;
      }
  }
  if (available <= 0) {
    const long pages = sysconf(_SC_AVPHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    available = pages > 0 && size > 0 ? static_cast<double>(pages) * static_cast<double>(size) : 0;
  }
  // A container's memory limit (cgroup v2, then v1) can be tighter than the host's.
  const auto limit_v2 = read_number("/sys/fs/cgroup/memory.max");
  const auto used_v2 = read_number("/sys/fs/cgroup/memory.current");
  if (limit_v2 && used_v2 && *limit_v2 > *used_v2) available = std::min(available, *limit_v2 - *used_v2);
  const auto limit_v1 = read_number("/sys/fs/cgroup/memory/memory.limit_in_bytes");
  const auto used_v1 = read_number("/sys/fs/cgroup/memory/memory.usage_in_bytes");
  if (limit_v1 && used_v1 && *limit_v1 < 1e18 && *limit_v1 > *used_v1)
    available = std::min(available, *limit_v1 - *used_v1);
  return available;
}

double last_level_cache_bytes() {
  // sysfs describes the cache this CPU's core sees; glibc's sysconf may sum slices.
  double best = 0;
  for (int index = 0; index < 8; ++index) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index);
    std::ifstream size_in(dir + "/size");
    std::string size;
    if (!(size_in >> size)) continue;
    double v = std::atof(size.c_str());
    if (!size.empty() && (size.back() == 'K' || size.back() == 'k')) v *= 1024;
    if (!size.empty() && (size.back() == 'M' || size.back() == 'm')) v *= 1024 * 1024;
    best = std::max(best, v);
  }
  if (best > 0) return best;
#ifdef _SC_LEVEL3_CACHE_SIZE
  const long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
  if (l3 > 0) return static_cast<double>(l3);
#endif
  return 0;
}

double machine_peaks::bandwidth_bytes_per_s() const noexcept {
  return std::max({stream.copy, stream.scale, stream.add, stream.triad, stream.read});
}

namespace {

// --- STREAM ------------------------------------------------------------------------------

stream_figures run_stream(thread_pool& pool, std::int64_t elements, int repetitions) {
  const int T = pool.size();
  auto a = make_aligned<double>(static_cast<std::size_t>(elements));
  auto b = make_aligned<double>(static_cast<std::size_t>(elements));
  auto c = make_aligned<double>(static_cast<std::size_t>(elements));
  // First touch by the thread that will use each slice.
  pool.run_on_all([&](int t) {
    const auto [lo, hi] = thread_pool::split(elements, T, t);
    for (std::int64_t i = lo; i < hi; ++i) {
      a[i] = 1.0;
      b[i] = 2.0;
      c[i] = 0.0;
    }
  });
  std::vector<double> partial(static_cast<std::size_t>(T) * 8, 0.0);
  const double s = 3.0;
  double* A = a.get();
  double* Bp = b.get();
  double* C = c.get();
  const auto timed = [&](auto&& body) {
    double best = 1e300;
    for (int r = 0; r <= repetitions; ++r) {
      const auto t0 = clock_type::now();
      pool.run_on_all([&](int t) {
        const auto [lo, hi] = thread_pool::split(elements, T, t);
        body(t, lo, hi);
      });
      const double dt = seconds(t0, clock_type::now());
      if (r > 0) best = std::min(best, dt);  // the first run warms up
    }
    return best;
  };
  const double n = static_cast<double>(elements);
  stream_figures f;
  f.array_bytes = elements * 8;
  f.repetitions = repetitions;
  f.copy = 16 * n / timed([&](int, std::int64_t lo, std::int64_t hi) {
             for (std::int64_t i = lo; i < hi; ++i) C[i] = A[i];
           });
  f.scale = 16 * n / timed([&](int, std::int64_t lo, std::int64_t hi) {
              for (std::int64_t i = lo; i < hi; ++i) Bp[i] = s * C[i];
            });
  f.add = 24 * n / timed([&](int, std::int64_t lo, std::int64_t hi) {
            for (std::int64_t i = lo; i < hi; ++i) C[i] = A[i] + Bp[i];
          });
  f.triad = 24 * n / timed([&](int, std::int64_t lo, std::int64_t hi) {
              for (std::int64_t i = lo; i < hi; ++i) A[i] = Bp[i] + s * C[i];
            });
  f.read = 8 * n / timed([&](int t, std::int64_t lo, std::int64_t hi) {
             double acc[8] = {};
             std::int64_t i = lo;
             for (; i + 8 <= hi; i += 8)
               for (int j = 0; j < 8; ++j) acc[j] += A[i + j];
             for (; i < hi; ++i) acc[0] += A[i];
             for (int j = 0; j < 8; ++j) partial[static_cast<std::size_t>(t) * 8 + j] = acc[j];
           });
  return f;
}

// --- register-only peaks -------------------------------------------------------------------

#if FLOPCAST_X86
__attribute__((target("avx2,fma"))) double fma_f32_loop(std::int64_t iters) {
  __m256 acc[12];
  for (int i = 0; i < 12; ++i) acc[i] = _mm256_set1_ps(static_cast<float>(i) * 0.001f);
  const __m256 x = _mm256_set1_ps(0.999999f), y = _mm256_set1_ps(1e-7f);
  for (std::int64_t it = 0; it < iters; ++it) {
#pragma GCC unroll 12
    for (int i = 0; i < 12; ++i) acc[i] = _mm256_fmadd_ps(acc[i], x, y);
  }
  __m256 s = acc[0];
  for (int i = 1; i < 12; ++i) s = _mm256_add_ps(s, acc[i]);
  alignas(32) float out[8];
  _mm256_store_ps(out, s);
  return out[0];
}

__attribute__((target("avx2,fma"))) double fma_f64_loop(std::int64_t iters) {
  __m256d acc[12];
  for (int i = 0; i < 12; ++i) acc[i] = _mm256_set1_pd(i * 0.001);
  const __m256d x = _mm256_set1_pd(0.999999), y = _mm256_set1_pd(1e-7);
  for (std::int64_t it = 0; it < iters; ++it) {
#pragma GCC unroll 12
    for (int i = 0; i < 12; ++i) acc[i] = _mm256_fmadd_pd(acc[i], x, y);
  }
  __m256d s = acc[0];
  for (int i = 1; i < 12; ++i) s = _mm256_add_pd(s, acc[i]);
  alignas(32) double out[4];
  _mm256_store_pd(out, s);
  return out[0];
}

// Each step: vpmaddubsw (32 u8 x s8 products, pairwise sums) + vpmaddwd + vpaddd.
__attribute__((target("avx2"))) double int8_loop(std::int64_t iters) {
  __m256i acc[8];
  __m256i a[8];
  for (int i = 0; i < 8; ++i) {
    acc[i] = _mm256_setzero_si256();
    a[i] = _mm256_set1_epi8(static_cast<char>(i + 1));
  }
  const __m256i b = _mm256_set1_epi8(3), ones = _mm256_set1_epi16(1);
  for (std::int64_t it = 0; it < iters; ++it) {
#pragma GCC unroll 8
    for (int i = 0; i < 8; ++i)
      acc[i] = _mm256_add_epi32(acc[i], _mm256_madd_epi16(_mm256_maddubs_epi16(a[i], b), ones));
  }
  __m256i s = acc[0];
  for (int i = 1; i < 8; ++i) s = _mm256_add_epi32(s, acc[i]);
  return static_cast<double>(_mm256_extract_epi32(s, 0));
}
#endif

// Baseline: SSE2 multiply + add (2 FLOPs per lane per pair), 8 chains.
double sse_f32_loop(std::int64_t iters) {
#if FLOPCAST_X86
  __m128 acc[8];
  for (int i = 0; i < 8; ++i) acc[i] = _mm_set1_ps(static_cast<float>(i) * 0.001f);
  const __m128 x = _mm_set1_ps(0.999999f), y = _mm_set1_ps(1e-7f);
  for (std::int64_t it = 0; it < iters; ++it) {
#pragma GCC unroll 8
    for (int i = 0; i < 8; ++i) acc[i] = _mm_add_ps(_mm_mul_ps(acc[i], x), y);
  }
  __m128 s = acc[0];
  for (int i = 1; i < 8; ++i) s = _mm_add_ps(s, acc[i]);
  return static_cast<double>(_mm_cvtss_f32(s));
#else
  float acc[32] = {};
  for (std::int64_t it = 0; it < iters; ++it)
    for (int i = 0; i < 32; ++i) acc[i] = acc[i] * 0.999999f + 1e-7f;
  float s = 0;
  for (float v : acc) s += v;
  return s;
#endif
}

// Ops per second of loop(iters) run on every thread at once.
template <class Loop>
double all_threads_rate(thread_pool& pool, Loop loop, std::int64_t iters, double ops_per_iter) {
  volatile double sink = 0;
  (void)loop(iters / 10);  // warm-up (clocks up)
  double best = 1e300;
  for (int r = 0; r < 4; ++r) {
    std::vector<double> out(static_cast<std::size_t>(pool.size()));
    const auto t0 = clock_type::now();
    pool.run_on_all([&](int t) { out[static_cast<std::size_t>(t)] = loop(iters); });
    best = std::min(best, seconds(t0, clock_type::now()));
    for (double v : out) sink = sink + v;
  }
  return static_cast<double>(pool.size()) * static_cast<double>(iters) * ops_per_iter / best;
}

}  // namespace

machine_peaks measure_machine(thread_pool& pool, const machine_options& o) {
  const auto start = clock_type::now();
  machine_peaks p;
  p.cpu_model = cpu_model_name();
  const isa kernels = best_isa();
  p.isa = std::string(to_string(kernels));
  p.threads = pool.size();
  p.memory_total_bytes = total_memory_bytes();
  p.memory_available_bytes = available_memory_bytes();
  p.llc_bytes = last_level_cache_bytes();
  const energy_meter energy;
  p.rapl = energy.available();
  p.rapl_note = p.rapl ? "RAPL package energy counters readable" : energy.reason();

  // STREAM: each array at least 4x the last-level cache (2x when quick), so that the
  // caches cannot hold them.
  const double llc = p.llc_bytes > 0 ? p.llc_bytes : 32.0 * 1024 * 1024;
  double array_bytes = std::max(o.quick ? 2 * llc : 4 * llc, o.quick ? 32.0 * 1024 * 1024 : 128.0 * 1024 * 1024);
  if (p.memory_available_bytes > 0) array_bytes = std::min(array_bytes, p.memory_available_bytes / 8);
  p.stream = run_stream(pool, static_cast<std::int64_t>(array_bytes / 8), o.quick ? 2 : 10);

  // GEMM peak: the decoder's kernel on square fp32 matrices.
  {
    const std::int64_t n = o.quick ? 384 : 1024;
    p.gemm_size = n;
    std::vector<float> a(static_cast<std::size_t>(n * n)), c(static_cast<std::size_t>(n * n));
    for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>((i * 7919) % 1000) * 1e-3f - 0.5f;
    const packed_matrix w = packed_matrix::build(n, n, weight_format::f32, pool, [&](std::int64_t row, float* out) {
      for (std::int64_t k = 0; k < n; ++k) out[k] = static_cast<float>((row * 31 + k * 17) % 97) * 1e-2f - 0.48f;
    });
    gemm(pool, n, a.data(), n, w, c.data(), n);  // warm-up
    double best = 1e300;
    // Short products, several times: the best one is the peak (a busy neighbour spoils some).
    for (int r = 0; r < (o.quick ? 2 : 8); ++r) {
      const auto t0 = clock_type::now();
      gemm(pool, n, a.data(), n, w, c.data(), n);
      best = std::min(best, seconds(t0, clock_type::now()));
    }
    p.gemm_fp32_flops_per_s = 2.0 * static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(n) / best;
  }

  // Register-only peaks (about 20 ms each; 5 ms when quick).
  const std::int64_t iters = o.quick ? 1'000'000 : 4'000'000;
#if FLOPCAST_X86
  if (kernels == isa::avx2_fma) {
    p.fma_fp32_flops_per_s = all_threads_rate(pool, fma_f32_loop, iters, 12 * 8 * 2);
    p.fma_fp64_flops_per_s = all_threads_rate(pool, fma_f64_loop, iters, 12 * 4 * 2);
    p.int8_dot_ops_per_s = all_threads_rate(pool, int8_loop, iters, 8 * 32 * 2);
  } else {
    p.fma_fp32_flops_per_s = all_threads_rate(pool, sse_f32_loop, iters, 8 * 4 * 2);
  }
#else
  p.fma_fp32_flops_per_s = all_threads_rate(pool, sse_f32_loop, iters, 32 * 2);
#endif
  p.elapsed_s = seconds(start, clock_type::now());
  return p;
}

hardware_spec to_hardware_spec(const machine_peaks& p) {
  hardware_spec h;
  h.name = "this-cpu";
  h.vendor = p.cpu_model;
  h.memory_bytes = p.memory_total_bytes;
  h.memory_bandwidth_bytes_per_s = p.bandwidth_bytes_per_s();
  h.peak_flops_per_s[static_cast<std::size_t>(precision::fp32)] = p.gemm_fp32_flops_per_s;
  h.tdp_watts = placeholder_watts_per_thread * p.threads;
  h.cost_per_hour_usd = 0;
  std::ostringstream note;
  note << "measured by flopcast measure on " << p.cpu_model << " with " << p.threads << " threads (" << p.isa
       << "): bandwidth = best STREAM-style kernel (incl. read-only), fp32 peak = GEMM " << p.gemm_size
       << "^3; tdp_watts is a placeholder (" << placeholder_watts_per_thread << " W per thread), not measured";
  h.source_note = note.str();
  return h;
}

}  // namespace flopcast::measure
