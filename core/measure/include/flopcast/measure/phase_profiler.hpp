#pragma once
// A phase-aware profiler for autoregressive generation: prefill (time to first token) and
// each decode step, timed separately.
//
//   flopcast::measure::phase_profiler p;
//   { auto s = p.prefill(batch * prompt); run_prefill(); }
//   p.record_kv_bytes(cache_bytes());
//   for (...) { auto s = p.decode_step(batch); run_step(); }
//   p.record_kv_bytes(cache_bytes());
//   p.add_work(phase::prefill, flops, bytes, source_label::measured);  // if known
//   const phase_report r = p.report();
//
// Times are MEASURED. FLOP/s and bandwidth are MEASURED when the work was counted by the
// kernels that ran (add_work with source_label::measured), ESTIMATED when the work comes
// from an analytical estimate, unavailable otherwise. Energy is MEASURED from RAPL when the
// machine exposes it, unavailable otherwise.
#include <cstdint>
#include <vector>

#include "flopcast/measure/energy.hpp"
#include "flopcast/measure/figure.hpp"
#include "flopcast/measure/tracker.hpp"

namespace flopcast::measure {

enum class phase : std::uint8_t { prefill, decode };

struct phase_report {
  // Prefill.
  figure ttft_s;          // time to first token
  figure prefill_tokens;  // prompt tokens, whole batch
  figure prefill_tokens_per_s;
  figure prefill_flops, prefill_bytes;
  figure prefill_flops_per_s, prefill_bandwidth_bytes_per_s;
  figure prefill_energy_j;
  // Decode.
  latency_stats decode;  // per step: mean (TPOT), percentiles, tokens/s
  std::vector<double> decode_samples_s;
  figure tpot_s;               // mean step time
  figure decode_tokens_per_s;  // whole batch
  figure decode_flops, decode_bytes;
  figure decode_flops_per_s, decode_bandwidth_bytes_per_s;
  figure decode_energy_j;
  // KV cache.
  figure kv_bytes_after_prefill, kv_bytes_end;
  figure kv_growth_bytes_per_token;  // per generated token of one sequence
};

class phase_profiler {
 public:
  explicit phase_profiler(std::size_t max_decode_steps = 1 << 16);

  void begin_prefill() noexcept;
  void end_prefill(std::int64_t tokens) noexcept;
  void begin_decode_step() noexcept;
  void end_decode_step(std::int64_t tokens) noexcept;

  // RAII forms of begin/end.
  class scope {
   public:
    scope(phase_profiler& p, phase ph, std::int64_t tokens) noexcept;
    scope(scope&& o) noexcept : p_(o.p_), phase_(o.phase_), tokens_(o.tokens_) { o.p_ = nullptr; }
    scope(const scope&) = delete;
    scope& operator=(const scope&) = delete;
    scope& operator=(scope&&) = delete;
    ~scope() { stop(); }
    void stop() noexcept;

   private:
    phase_profiler* p_;
    phase phase_;
    std::int64_t tokens_;
  };
  [[nodiscard]] scope prefill(std::int64_t tokens) noexcept { return scope(*this, phase::prefill, tokens); }
  [[nodiscard]] scope decode_step(std::int64_t tokens) noexcept { return scope(*this, phase::decode, tokens); }

  // The KV cache's size now (bytes, whole batch). The first call after prefill and the last
  // one give the growth per generated token.
  void record_kv_bytes(double bytes);
  // Work done in a phase (added up). `how`: measured (counted by the kernels) or estimated.
  void add_work(phase p, double flops, double bytes, source_label how);

  [[nodiscard]] phase_report report() const;
  void reset();

  [[nodiscard]] const latency_tracker& decode_tracker() const noexcept { return decode_; }
  [[nodiscard]] const energy_meter& energy() const noexcept { return energy_; }

 private:
  latency_tracker decode_;
  energy_meter energy_;
  clock_type::time_point prefill_start_{}, step_start_{};
  double ttft_s_ = -1;
  std::int64_t prefill_tokens_ = 0;
  energy_meter::reading e_prefill_begin_, e_prefill_end_, e_decode_begin_, e_decode_end_;
  bool decode_started_ = false;
  struct kv_point {
    double bytes;
    std::int64_t decode_tokens;  // decode tokens recorded when the size was taken
  };
  std::vector<kv_point> kv_;
  struct work {
    double flops = 0, bytes = 0;
    source_label label = source_label::unavailable;
  };
  work prefill_work_, decode_work_;
};

}  // namespace flopcast::measure
