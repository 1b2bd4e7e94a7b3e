// Measured efficiency curves (efficiency_curves.hpp): the reader of data/efficiency/*.json, which
// checks every field a lookup relies on, and the lookup (nearest curve, interpolation on the
// curve's axis scale, transfer within an architecture).
#include "flopcast/estimate/efficiency_curves.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <limits>
#include <nlohmann/json.hpp>

#include "base/json_reader.hpp"
#include "flopcast/base/error.hpp"
#include "flopcast/formats/precision.hpp"

namespace flopcast::detail {
// cmake/embed_efficiency.cmake: data/efficiency/*.json, sorted by name.
extern const std::string_view k_efficiency_files[];
extern const std::string_view k_efficiency_file_names[];
extern const std::size_t k_efficiency_file_count;
}  // namespace flopcast::detail

namespace flopcast {
// Named, not anonymous: the unity build puts this file beside others of the room.
namespace efficiency_curves_impl {

using json = nlohmann::json;

constexpr std::array<std::pair<kernel_op, std::string_view>, 8> k_ops{{
    {kernel_op::gemm, "gemm"},
    {kernel_op::grouped_gemm, "grouped_gemm"},
    {kernel_op::attention_prefill, "attention_prefill"},
    {kernel_op::attention_decode, "attention_decode"},
    {kernel_op::all_reduce, "all_reduce"},
    {kernel_op::all_gather, "all_gather"},
    {kernel_op::all_to_all, "all_to_all"},
    {kernel_op::memory_bandwidth, "memory_bandwidth"},
}};

constexpr std::array<compute_unit, 10> k_units{
    compute_unit::fp32, compute_unit::tf32, compute_unit::fp16, compute_unit::fp16_acc16, compute_unit::bf16,
    compute_unit::fp8,  compute_unit::fp6,  compute_unit::fp4,  compute_unit::int8,       compute_unit::int4};

std::optional<compute_unit> unit_named(std::string_view name) {
  for (compute_unit u : k_units)
    if (to_string(u) == name) return u;
  return std::nullopt;
}

// The stored efficiency is achieved / peak rounded to 4 decimals: the check allows that rounding.
constexpr double k_rounding = 5.1e-5;
constexpr double k_max_efficiency = 1.05;
// Range widening when a lookup holds an end value, and per unit of peak ratio when transferred.
constexpr double k_clamp_widening = 1.5;
constexpr double k_transfer_widening = 1.25;

struct file_reader {
  std::string file;  // data/efficiency/<name>

  [[noreturn]] void fail(const std::string& ptr, const std::string& what,
                         error_code code = error_code::config_range) const {
    throw error(code, ptr, file + ": " + ptr + ": " + what);
  }
  const json& need(const json& obj, const std::string& ptr, std::string_view key) const {
    const auto it = obj.find(std::string(key));
    if (it == obj.end()) fail(ptr + "/" + std::string(key), "missing", error_code::config_missing);
    return *it;
  }
  std::string text(const json& obj, const std::string& ptr, std::string_view key, bool required = true) const {
    const auto it = obj.find(std::string(key));
    if (it == obj.end()) {
      if (required) fail(ptr + "/" + std::string(key), "missing", error_code::config_missing);
      return {};
    }
    if (!it->is_string() || it->get_ref<const std::string&>().empty())
      fail(ptr + "/" + std::string(key), "expected a non-empty string, got " + detail::describe(*it),
           error_code::config_type);
    return it->get<std::string>();
  }
  double positive(const json& obj, const std::string& ptr, std::string_view key) const {
    const json& v = need(obj, ptr, key);
    const std::string p = ptr + "/" + std::string(key);
    if (!v.is_number()) fail(p, "expected a number, got " + detail::describe(v), error_code::config_type);
    const double x = v.get<double>();
    if (!std::isfinite(x) || x <= 0) fail(p, "expected a positive number, got " + detail::describe(v));
    return x;
  }
  const json& object(const json& obj, const std::string& ptr, std::string_view key) const {
    const json& v = need(obj, ptr, key);
    if (!v.is_object())
      fail(ptr + "/" + std::string(key), "expected an object, got " + detail::describe(v), error_code::config_type);
    return v;
  }
  const json& array(const json& obj, const std::string& ptr, std::string_view key) const {
    const json& v = need(obj, ptr, key);
    if (!v.is_array() || v.empty())
      fail(ptr + "/" + std::string(key), "expected a non-empty array, got " + detail::describe(v),
           error_code::config_type);
    return v;
  }

  efficiency_point point(const json& j, const std::string& ptr, const efficiency_curve& c) const {
    if (!j.is_object()) fail(ptr, "expected an object, got " + detail::describe(j), error_code::config_type);
    efficiency_point p;
    p.x = positive(j, ptr, "x");
    p.achieved = positive(j, ptr, "achieved");
    p.efficiency = positive(j, ptr, "efficiency");
    p.quote = text(j, ptr, "quote");
    if (p.efficiency > k_max_efficiency)
      fail(ptr + "/efficiency", "expected at most " + std::to_string(k_max_efficiency) + " of the peak, got " +
                                    std::to_string(p.efficiency));
    const double unit = c.metric == "tflops" ? 1e12 : 1e9;
    const double derived = p.achieved * unit / c.peak;
    if (std::abs(derived - p.efficiency) > k_rounding)
      fail(ptr + "/efficiency",
           "expected achieved / peak = " + std::to_string(derived) + ", got " + std::to_string(p.efficiency));
    return p;
  }

  efficiency_curve curve(const json& j, const std::string& ptr) const {
    if (!j.is_object()) fail(ptr, "expected an object, got " + detail::describe(j), error_code::config_type);
    efficiency_curve c;
    c.id = text(j, ptr, "id");
    const std::string op = text(j, ptr, "op");
    const auto parsed = parse_kernel_op(op);
    if (!parsed)
      fail(ptr + "/op",
           "expected one of gemm, grouped_gemm, attention_prefill, attention_decode, all_reduce, all_gather, "
           "all_to_all, memory_bandwidth, got \"" +
               op + "\"");
    c.op = *parsed;
    c.device = text(j, ptr, "device");
    c.device_as_published = text(j, ptr, "device_as_published", false);
    c.format = text(j, ptr, "format");
    if (!unit_named(c.format))
      fail(ptr + "/format", "expected a compute unit (bf16, fp8, ...), got \"" + c.format + "\"");
    c.engine = text(j, ptr, "engine");
    c.kernel = text(j, ptr, "kernel", false);
    c.variant = text(j, ptr, "variant", false);
    const json& axis = object(j, ptr, "axis");
    c.axis = text(axis, ptr + "/axis", "name");
    const std::string scale = text(axis, ptr + "/axis", "scale");
    if (scale == "log")
      c.scale = curve_scale::log;
    else if (scale == "sqrt")
      c.scale = curve_scale::sqrt;
    else if (scale == "linear")
      c.scale = curve_scale::linear;
    else
      fail(ptr + "/axis/scale", "expected log, sqrt or linear, got \"" + scale + "\"");
    if (j.contains("fixed")) {
      const json& fixed = object(j, ptr, "fixed");
      for (const auto& [k, v] : fixed.items()) c.fixed.emplace_back(k, positive(fixed, ptr + "/fixed", k));
    }
    c.metric = text(j, ptr, "metric");
    if (c.metric != "tflops" && c.metric != "gbps")
      fail(ptr + "/metric", "expected tflops or gbps, got \"" + c.metric + "\"");
    const json& peak = object(j, ptr, "peak");
    c.peak_field = text(peak, ptr + "/peak", "field");
    c.peak = positive(peak, ptr + "/peak", "value");
    const bool flops_peak = c.peak_field.rfind("peak_flops.", 0) == 0;
    if (flops_peak && !unit_named(c.peak_field.substr(11)))
      fail(ptr + "/peak/field", "expected peak_flops.<compute unit>, got \"" + c.peak_field + "\"");
    if (!flops_peak && c.peak_field != "memory_bandwidth" && c.peak_field != "interconnect_unidirectional")
      fail(ptr + "/peak/field",
           "expected peak_flops.<unit>, memory_bandwidth or interconnect_unidirectional, got \"" + c.peak_field + "\"");
    if (flops_peak != (c.metric == "tflops"))
      fail(ptr + "/peak/field", "a " + c.metric + " curve cannot divide by " + c.peak_field);
    const json& points = array(j, ptr, "points");
    for (std::size_t i = 0; i < points.size(); ++i) {
      const std::string pp = ptr + "/points/" + std::to_string(i);
      c.points.push_back(point(points[i], pp, c));
      if (i > 0 && !(c.points[i].x > c.points[i - 1].x))
        fail(pp + "/x", "expected x above the previous point's (" + std::to_string(c.points[i - 1].x) + "), got " +
                            std::to_string(c.points[i].x));
    }
    return c;
  }

  efficiency_source source(std::string_view text_in, std::string_view name) const {
    json j;
    try {
      j = detail::parse_object(text_in, file.c_str());
    } catch (const error& e) {
      throw error(e.code(), e.pointer(), file + ": " + e.message());
    }
    efficiency_source s;
    s.file = file;
    const std::string stem = std::string(
        name.substr(0, name.size() - ((name.size() >= 5 && name.substr(name.size() - 5) == ".json") ? 5 : 0)));
    const std::string schema = text(j, "", "schema");
    if (schema != "flopcast-efficiency-curves/1")
      fail("/schema", "expected \"flopcast-efficiency-curves/1\", got \"" + schema + "\"");
    s.id = text(j, "", "id");
    if (s.id != stem) fail("/id", "expected the file's name \"" + stem + "\", got \"" + s.id + "\"");
    s.note = text(j, "", "note", false);
    const json& src = object(j, "", "source");
    s.title = text(src, "/source", "title");
    s.url = text(src, "/source", "url");
    if (s.url.rfind("https://", 0) != 0) fail("/source/url", "expected an https:// address, got \"" + s.url + "\"");
    s.licence = text(src, "/source", "licence");
    s.retrieved = text(src, "/source", "retrieved");
    s.repository = text(src, "/source", "repository", false);
    if (!s.repository.empty()) {
      s.path = text(src, "/source", "path");
      s.commit = text(src, "/source", "commit");
      if (s.commit.size() != 40 || !std::all_of(s.commit.begin(), s.commit.end(), [](char ch) {
            return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f');
          }))
        fail("/source/commit", "expected a 40-digit hex commit, got \"" + s.commit + "\"");
    }
    const json& quotes = array(src, "/source", "quotes");
    for (std::size_t i = 0; i < quotes.size(); ++i) {
      if (!quotes[i].is_string() || quotes[i].get_ref<const std::string&>().empty())
        fail("/source/quotes/" + std::to_string(i), "expected a non-empty string, got " + detail::describe(quotes[i]),
             error_code::config_type);
      s.quotes.push_back(quotes[i].get<std::string>());
    }
    const json& curves = array(j, "", "curves");
    for (std::size_t i = 0; i < curves.size(); ++i) {
      const std::string cp = "/curves/" + std::to_string(i);
      s.curves.push_back(curve(curves[i], cp));
      for (std::size_t k = 0; k + 1 < s.curves.size(); ++k)
        if (s.curves[k].id == s.curves.back().id) fail(cp + "/id", "repeats curve id \"" + s.curves[k].id + "\"");
    }
    return s;
  }
};

double axis_value(curve_scale s, double x) {
  switch (s) {
    case curve_scale::log:
      return std::log(x);
    case curve_scale::sqrt:
      return std::sqrt(x);
    case curve_scale::linear:
      return x;
  }
  return x;
}

struct read_at {
  double efficiency = 0;
  bool exact = false;
  bool clamped = false;
};

// The curve at x: a point's own value where x is one (within 1e-9 relative), the end value held
// beyond the ends, else linear on the axis scale between the two neighbours.
read_at read_curve(const efficiency_curve& c, double x) {
  const auto& p = c.points;
  for (const efficiency_point& pt : p)
    if (std::abs(pt.x - x) <= 1e-9 * pt.x) return {pt.efficiency, true, false};
  if (x <= p.front().x) return {p.front().efficiency, false, true};
  if (x >= p.back().x) return {p.back().efficiency, false, true};
  std::size_t i = 1;
  while (p[i].x < x) ++i;
  const double t0 = axis_value(c.scale, p[i - 1].x), t1 = axis_value(c.scale, p[i].x), t = axis_value(c.scale, x);
  const double f = (t - t0) / (t1 - t0);
  return {p[i - 1].efficiency + f * (p[i].efficiency - p[i - 1].efficiency), false, false};
}

// How far a curve's fixed shape is from the query's: squared log ratios over the keys both name.
double shape_distance(const efficiency_curve& c, const curve_query& q, bool& exact) {
  double dist = 0;
  exact = true;
  for (const auto& [key, value] : q.fixed)
    for (const auto& [ck, cv] : c.fixed)
      if (ck == key && value > 0) {
        const double l = std::log(value / cv);
        dist += l * l;
        if (std::abs(value - cv) > 1e-9 * cv) exact = false;
      }
  return dist;
}

bool same_architecture(const hardware_spec& a, const hardware_spec& b) {
  if (a.vendor.empty() || a.vendor != b.vendor) return false;
  if (a.compute_capability > 0 || b.compute_capability > 0) return a.compute_capability == b.compute_capability;
  return !a.gfx.empty() && a.gfx == b.gfx;
}

bool matches(const efficiency_curve& c, const curve_query& q) {
  return c.op == q.op && c.format == q.format && (q.variant.empty() || c.variant == q.variant);
}

}  // namespace efficiency_curves_impl

std::string_view to_string(kernel_op op) noexcept {
  for (const auto& [o, name] : efficiency_curves_impl::k_ops)
    if (o == op) return name;
  return "gemm";
}

std::optional<kernel_op> parse_kernel_op(std::string_view name) noexcept {
  for (const auto& [o, n] : efficiency_curves_impl::k_ops)
    if (n == name) return o;
  return std::nullopt;
}

std::vector<efficiency_source> read_efficiency_sources(const std::vector<efficiency_file>& files) {
  std::vector<efficiency_source> out;
  for (const efficiency_file& f : files) {
    const efficiency_curves_impl::file_reader r{"data/efficiency/" + f.name};
    out.push_back(r.source(f.text, f.name));
  }
  return out;
}

const std::vector<efficiency_source>& efficiency_sources() {
  static const std::vector<efficiency_source> sources = [] {
    std::vector<efficiency_file> files;
    for (std::size_t i = 0; i < detail::k_efficiency_file_count; ++i)
      files.push_back({std::string(detail::k_efficiency_file_names[i]), detail::k_efficiency_files[i]});
    return read_efficiency_sources(files);
  }();
  return sources;
}

std::optional<double> curve_peak(const hardware_spec& gpu, std::string_view peak_field) {
  std::optional<double> v;
  if (peak_field == "memory_bandwidth")
    v = gpu.memory_bandwidth_bytes_per_s;
  else if (peak_field == "interconnect_unidirectional")
    v = gpu.interconnect_bandwidth_bytes_per_s / 2;  // the records hold the bidirectional total
  else if (peak_field.rfind("peak_flops.", 0) == 0) {
    const auto u = efficiency_curves_impl::unit_named(peak_field.substr(11));
    if (!u) return std::nullopt;
    switch (*u) {
      case compute_unit::fp32:
        v = gpu.peak(precision::fp32);
        break;
      case compute_unit::tf32:
        v = gpu.peak(precision::tf32);
        break;
      case compute_unit::fp16:
        v = gpu.peak(precision::fp16);
        break;
      case compute_unit::bf16:
        v = gpu.peak(precision::bf16);
        break;
      case compute_unit::fp8:
        v = gpu.peak(precision::fp8);
        break;
      case compute_unit::int8:
        v = gpu.peak(precision::int8);
        break;
      case compute_unit::int4:
        v = gpu.peak(precision::int4);
        break;
      case compute_unit::fp6:
        v = gpu.peak_fp6;
        break;
      case compute_unit::fp4:
        v = gpu.peak_fp4;
        break;
      case compute_unit::fp16_acc16:
        v = gpu.peak_fp16_acc16;
        break;
    }
  }
  if (v && !(*v > 0)) return std::nullopt;
  return v;
}

std::optional<curve_lookup> lookup_efficiency(const curve_query& q, const hardware_spec& target,
                                              const device_resolver& resolve,
                                              const std::vector<efficiency_source>& sources) {
  namespace impl = efficiency_curves_impl;
  struct pick {
    const efficiency_source* source = nullptr;
    const efficiency_curve* curve = nullptr;
    double distance = std::numeric_limits<double>::infinity();
    bool exact_shape = false;
    double ratio_penalty = 0;  // |log peak ratio| (transfers)
    double ratio = 1;
  };
  // The target's own curves first: the nearest shape.
  pick own;
  for (const efficiency_source& s : sources)
    for (const efficiency_curve& c : s.curves) {
      if (!impl::matches(c, q) || c.device != target.name) continue;
      bool exact = false;
      const double dist = impl::shape_distance(c, q, exact);
      if (dist < own.distance) own = {&s, &c, dist, exact, 0, 1};
    }
  const auto result = [&](const pick& p, bool transferred) -> std::optional<curve_lookup> {
    const auto peak = curve_peak(target, p.curve->peak_field);
    if (!peak) return std::nullopt;
    const impl::read_at at = impl::read_curve(*p.curve, q.x);
    curve_lookup l;
    l.efficiency = at.efficiency;
    l.source = p.source->id;
    l.curve = p.curve->id;
    l.device = p.curve->device;
    l.clamped = at.clamped;
    l.how = transferred ? "transferred" : (at.exact && p.exact_shape ? "measured" : "interpolated");
    l.range_widening = (transferred ? impl::k_transfer_widening * std::max(p.ratio, 1 / p.ratio) : 1.0) *
                       (at.clamped ? impl::k_clamp_widening : 1.0);
    l.peak = *peak;
    return l;
  };
  if (own.curve) return result(own, false);
  // Transfer: a curve of a device of the same vendor and architecture, the closest peak first.
  const auto target_peak_of = [&](const efficiency_curve& c) { return curve_peak(target, c.peak_field); };
  pick best;
  for (const efficiency_source& s : sources)
    for (const efficiency_curve& c : s.curves) {
      if (!impl::matches(c, q) || !resolve) continue;
      const hardware_spec* from = resolve(c.device);
      if (from == nullptr || !impl::same_architecture(*from, target)) continue;
      const auto tp = target_peak_of(c);
      if (!tp) continue;
      const double ratio = *tp / c.peak, penalty = std::abs(std::log(ratio));
      bool exact = false;
      const double dist = impl::shape_distance(c, q, exact);
      if (best.curve == nullptr || penalty < best.ratio_penalty - 1e-12 ||
          (penalty <= best.ratio_penalty + 1e-12 && dist < best.distance))
        best = {&s, &c, dist, exact, penalty, ratio};
    }
  if (best.curve) return result(best, true);
  return std::nullopt;
}

std::optional<curve_lookup> lookup_efficiency(const curve_query& q, const hardware_spec& target,
                                              const device_resolver& resolve) {
  return lookup_efficiency(q, target, resolve, efficiency_sources());
}

}  // namespace flopcast
