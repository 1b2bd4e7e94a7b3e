#include "flopcast/measure/phase_profiler.hpp"

namespace flopcast::measure {

std::string_view to_string(source_label l) noexcept {
  switch (l) {
    case source_label::measured:
      return "MEASURED";
    case source_label::estimated:
      return "ESTIMATED";
    case source_label::unavailable:
      return "unavailable";
  }
  return "unavailable";
}

phase_profiler::phase_profiler(std::size_t max_decode_steps) : decode_(max_decode_steps) {}

void phase_profiler::begin_prefill() noexcept {
  if (energy_.available()) e_prefill_begin_ = energy_.read();
  prefill_start_ = clock_type::now();
}

void phase_profiler::end_prefill(std::int64_t tokens) noexcept {
  ttft_s_ = seconds(prefill_start_, clock_type::now());
  prefill_tokens_ = tokens;
  if (energy_.available()) e_prefill_end_ = energy_.read();
}

void phase_profiler::begin_decode_step() noexcept {
  if (!decode_started_ && energy_.available()) e_decode_begin_ = energy_.read();
  decode_started_ = true;
  step_start_ = clock_type::now();
}

void phase_profiler::end_decode_step(std::int64_t tokens) noexcept {
  decode_.record(seconds(step_start_, clock_type::now()), tokens);
  if (energy_.available()) e_decode_end_ = energy_.read();
}

phase_profiler::scope::scope(phase_profiler& p, phase ph, std::int64_t tokens) noexcept
    : p_(&p), phase_(ph), tokens_(tokens) {
  if (ph == phase::prefill)
    p.begin_prefill();
  else
    p.begin_decode_step();
}

void phase_profiler::scope::stop() noexcept {
  if (!p_) return;
  if (phase_ == phase::prefill)
    p_->end_prefill(tokens_);
  else
    p_->end_decode_step(tokens_);
  p_ = nullptr;
}

void phase_profiler::record_kv_bytes(double bytes) { kv_.push_back({bytes, decode_.total_tokens()}); }

void phase_profiler::add_work(phase p, double flops, double bytes, source_label how) {
  work& w = p == phase::prefill ? prefill_work_ : decode_work_;
  w.flops += flops;
  w.bytes += bytes;
  // The weakest source wins: one estimated part makes the sum an estimate.
  if (w.label == source_label::unavailable || how == source_label::estimated) w.label = how;
}

void phase_profiler::reset() {
  decode_.reset();
  ttft_s_ = -1;
  prefill_tokens_ = 0;
  decode_started_ = false;
  kv_.clear();
  prefill_work_ = decode_work_ = work{};
}

namespace {
figure timed(double v) { return figure::measured(v); }
figure labelled(double v, source_label l, const char* why_missing) {
  if (l == source_label::unavailable) return figure::unavailable(why_missing);
  return {v, l, l == source_label::estimated ? "work from the analytical estimate" : ""};
}
}  // namespace

phase_report phase_profiler::report() const {
  phase_report r;
  const char* no_work = "no FLOP or byte count was given (add_work)";
  if (ttft_s_ >= 0) {
    r.ttft_s = timed(ttft_s_);
    r.prefill_tokens = figure::measured(static_cast<double>(prefill_tokens_));
    if (ttft_s_ > 0) r.prefill_tokens_per_s = timed(static_cast<double>(prefill_tokens_) / ttft_s_);
    r.prefill_flops = labelled(prefill_work_.flops, prefill_work_.label, no_work);
    r.prefill_bytes = labelled(prefill_work_.bytes, prefill_work_.label, no_work);
    if (ttft_s_ > 0) {
      r.prefill_flops_per_s = labelled(prefill_work_.flops / ttft_s_, prefill_work_.label, no_work);
      r.prefill_bandwidth_bytes_per_s = labelled(prefill_work_.bytes / ttft_s_, prefill_work_.label, no_work);
    }
    const auto e = energy_.joules_between(e_prefill_begin_, e_prefill_end_);
    r.prefill_energy_j =
        e ? figure::measured(*e, "RAPL package counters (whole CPU package)") : figure::unavailable(energy_.reason());
  } else {
    const char* why = "no prefill was recorded";
    r.ttft_s = r.prefill_tokens = r.prefill_tokens_per_s = r.prefill_flops = r.prefill_bytes = figure::unavailable(why);
    r.prefill_flops_per_s = r.prefill_bandwidth_bytes_per_s = r.prefill_energy_j = figure::unavailable(why);
  }

  r.decode = decode_.stats();
  r.decode_samples_s = decode_.samples();
  if (r.decode.samples > 0) {
    const double busy = r.decode.total_s;
    r.tpot_s = timed(r.decode.mean_s);
    if (busy > 0) r.decode_tokens_per_s = timed(static_cast<double>(r.decode.total_tokens) / busy);
    r.decode_flops = labelled(decode_work_.flops, decode_work_.label, no_work);
    r.decode_bytes = labelled(decode_work_.bytes, decode_work_.label, no_work);
    if (busy > 0) {
      r.decode_flops_per_s = labelled(decode_work_.flops / busy, decode_work_.label, no_work);
      r.decode_bandwidth_bytes_per_s = labelled(decode_work_.bytes / busy, decode_work_.label, no_work);
    }
    const auto e = energy_.joules_between(e_decode_begin_, e_decode_end_);
    r.decode_energy_j =
        e ? figure::measured(*e, "RAPL package counters (whole CPU package)") : figure::unavailable(energy_.reason());
  } else {
    const char* why = "no decode step was recorded";
    r.tpot_s = r.decode_tokens_per_s = r.decode_flops = r.decode_bytes = figure::unavailable(why);
    r.decode_flops_per_s = r.decode_bandwidth_bytes_per_s = r.decode_energy_j = figure::unavailable(why);
  }

  if (!kv_.empty()) {
    r.kv_bytes_after_prefill = figure::measured(kv_.front().bytes);
    r.kv_bytes_end = figure::measured(kv_.back().bytes);
    const std::int64_t tokens = kv_.back().decode_tokens - kv_.front().decode_tokens;
    r.kv_growth_bytes_per_token =
        tokens > 0 ? figure::measured((kv_.back().bytes - kv_.front().bytes) / static_cast<double>(tokens))
                   : figure::unavailable("no decode step between two KV-cache sizes");
  } else {
    r.kv_bytes_after_prefill = r.kv_bytes_end = r.kv_growth_bytes_per_token =
        figure::unavailable("the KV-cache size was not recorded (record_kv_bytes)");
  }
  return r;
}

}  // namespace flopcast::measure
