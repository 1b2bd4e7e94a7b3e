#pragma once
// Machine microbenchmarks: sustained memory bandwidth (STREAM-style copy, scale, add,
// triad, and a read-only sum), the fp32 GEMM peak of the measurement kernels
// (multithreaded), and register-only peaks of what else the CPU offers (fp32 and fp64 FMA,
// int8 dot products). The result becomes a hardware_spec that estimate() accepts like any
// GPU ("this-cpu").
#include <cstdint>
#include <string>

#include "flopcast/hardware/hardware.hpp"
#include "flopcast/measure/figure.hpp"
#include "flopcast/measure/thread_pool.hpp"

namespace flopcast::measure {

// Bytes per second, STREAM's counting (copy and scale move 16 bytes per element, add and
// triad 24; no write-allocate traffic counted); the best of the timed repetitions.
struct stream_figures {
  double copy = 0, scale = 0, add = 0, triad = 0;
  double read = 0;               // sum of one array: 8 bytes per element, no writes
  std::int64_t array_bytes = 0;  // each of the three arrays
  int repetitions = 0;           // timed, after one warm-up
};

struct machine_peaks {
  std::string cpu_model;  // /proc/cpuinfo "model name"
  std::string isa;        // kernels in use: "avx2+fma" or "generic (sse2)"
  int threads = 1;
  double memory_total_bytes = 0;      // physical RAM (sysconf)
  double memory_available_bytes = 0;  // MemAvailable (/proc/meminfo), within a cgroup limit
  double llc_bytes = 0;               // last-level cache, 0 if unknown
  stream_figures stream;
  double gemm_fp32_flops_per_s = 0;  // the decoder's GEMM on square fp32 matrices
  std::int64_t gemm_size = 0;        // M = N = K
  double fma_fp32_flops_per_s = 0;   // register-only FMA loop, all threads
  double fma_fp64_flops_per_s = 0;   // 0 when not measured (no AVX2/FMA)
  double int8_dot_ops_per_s = 0;     // AVX2 u8 x s8 multiply-adds (2 ops each); 0 when not measured
  bool rapl = false;                 // energy counters readable
  std::string rapl_note;
  double elapsed_s = 0;  // time the microbenchmarks took

  // The sustained bandwidth the estimator uses: the best of the five kernels (copy, scale,
  // add, triad, read-only). Decode streams weights (reads), so the read-only kernel counts;
  // on a virtual machine the figures also drift between runs, and the best is the ceiling.
  [[nodiscard]] double bandwidth_bytes_per_s() const noexcept;
};

struct machine_options {
  bool quick = false;  // smaller arrays and matrices, fewer repetitions (tests)
};

[[nodiscard]] machine_peaks measure_machine(thread_pool& pool, const machine_options& o = {});

// The placeholder TDP the estimator needs for energy (it cannot be read on a CPU): 10 W per
// thread used. Energy computed from it is ESTIMATED with that caveat, never MEASURED.
inline constexpr double placeholder_watts_per_thread = 10.0;

// "this-cpu": memory_bytes = physical RAM, bandwidth = bandwidth_bytes_per_s(), peak fp32 =
// the GEMM peak (the only precision the kernels compute in: bf16 and int8 weights are
// converted to fp32, so the estimator falls back to fp32 for them and says so), TDP =
// the placeholder, cost 0.
[[nodiscard]] hardware_spec to_hardware_spec(const machine_peaks& p);

// Host facts (no benchmarks).
[[nodiscard]] std::string cpu_model_name();
[[nodiscard]] double total_memory_bytes();
[[nodiscard]] double available_memory_bytes();
[[nodiscard]] double last_level_cache_bytes();

}  // namespace flopcast::measure
