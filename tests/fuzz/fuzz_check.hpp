#pragma once
// Shared by the fuzz targets (tests/fuzz/fuzz_*.cpp). A target catches flopcast::error (the
// one way to reject input) and lets everything else escape: another exception type, a crash,
// a sanitizer report, an abort, a hang. The checks below turn a wrong result into an abort.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "flopcast/flopcast.hpp"

namespace fuzz {

inline std::string_view text_of(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// A result figure that is NaN or infinite is a bug: abort, naming it.
inline void finite(double v, const char* what) {
  if (!std::isfinite(v)) {
    std::fprintf(stderr, "fuzz: non-finite result %s = %g\n", what, v);
    std::abort();
  }
}

// The headline figures of an estimate with a GPU.
inline void check_estimate(const flopcast::estimate_result& r) {
  finite(r.forward.parts.total, "forward.parts.total");
  finite(r.memory.weights, "memory.weights");
  finite(r.memory.kv_cache, "memory.kv_cache");
  finite(r.memory.total, "memory.total");
  if (!r.has_performance) return;
  finite(r.perf.prefill_latency_s, "perf.prefill_latency_s");
  finite(r.perf.decode_latency_per_token_s, "perf.decode_latency_per_token_s");
  finite(r.perf.decode_tokens_per_second, "perf.decode_tokens_per_second");
  finite(r.perf.total_request_latency_s, "perf.total_request_latency_s");
  finite(r.perf.energy_total_joules, "perf.energy_total_joules");
  finite(r.perf.cost_usd, "perf.cost_usd");
}

}  // namespace fuzz
