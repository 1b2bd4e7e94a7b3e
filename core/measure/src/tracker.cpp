#include "flopcast/measure/tracker.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "flopcast/base/error.hpp"

namespace flopcast::measure {

double percentile(const std::vector<double>& sorted, double q) noexcept {
  if (sorted.empty()) return 0;
  const double pos = std::clamp(q, 0.0, 100.0) / 100.0 * static_cast<double>(sorted.size() - 1);
  const std::size_t lo = static_cast<std::size_t>(std::floor(pos));
  const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  const double frac = pos - static_cast<double>(lo);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * frac;
}

latency_stats summarize(std::vector<double> latencies_s, const std::vector<std::int64_t>& tokens) {
  latency_stats s;
  const std::size_t n = latencies_s.size();
  s.samples = static_cast<std::int64_t>(n);
  s.total_samples = s.samples;
  if (n == 0) return s;
  s.window_s = std::accumulate(latencies_s.begin(), latencies_s.end(), 0.0);
  s.mean_s = s.window_s / static_cast<double>(n);
  double ss = 0;
  for (double v : latencies_s) ss += (v - s.mean_s) * (v - s.mean_s);
  s.stddev_s = n > 1 ? std::sqrt(ss / static_cast<double>(n - 1)) : 0.0;
  std::sort(latencies_s.begin(), latencies_s.end());
  s.min_s = latencies_s.front();
  s.max_s = latencies_s.back();
  s.p50_s = percentile(latencies_s, 50);
  s.p90_s = percentile(latencies_s, 90);
  s.p95_s = percentile(latencies_s, 95);
  s.p99_s = percentile(latencies_s, 99);
  s.window_tokens = std::accumulate(tokens.begin(), tokens.end(), std::int64_t{0});
  s.tokens_per_s = s.window_s > 0 ? static_cast<double>(s.window_tokens) / s.window_s : 0.0;
  s.total_tokens = s.window_tokens;
  s.total_s = s.window_s;
  return s;
}

latency_tracker::latency_tracker(std::size_t window) {
  if (window < 1)
    throw error(error_code::invalid_argument, "/window", "expected a window of at least 1 sample, but got 0");
  latency_.assign(window, 0.0);
  tokens_.assign(window, 0);
}

std::vector<double> latency_tracker::samples() const {
  std::vector<double> out;
  out.reserve(size_);
  const std::size_t start = size_ < latency_.size() ? 0 : head_;
  for (std::size_t i = 0; i < size_; ++i) out.push_back(latency_[(start + i) % latency_.size()]);
  return out;
}

std::vector<std::int64_t> latency_tracker::sample_tokens() const {
  std::vector<std::int64_t> out;
  out.reserve(size_);
  const std::size_t start = size_ < tokens_.size() ? 0 : head_;
  for (std::size_t i = 0; i < size_; ++i) out.push_back(tokens_[(start + i) % tokens_.size()]);
  return out;
}

latency_stats latency_tracker::stats() const {
  latency_stats s = summarize(samples(), sample_tokens());
  s.total_samples = total_samples_;
  s.total_tokens = total_tokens_;
  s.total_s = total_s_;
  return s;
}

void latency_tracker::reset() noexcept {
  head_ = size_ = 0;
  total_samples_ = total_tokens_ = 0;
  total_s_ = 0;
}

void latency_tracker::merge(const latency_tracker& other) {
  const auto lat = other.samples();
  const auto tok = other.sample_tokens();
  const std::int64_t samples = total_samples_ + other.total_samples_, tokens = total_tokens_ + other.total_tokens_;
  const double total = total_s_ + other.total_s_;
  for (std::size_t i = 0; i < lat.size(); ++i) record(lat[i], tok[i]);
  total_samples_ = samples;
  total_tokens_ = tokens;
  total_s_ = total;
}

}  // namespace flopcast::measure
