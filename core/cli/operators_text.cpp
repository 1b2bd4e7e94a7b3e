#include "operators_text.hpp"

#include <fmt/format.h>

#include "flopcast/estimate/operators.hpp"
#include "report_text.hpp"

namespace flopcast::cli {
namespace {

std::string row_name(const model_spec& m, const operator_row& row) {
  if (row.group < 0) return row.name;
  if (m.groups.size() == 1) return row.name;
  return fmt::format("{} [group {}]", row.name, row.group);
}

std::string pass_table(const model_spec& m, const char* title, const operator_pass& p, bool device) {
  double total_s = 0, flops = 0, bytes = 0;
  for (const operator_row& row : p.rows) {
    total_s += row.time_s();
    flops += row.flops;
    bytes += row.bytes();
  }
  std::string out = fmt::format("\n{} ({:.0f} token{})\n", title, p.tokens, p.tokens == 1 ? "" : "s");
  out += fmt::format("  {:<34} {:>6} {:>16} {:>12} {:>10} {:>8} {:>11} {:>7}\n", "operator", "layers", "FLOPs", "bytes",
                     "FLOP/B", "bound", "time", "share");
  for (const operator_row& row : p.rows) {
    const std::string intensity = row.bytes() > 0 ? fmt::format("{:.1f}", row.intensity()) : "-";
    out += fmt::format("  {:<34} {:>6} {:>16} {:>12} {:>10} {:>8} {:>11} {:>7}\n", row_name(m, row), row.layers,
                       format_flops(row.flops), format_bytes(row.bytes()), intensity,
                       device ? (row.compute_bound() ? "compute" : "memory") : "-",
                       device ? format_seconds(row.time_s()) : "-",
                       device && total_s > 0 ? fmt::format("{:.1f}%", 100 * row.time_s() / total_s) : "-");
  }
  out += fmt::format("  {:<34} {:>6} {:>16} {:>12} {:>10} {:>8} {:>11}\n", "total", "", format_flops(flops),
                     format_bytes(bytes), "", "", device ? format_seconds(total_s) : "-");
  return out;
}

}  // namespace

std::string operators_report(const estimate_context& c) {
  const operator_tables t = operator_table(c.model, c.config, c.result);
  std::string out =
      "\nOperators (summed over each group's layers; time = max(FLOPs / achieved peak, bytes / "
      "achieved bandwidth))\n";
  if (t.has_device)
    out += fmt::format("  device: {}/s {} peak x {:.3g} (prefill), {} x {:.3g}\n", format_flops(t.peak_flops_per_s),
                       std::string(to_string(t.compute_precision)), t.prefill.compute_efficiency,
                       format_bandwidth(t.memory_bandwidth_bytes_per_s), t.mem_efficiency);
  out += pass_table(c.model, "Prefill", t.prefill, t.has_device);
  if (c.model.arch != architecture::encoder) out += pass_table(c.model, "Decode step", t.decode, t.has_device);
  return out;
}

}  // namespace flopcast::cli
