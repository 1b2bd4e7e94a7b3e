#pragma once
// What the simulator shares with the disaggregated simulation (disaggregated.cpp): the random
// stream that draws arrivals and lengths (both draw the same requests from the same seed), the
// summary of a distribution and the end-to-end statistics of finished requests.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <utility>
#include <vector>

#include "base/detail.hpp"
#include "flopcast/serving/simulator.hpp"

namespace flopcast::detail {

// The longest prompt and the longest request (prompt + output) of a generated workload
// (simulator.cpp; the work bound takes every request at these).
std::pair<std::int64_t, std::int64_t> longest_request(const simulation_settings& s);

// Deterministic on every platform: the raw 64-bit stream of mt19937_64 (fixed by the standard)
// mapped by our own arithmetic (the standard distributions are implementation-defined).
struct rng {
  std::mt19937_64 gen;
  explicit rng(std::uint64_t seed) : gen(seed) {}
  double uniform01() { return static_cast<double>(gen() >> 11) * 0x1.0p-53; }  // [0, 1)
  double exponential(double rate) { return -std::log1p(-uniform01()) / rate; }
  std::int64_t uniform_int(std::int64_t lo, std::int64_t hi) {  // [lo, hi]
    const std::uint64_t span = static_cast<std::uint64_t>(hi - lo) + 1;
    if (span == 0) return lo;
    const std::uint64_t limit =
        std::numeric_limits<std::uint64_t>::max() - std::numeric_limits<std::uint64_t>::max() % span;
    std::uint64_t x = gen();
    while (x >= limit) x = gen();
    return lo + static_cast<std::int64_t>(x % span);
  }
};

// Percentiles by linear interpolation between ranks; sorts v.
inline double percentile_sorted(const std::vector<double>& v, double q) {
  if (v.empty()) return 0;
  const double pos = q * d(static_cast<std::int64_t>(v.size()) - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const std::size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (pos - d(static_cast<std::int64_t>(lo)));
}

inline distribution summarize(std::vector<double>& v) {
  distribution out;
  if (v.empty()) return out;
  std::sort(v.begin(), v.end());
  out.count = static_cast<std::int64_t>(v.size());
  double sum = 0;
  for (const double x : v) sum += x;
  out.mean = sum / d(out.count);
  out.min = v.front();
  out.max = v.back();
  out.p50 = percentile_sorted(v, 0.5);
  out.p90 = percentile_sorted(v, 0.9);
  out.p99 = percentile_sorted(v, 0.99);
  return out;
}

// simulate()'s end-to-end statistics of finished requests: add() the measured ones, then
// into() fills measured_requests, the TTFT, TPOT and E2E distributions, goodput under the SLOs
// and the rates over the measured window (first measured arrival to last measured finish).
class request_statistics {
 public:
  request_statistics(const simulation_settings& s, std::size_t n) : s_(s) {
    ttft_.reserve(n);
    tpot_.reserve(n);
    e2e_.reserve(n);
  }
  void add(double arrival, double first_token, double finish, std::int64_t input, std::int64_t output) {
    ++measured_;
    const double ft = first_token - arrival;
    const double per_token = output > 1 ? (finish - first_token) / d(output - 1) : 0.0;
    ttft_.push_back(ft);
    e2e_.push_back(finish - arrival);
    if (output > 1) tpot_.push_back(per_token);
    first_arrival_ = std::min(first_arrival_, arrival);
    last_finish_ = std::max(last_finish_, finish);
    out_tokens_ += d(output);
    in_tokens_ += d(input);
    if ((!s_.slo_ttft_s || ft <= *s_.slo_ttft_s) && (!s_.slo_tpot_s || per_token <= *s_.slo_tpot_s)) ++goodput_;
  }
  void into(simulation_result& out) {
    out.measured_requests = measured_;
    out.goodput_requests = goodput_;
    if (measured_ > 0) {
      out.window_s = last_finish_ - first_arrival_;
      if (out.window_s > 0) {
        out.output_tokens_per_s = out_tokens_ / out.window_s;
        out.total_tokens_per_s = (out_tokens_ + in_tokens_) / out.window_s;
        out.requests_per_s = d(measured_) / out.window_s;
        out.goodput_requests_per_s = d(goodput_) / out.window_s;
      }
    }
    out.ttft = summarize(ttft_);
    out.tpot = summarize(tpot_);
    out.e2e = summarize(e2e_);
  }

 private:
  const simulation_settings& s_;
  std::vector<double> ttft_, tpot_, e2e_;
  double first_arrival_ = std::numeric_limits<double>::infinity(), last_finish_ = 0, out_tokens_ = 0, in_tokens_ = 0;
  std::int64_t measured_ = 0, goodput_ = 0;
};

}  // namespace flopcast::detail
