#pragma once
// Latency tracking for anyone's inference code.
//
//   flopcast::measure::latency_tracker t(4096);          // keep the last 4096 samples
//   { auto s = t.time(tokens); run_step(); }               // or t.record(elapsed, tokens)
//   const auto st = t.stats();                             // mean, p50..p99, tokens/s
//
// record() is a few nanoseconds (a ring-buffer store and two additions): cheap enough to
// call per token. Statistics are computed on demand over the window; totals (samples,
// tokens, time) cover everything ever recorded. Not thread-safe: one tracker per thread,
// or merge() them.
#include <chrono>
#include <cstdint>
#include <vector>

namespace flopcast::measure {

using clock_type = std::chrono::steady_clock;

// Seconds between two clock points.
[[nodiscard]] inline double seconds(clock_type::time_point a, clock_type::time_point b) noexcept {
  return std::chrono::duration<double>(b - a).count();
}

// Summary of a set of latencies (seconds). Percentiles interpolate linearly between the
// two nearest ranks (numpy's default). All zero when there are no samples.
struct latency_stats {
  std::int64_t samples = 0;  // in the window
  double mean_s = 0;
  double stddev_s = 0;  // sample standard deviation (n - 1); 0 for one sample
  double min_s = 0, max_s = 0;
  double p50_s = 0, p90_s = 0, p95_s = 0, p99_s = 0;
  double window_s = 0;  // sum of the window's latencies
  std::int64_t window_tokens = 0;
  double tokens_per_s = 0;  // window_tokens / window_s
  // Everything ever recorded (the window may have dropped old samples).
  std::int64_t total_samples = 0;
  std::int64_t total_tokens = 0;
  double total_s = 0;
};

// Percentile q in [0, 100] of `sorted` (ascending), linear interpolation.
[[nodiscard]] double percentile(const std::vector<double>& sorted, double q) noexcept;
// Statistics of a list of latencies (seconds) with their token counts (may be empty: no tokens).
[[nodiscard]] latency_stats summarize(std::vector<double> latencies_s, const std::vector<std::int64_t>& tokens = {});

class latency_tracker {
 public:
  // Keeps at most `window` samples (>= 1); older ones fall out of the statistics but stay
  // in the totals.
  explicit latency_tracker(std::size_t window = 1024);

  void record(double elapsed_s, std::int64_t tokens = 1) noexcept {
    const std::size_t i = head_;
    latency_[i] = elapsed_s;
    tokens_[i] = tokens;
    head_ = i + 1 == latency_.size() ? 0 : i + 1;
    if (size_ < latency_.size()) ++size_;
    ++total_samples_;
    total_tokens_ += tokens;
    total_s_ += elapsed_s;
  }
  template <class Rep, class Period>
  void record(std::chrono::duration<Rep, Period> elapsed, std::int64_t tokens = 1) noexcept {
    record(std::chrono::duration<double>(elapsed).count(), tokens);
  }

  // Times a block: records on destruction unless cancelled.
  class scope {
   public:
    scope(latency_tracker& t, std::int64_t tokens) noexcept : t_(&t), tokens_(tokens), start_(clock_type::now()) {}
    scope(scope&& o) noexcept : t_(o.t_), tokens_(o.tokens_), start_(o.start_) { o.t_ = nullptr; }
    scope(const scope&) = delete;
    scope& operator=(const scope&) = delete;
    scope& operator=(scope&&) = delete;
    ~scope() { stop(); }
    void set_tokens(std::int64_t tokens) noexcept { tokens_ = tokens; }
    void cancel() noexcept { t_ = nullptr; }
    // Records now (once); returns the elapsed seconds.
    double stop() noexcept {
      if (!t_) return 0;
      const double s = seconds(start_, clock_type::now());
      t_->record(s, tokens_);
      t_ = nullptr;
      return s;
    }

   private:
    latency_tracker* t_;
    std::int64_t tokens_;
    clock_type::time_point start_;
  };
  [[nodiscard]] scope time(std::int64_t tokens = 1) noexcept { return scope(*this, tokens); }

  [[nodiscard]] latency_stats stats() const;
  // The window's latencies, oldest first.
  [[nodiscard]] std::vector<double> samples() const;
  [[nodiscard]] std::vector<std::int64_t> sample_tokens() const;
  [[nodiscard]] std::size_t window() const noexcept { return latency_.size(); }
  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  [[nodiscard]] std::int64_t total_samples() const noexcept { return total_samples_; }
  [[nodiscard]] std::int64_t total_tokens() const noexcept { return total_tokens_; }
  [[nodiscard]] double total_s() const noexcept { return total_s_; }
  void reset() noexcept;
  // Appends another tracker's window (oldest first) and totals.
  void merge(const latency_tracker& other);

 private:
  std::vector<double> latency_;
  std::vector<std::int64_t> tokens_;
  std::size_t head_ = 0, size_ = 0;
  std::int64_t total_samples_ = 0, total_tokens_ = 0;
  double total_s_ = 0;
};

}  // namespace flopcast::measure
