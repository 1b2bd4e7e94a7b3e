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
  constexpr double big = 1e30;
  auto positive_number = [&](std::string_view key) {
    if (!r.has(key))
      throw error(error_code::config_missing, r.ptr(key), "required field is missing: expected a positive number");
    const double v = r.number_or(key, 0, -big, big);
    if (!(v > 0))
      throw error(error_code::config_range, r.ptr(key),
                  "expected a positive number, but got " + j.at(std::string(key)).dump());
    return v;
  };
  h.memory_bytes = positive_number("memory_bytes");
  h.memory_bandwidth_bytes_per_s = positive_number("memory_bandwidth_bytes_per_s");
  h.tdp_watts = positive_number("tdp_watts");
  h.cost_per_hour_usd = r.number_or("cost_per_hour_usd", 0, 0, big);
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
    const double v = pr.number_or(it.key(), 0, 0, big);
    if (!(v > 0))
      throw error(error_code::config_range, "/peak_flops/" + it.key(),
                  "expected a positive number, but got " + it.value().dump());
    h.peak_flops_per_s[static_cast<std::size_t>(p)] = v;
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
    h.interconnect_bandwidth_bytes_per_s = ir.number_or("bandwidth_bytes_per_s", 0, 0, big);
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
