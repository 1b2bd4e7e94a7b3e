// Reads one accelerator record (data/gpus.json's format, or a --gpu-file) into hardware_spec.
#include "hardware/hardware_reader.hpp"

#include "base/detail.hpp"
#include "base/json_reader.hpp"
#include "flopcast/hardware/hardware.hpp"

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
  if (r.has("kind")) {
    const json& k = r.at("kind");
    if (!k.is_string())
      throw error(error_code::config_type, "/kind",
                  "expected one of \"gpu\", \"tpu\", \"npu\", \"cpu\", \"soc\", but got " + describe(k));
    const std::string v = lower(k.get<std::string>());
    bool found = false;
    for (device_kind d : {device_kind::gpu, device_kind::tpu, device_kind::npu, device_kind::cpu, device_kind::soc})
      if (v == to_string(d)) {
        h.kind = d;
        found = true;
      }
    if (!found)
      throw error(error_code::config_range, "/kind",
                  "unknown device kind \"" + k.get<std::string>() +
                      "\": expected one of \"gpu\", \"tpu\", \"npu\", \"cpu\", \"soc\"");
  }
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
  if (r.has("usable_memory_fraction")) {
    // In (0, 1]: a share of memory_bytes; 0 would make every model "not fit" and hide the error.
    const json& v = r.at("usable_memory_fraction");
    if (!v.is_number())
      throw error(error_code::config_type, "/usable_memory_fraction",
                  "expected a fraction of memory_bytes in (0, 1], but got " + describe(v));
    const double x = v.get<double>();
    if (!(x >= 0.01 && x <= 1))
      throw error(error_code::config_range, "/usable_memory_fraction",
                  "expected a fraction of memory_bytes in [0.01, 1], but got " + format_number(x));
    h.usable_memory_fraction = x;
  }
  h.memory_bandwidth_bytes_per_s = bounded(r, "memory_bandwidth_bytes_per_s", 1e6, 1e16, "bytes/s");
  if (r.has("memory_type")) {
    const json& t = r.at("memory_type");
    const std::string v = t.is_string() ? lower(t.get<std::string>()) : std::string();
    if (v != "hbm" && v != "gddr" && v != "lpddr" && v != "ddr")
      throw error(t.is_string() ? error_code::config_range : error_code::config_type, "/memory_type",
                  "expected one of \"hbm\", \"gddr\", \"lpddr\", \"ddr\", but got " + describe(t));
    h.memory_type = v;
  }
  h.tdp_watts = bounded(r, "tdp_watts", 0.1, 1e6, "W");
  h.cost_per_hour_usd = r.has("cost_per_hour_usd") ? bounded(r, "cost_per_hour_usd", 0, 1e6, "USD/h") : 0;
  h.added = detail::release_or_empty(r, "added");
  if (!r.has("peak_flops"))
    throw error(
        error_code::config_missing, "/peak_flops",
        "required field is missing: expected an object of dense peak FLOP/s by precision, e.g. {\"bf16\": 989e12}");
  const json& peaks = j.at("peak_flops");
  if (!peaks.is_object())
    throw error(error_code::config_type, "/peak_flops",
                "expected an object of dense peak FLOP/s by precision, but got " + describe(peaks));
  const reader pr(peaks, "/peak_flops");
  for (auto it = peaks.begin(); it != peaks.end(); ++it) {
    // Dense rates outside the precision enum, kept in their own members.
    const std::string key = lower(it.key());
    if (key == "fp6" || key == "fp4" || key == "fp16_acc16") {
      const double x = bounded(pr, it.key(), 1e6, 1e19, "FLOP/s");
      (key == "fp6" ? h.peak_fp6 : key == "fp4" ? h.peak_fp4 : h.peak_fp16_acc16) = x;
      continue;
    }
    const precision p = parse_precision(it.key(), "/peak_flops/" + it.key());
    if (static_cast<std::size_t>(p) >= h.peak_flops_per_s.size())  // a storage format, not a device unit
      throw error(
          error_code::config_range, "/peak_flops/" + it.key(),
          "expected a device rate: fp32, tf32, fp16, bf16, fp8, int8, int4, fp6, fp4 or fp16_acc16, but got \"" +
              it.key() + "\" (a storage format)");
    h.peak_flops_per_s[static_cast<std::size_t>(p)] = bounded(pr, it.key(), 1e6, 1e19, "FLOP/s");
  }
  // Every estimate needs a rate its precision chain reaches; the extra keys alone are not enough.
  bool any = false;
  for (const auto& p : h.peak_flops_per_s) any = any || p.has_value();
  if (!any)
    throw error(error_code::config_range, "/peak_flops",
                "expected at least one of fp32, tf32, fp16, bf16, fp8, int8, int4 (fp6, fp4 and fp16_acc16 are "
                "extras)");
  if (r.has("interconnect")) {
    const json& ic = j.at("interconnect");
    if (!ic.is_object())
      throw error(error_code::config_type, "/interconnect",
                  "expected an object {name, bandwidth_bytes_per_s}, but got " + describe(ic));
    const reader ir(ic, "/interconnect");
    h.interconnect_name = ir.string_or("name", "");
    h.interconnect_bandwidth_bytes_per_s =
        ir.has("bandwidth_bytes_per_s") ? bounded(ir, "bandwidth_bytes_per_s", 0, 1e16, "bytes/s") : 0;
    h.interconnect_generation = ir.string_or("generation", "");
    // Devices in one scale-up domain: 8 (HGX), 72 (NVL72), 9216 (an Ironwood pod).
    if (ir.has("domain_size"))
      h.interconnect_domain_size =
          ir.integer("domain_size", 1, std::int64_t{1} << 20, "a positive number of devices (at most 2^20)");
  }
  // CUDA compute capabilities run from 1.0 (Tesla) to 12.x (Blackwell GeForce): [1, 20] leaves room.
  h.compute_capability = r.number_or("compute_capability", 0, 1, 20);
  h.gfx = r.string_or("gfx", "");
  if (!h.gfx.empty() && (h.gfx.rfind("gfx", 0) != 0 || h.gfx.size() < 4))
    throw error(error_code::config_range, "/gfx",
                "expected an LLVM AMDGPU target such as \"gfx1100\", but got \"" + h.gfx + "\"");
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

std::string hardware_spec::family() const {
  if (vendor.empty() || memory_type.empty()) return {};
  return detail::squash_name(vendor) + "-" + memory_type;
}

}  // namespace flopcast
