#pragma once
// A KV-cache profiler that wraps any cache with append and attend operations and records,
// per layer: call counts, time per call, peak bytes and the compression ratio against an
// fp16 cache of the same shape.
//
//   my_cache cache;                                       // anything with append(...),
//   kv_cache_profiler<my_cache> p(cache, fp16_bytes_per_token, /*layer=*/0);  // attend(...), memory_bytes()
//   p.append(k, v);        // forwards the arguments, times the call
//   auto out = p.attend(q);
//   kv_profile_report rep{{p.profile()}, elapsed_s};
//   std::cout << format_kv_table(rep);
//
// Requirements on the wrapped cache: append(...) and attend(...) with any arguments and
// results, memory_bytes() (bytes held now). Optional: total_tokens() (positions held); when
// absent, each append call counts as one position (token-at-a-time caches).
// profiled_kv_cache is the same profiler as a kv_cache, for the reference decoder.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "flopcast/measure/kv_cache.hpp"
#include "flopcast/measure/tracker.hpp"

namespace flopcast::measure {

struct kv_layer_profile {
  int layer = 0;
  std::string cache;  // the wrapped cache's format, if known
  std::int64_t append_calls = 0;
  std::int64_t attend_calls = 0;
  double append_s = 0;              // total wall time in append
  double attend_s = 0;              // total wall time in attend
  std::int64_t tokens_written = 0;  // positions appended, every sequence, all calls
  double peak_bytes = 0;            // largest memory_bytes() seen after a call
  std::int64_t peak_tokens = 0;     // positions held at that peak
  double fp16_bytes_per_token = 0;  // an fp16 cache: K + V elements x 2 bytes per position

  [[nodiscard]] double append_s_mean() const noexcept {
    return append_calls ? append_s / static_cast<double>(append_calls) : 0;
  }
  [[nodiscard]] double attend_s_mean() const noexcept {
    return attend_calls ? attend_s / static_cast<double>(attend_calls) : 0;
  }
  // What the positions held at the peak would take in fp16.
  [[nodiscard]] double fp16_baseline_bytes() const noexcept {
    return static_cast<double>(peak_tokens) * fp16_bytes_per_token;
  }
  // fp16 bytes / actual bytes: 0.5 for fp32, ~1.9 for int8 with scales; 0 without data.
  [[nodiscard]] double compression_ratio() const noexcept {
    return peak_bytes > 0 ? fp16_baseline_bytes() / peak_bytes : 0;
  }
};

struct kv_profile_report {
  std::vector<kv_layer_profile> layers;  // in layer order
  double elapsed_s = 0;                  // wall time the session covered (caller-supplied)

  [[nodiscard]] double total_peak_bytes() const noexcept;
  [[nodiscard]] std::int64_t total_tokens() const noexcept;  // tokens_written over layers
  [[nodiscard]] double tokens_per_s() const noexcept;        // total_tokens / elapsed_s; 0 if no time
  [[nodiscard]] double compression_ratio() const noexcept;   // over all layers
};

// Fixed-width table: one row per layer (append and attend time per call, calls, peak
// memory, ratio vs fp16), then totals (tokens, memory, compression ratio, tokens/s when
// elapsed_s > 0). The totals block is omitted when there are no layers.
[[nodiscard]] std::string format_kv_table(const kv_profile_report& report);

namespace detail {
template <class C, class = void>
struct has_total_tokens : std::false_type {};
template <class C>
struct has_total_tokens<C, std::void_t<decltype(std::declval<const C&>().total_tokens())>> : std::true_type {};
}  // namespace detail

template <class Cache>
class kv_cache_profiler {
 public:
  kv_cache_profiler(Cache& cache, double fp16_bytes_per_token, int layer = 0, std::string cache_name = {})
      : cache_(&cache) {
    profile_.layer = layer;
    profile_.fp16_bytes_per_token = fp16_bytes_per_token;
    profile_.cache = std::move(cache_name);
  }

  template <class... A>
  decltype(auto) append(A&&... args) {
    const call_guard g(*this, true);
    return cache_->append(std::forward<A>(args)...);
  }
  template <class... A>
  decltype(auto) attend(A&&... args) {
    const call_guard g(*this, false);
    return cache_->attend(std::forward<A>(args)...);
  }
  [[nodiscard]] decltype(auto) memory_bytes() const { return cache_->memory_bytes(); }

  [[nodiscard]] const kv_layer_profile& profile() const noexcept { return profile_; }
  // Clears the statistics (not the cache).
  void reset() noexcept {
    kv_layer_profile fresh;
    fresh.layer = profile_.layer;
    fresh.cache = profile_.cache;
    fresh.fp16_bytes_per_token = profile_.fp16_bytes_per_token;
    profile_ = std::move(fresh);
  }
  [[nodiscard]] Cache& wrapped() noexcept { return *cache_; }
  [[nodiscard]] const Cache& wrapped() const noexcept { return *cache_; }

 private:
  [[nodiscard]] std::int64_t tokens_now() const {
    if constexpr (detail::has_total_tokens<Cache>::value)
      return static_cast<std::int64_t>(cache_->total_tokens());
    else
      return 0;
  }

  // Times one call; on exit (normal or exception) records the time, the positions written
  // and the peak size.
  class call_guard {
   public:
    call_guard(kv_cache_profiler& p, bool append)
        : p_(p), append_(append), tokens_before_(p.tokens_now()), start_(clock_type::now()) {}
    call_guard(const call_guard&) = delete;
    call_guard& operator=(const call_guard&) = delete;
    ~call_guard() {
      const double s = seconds(start_, clock_type::now());
      kv_layer_profile& pr = p_.profile_;
      if (append_) {
        ++pr.append_calls;
        pr.append_s += s;
        if constexpr (detail::has_total_tokens<Cache>::value)
          pr.tokens_written += std::max<std::int64_t>(0, p_.tokens_now() - tokens_before_);
        else
          ++pr.tokens_written;
      } else {
        ++pr.attend_calls;
        pr.attend_s += s;
      }
      const double bytes = static_cast<double>(p_.cache_->memory_bytes());
      if (bytes > pr.peak_bytes) {
        pr.peak_bytes = bytes;
        if constexpr (detail::has_total_tokens<Cache>::value)
          pr.peak_tokens = p_.tokens_now();
        else
          pr.peak_tokens = pr.tokens_written;
      }
    }

   private:
    kv_cache_profiler& p_;
    bool append_;
    std::int64_t tokens_before_;
    clock_type::time_point start_;
  };

  Cache* cache_;
  kv_layer_profile profile_;
};

// The profiler as a kv_cache: owns the wrapped cache and forwards every call through a
// kv_cache_profiler<kv_cache>.
class profiled_kv_cache final : public kv_cache {
 public:
  profiled_kv_cache(std::unique_ptr<kv_cache> inner, int layer);

  [[nodiscard]] std::string_view format_name() const override { return inner_->format_name(); }
  [[nodiscard]] const kv_layout& layout() const override { return inner_->layout(); }
  void append(std::int64_t seq, const float* k, std::int64_t k_stride, const float* v, std::int64_t v_stride,
              std::int64_t tokens, attention_tally* tally = nullptr) override {
    profiler_.append(seq, k, k_stride, v, v_stride, tokens, tally);
  }
  void attend(const attend_request& r) override { profiler_.attend(r); }
  [[nodiscard]] std::int64_t length(std::int64_t seq) const override { return inner_->length(seq); }
  [[nodiscard]] std::int64_t total_tokens() const override { return inner_->total_tokens(); }
  [[nodiscard]] double memory_bytes() const override { return inner_->memory_bytes(); }
  [[nodiscard]] double bytes_per_token() const override { return inner_->bytes_per_token(); }
  void clear() override { inner_->clear(); }

  [[nodiscard]] const kv_layer_profile& profile() const noexcept { return profiler_.profile(); }
  void reset_profile() noexcept { profiler_.reset(); }

 private:
  std::unique_ptr<kv_cache> inner_;
  kv_cache_profiler<kv_cache> profiler_;
};

}  // namespace flopcast::measure
