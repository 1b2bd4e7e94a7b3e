#pragma once
// Internal helpers every room may use: counts as doubles, case-insensitive names, checked 64-bit
// arithmetic and number text. Helpers on model shapes: model/model_parts.hpp; on estimates:
// estimate/estimate_parts.hpp.
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "flopcast/base/error.hpp"

namespace flopcast::detail {

// An integer count as a double (exact below 2^53): FLOP and byte arithmetic is carried in double.
[[nodiscard]] constexpr double d(std::int64_t v) noexcept { return static_cast<double>(v); }

// ASCII lower case (names, aliases, policies: matching is case-insensitive).
[[nodiscard]] inline std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// A name as lookups compare it: lower case, letters and digits only ("H100 SXM" == "h100-sxm",
// "TensorRT_LLM" == "tensorrt-llm", "llama.cpp" == "llamacpp").
[[nodiscard]] inline std::string squash_name(std::string_view s) {
  std::string out;
  for (char c : s)
    if (std::isalnum(static_cast<unsigned char>(c)))
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Checked 64-bit integer arithmetic: a parameter count never wraps silently.
[[nodiscard]] inline std::int64_t mul(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r))
    throw error(error_code::config_range, "", "model is too large: a parameter count exceeds 2^63");
  return r;
}
[[nodiscard]] inline std::int64_t add(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r))
    throw error(error_code::config_range, "", "model is too large: a parameter count exceeds 2^63");
  return r;
}
[[nodiscard]] inline std::int64_t mul(std::int64_t a, std::int64_t b, std::int64_t c) { return mul(mul(a, b), c); }

// Shortest text that reads back as the same double ("2", "0.85", "1e+30").
[[nodiscard]] inline std::string format_number(double v) {
  char buf[32];
  int first = 1;  // no exponent for ordinary magnitudes: 80, not 8e+01
  if (v != 0 && std::fabs(v) >= 1 && std::fabs(v) < 1e15)
    first = static_cast<int>(std::floor(std::log10(std::fabs(v)))) + 1;
  for (int precision = first; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  return buf;
}

// Four significant digits, for figures quoted in messages.
[[nodiscard]] inline std::string format_short(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

}  // namespace flopcast::detail
