#include "flopcast/measure/kv_profiler.hpp"

#include <fmt/format.h>

#include "text.hpp"

namespace flopcast::measure {

double kv_profile_report::total_peak_bytes() const noexcept {
  double b = 0;
  for (const auto& l : layers) b += l.peak_bytes;
  return b;
}

std::int64_t kv_profile_report::total_tokens() const noexcept {
  std::int64_t n = 0;
  for (const auto& l : layers) n += l.tokens_written;
  return n;
}

double kv_profile_report::tokens_per_s() const noexcept {
  return elapsed_s > 0 ? static_cast<double>(total_tokens()) / elapsed_s : 0;
}

double kv_profile_report::compression_ratio() const noexcept {
  double fp16 = 0;
  for (const auto& l : layers) fp16 += l.fp16_baseline_bytes();
  const double actual = total_peak_bytes();
  return actual > 0 ? fp16 / actual : 0;
}

std::string format_kv_table(const kv_profile_report& report) {
  std::string out = fmt::format("{:<9} {:<6} {:>8} {:>12} {:>8} {:>12} {:>12} {:>8}\n", "Layer", "Cache", "Appends",
                                "Append/call", "Attends", "Attend/call", "Peak memory", "vs fp16");
  const std::string rule(82, '-');
  out += rule + "\n";
  for (const auto& l : report.layers)
    out +=
        fmt::format("{:<9} {:<6} {:>8} {:>12} {:>8} {:>12} {:>12} {:>7.2f}x\n", fmt::format("Layer {}", l.layer),
                    l.cache.empty() ? "-" : l.cache, l.append_calls, text::duration(l.append_s_mean()), l.attend_calls,
                    text::duration(l.attend_s_mean()), text::bytes(l.peak_bytes), l.compression_ratio());
  out += rule + "\n";
  if (report.layers.empty()) return out;
  out += fmt::format("{:<26}{}\n", "Total tokens written:", report.total_tokens());
  out += fmt::format("{:<26}{}\n", "Total memory (peak):", text::bytes(report.total_peak_bytes()));
  out += fmt::format("{:<26}{:.2f}x\n", "Compression vs fp16:", report.compression_ratio());
  if (report.elapsed_s > 0) out += fmt::format("{:<26}{:.1f}\n", "Tokens/s:", report.tokens_per_s());
  return out;
}

profiled_kv_cache::profiled_kv_cache(std::unique_ptr<kv_cache> inner, int layer)
    : inner_(std::move(inner)),
      profiler_(*inner_,
                2.0 * static_cast<double>(inner_->layout().kv_heads) *
                    static_cast<double>(inner_->layout().head_dim + inner_->layout().v_head_dim),
                layer, std::string(inner_->format_name())) {}

}  // namespace flopcast::measure
