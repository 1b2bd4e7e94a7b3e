// Length presets (data/workloads.json gives the sources; tests/cpp/test_prefix_cache.cpp checks
// that this table and the file agree) and their sampling.
#include "flopcast/serving/workload.hpp"

#include <algorithm>
#include <cmath>

namespace flopcast {
namespace {

// A log-normal with the published mean and an ESTIMATED shape sigma: median = mean x
// exp(-sigma^2 / 2), so the mean before clipping is the published one.
lognormal_lengths fitted(double mean, double sigma, std::int64_t lo, std::int64_t hi) {
  return {std::log(mean) - sigma * sigma / 2, sigma, lo, hi};
}

}  // namespace

const std::vector<length_preset>& length_presets() {
  static const std::vector<length_preset> presets = {
      // Kwon et al., "Efficient Memory Management for Large Language Model Serving with
      // PagedAttention" (SOSP 2023, arXiv:2309.06180) section 6.1: ShareGPT has 161.31 input and
      // 337.99 output tokens on average; vLLM's benchmark keeps prompts and outputs of at least 4
      // tokens, prompts of at most 1024 and prompt + output at most 2048
      // (benchmarks/benchmark_dataset.py is_valid_sequence). Sigma 1.0: ESTIMATED.
      {"sharegpt", "ShareGPT as vLLM's benchmark samples it (means from the vLLM paper)", fitted(161.31, 1.0, 4, 1024),
       fitted(337.99, 1.0, 4, 2044), 2048},
      // The same paper: Alpaca has 19.31 input and 58.45 output tokens on average. Sigma 0.5: ESTIMATED.
      {"alpaca", "Alpaca instructions (means from the vLLM paper)", fitted(19.31, 0.5, 1, 1024),
       fitted(58.45, 0.5, 1, 1024), 0},
  };
  return presets;
}

const length_preset* find_length_preset(std::string_view name) {
  for (const length_preset& p : length_presets())
    if (p.name == name) return &p;
  return nullptr;
}

std::int64_t lognormal_length(const lognormal_lengths& d, double u1, double u2) {
  // Box-Muller with u1 in (0, 1]: our own arithmetic, the same on every platform.
  const double z = std::sqrt(-2.0 * std::log(1.0 - u1)) * std::cos(6.283185307179586 * u2);
  const double x = std::exp(d.mu + d.sigma * z);
  if (!(x < static_cast<double>(d.max))) return d.max;
  return std::clamp(static_cast<std::int64_t>(std::llround(x)), d.min, d.max);
}

}  // namespace flopcast
