// Reads one accelerator record (data/gpus.json's format, or a --gpu-file) into hardware_spec.
#include "detail.hpp"
#include "flopcast/config.hpp"
#include "json_reader.hpp"

namespace flopcast {
namespace detail {

hardware_spec read_hardware(const json& j) {
  if (!j.is_object())
    throw error(error_code::config_type, "",
                "expected the GPU description to be a JSON object, but got " + describe(j));
  const reader r(j);
  hardware_spec h;
  h.name = r.string_or("name", "");
  if (h.name.empty())
    throw error(error_code::config_missing, "/name", "required field is missing: expected a non-empty string");
  if (r.has("aliases")) h.aliases = r.string_list_or_empty("aliases");
  h.vendor = r.string_or("vendor", "");
  // Physically meaningful ranges: every figure that enters a division or a count is bounded, so
  // no accepted device can make a result infinite, NaN or overflow an integer.
  const auto bounded = [&](const reader& at, std::string_view key, double lo, double hi, const char* unit) {
    if (!at.has(key))
      throw error(error_code::config_missing, at.ptr(key), "required field is missing: expected a positive number");
    const json& v = at.at(key);
    if (!v.is_number()) throw error(error_code::config_type, at.ptr(key), "expected a number, but got " + describe(v));
    const double x = v.get<double>();
    if (!(x >= lo && x <= hi))
      throw error(error_code::config_range, at.ptr(key),
                  std::string("expected a number of ") + unit + " in [" + format_number(lo) + ", " + format_number(hi) +
                      "], but got " + format_number(x));
    return x;
  };
  h.memory_bytes = bounded(r, "memory_bytes", 1e6, 1e15, "bytes");
  h.memory_bandwidth_bytes_per_s = bounded(r, "memory_bandwidth_bytes_per_s", 1e6, 1e16, "bytes/s");
  h.tdp_watts = bounded(r, "tdp_watts", 0.1, 1e6, "W");
  h.cost_per_hour_usd = r.has("cost_per_hour_usd") ? bounded(r, "cost_per_hour_usd", 0, 1e6, "USD/h") : 0;
  if (!r.has("peak_flops"))
    throw error(
        error_code::config_missing, "/peak_flops",
        "required field is missing: expected an object of dense peak FLOP/s by precision, e.g. {\"bf16\": 989e12}");
  const json& peaks = j.at("peak_flops");
  if (!peaks.is_object())
    throw error(error_code::config_type, "/peak_flops",
                "expected an object of dense peak FLOP/s by precision, but got " + describe(peaks));
  for (auto it = peaks.begin(); it != peaks.end(); ++it) {
    const precision p = parse_precision(it.key(), "/peak_flops/" + it.key());
    const reader pr(peaks, "/peak_flops");
    h.peak_flops_per_s[static_cast<std::size_t>(p)] = bounded(pr, it.key(), 1e6, 1e19, "FLOP/s");
  }
  bool any = false;
  for (const auto& p : h.peak_flops_per_s) any = any || p.has_value();
  if (!any) throw error(error_code::config_range, "/peak_flops", "expected at least one precision");
  if (r.has("interconnect")) {
    const json& ic = j.at("interconnect");
    if (!ic.is_object())
      throw error(error_code::config_type, "/interconnect",
                  "expected an object {name, bandwidth_bytes_per_s}, but got " + describe(ic));
    const reader ir(ic, "/interconnect");
    h.interconnect_name = ir.string_or("name", "");
    h.interconnect_bandwidth_bytes_per_s =
        ir.has("bandwidth_bytes_per_s") ? bounded(ir, "bandwidth_bytes_per_s", 0, 1e16, "bytes/s") : 0;
  }
  if (r.has("sources")) {
    const json& s = j.at("sources");
    if (s.is_object())
      for (auto it = s.begin(); it != s.end(); ++it)
        if (it.value().is_string()) h.source_note += it.key() + ": " + it.value().get<std::string>() + "\n";
  }
  return h;
}

}  // namespace detail

hardware_spec read_hardware(std::string_view json_text) {
  return detail::read_hardware(detail::parse_object(json_text, "the GPU description"));
}

}  // namespace flopcast
