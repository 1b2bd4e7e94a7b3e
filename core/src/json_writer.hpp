#pragma once
// Finishing a result object: in debug builds every number is checked to be finite first (a NaN
// or an infinity in a result is a bug: nlohmann would print it as null, hiding it).
#include <cassert>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

namespace flopcast::detail {

// The pointer of the first non-finite number in `v`, or "" when there is none.
inline std::string first_non_finite(const nlohmann::ordered_json& v, const std::string& at = "") {
  if (v.is_number_float()) return std::isfinite(v.get<double>()) ? std::string() : (at.empty() ? "/" : at);
  if (v.is_object()) {
    for (auto it = v.begin(); it != v.end(); ++it)
      if (auto p = first_non_finite(it.value(), at + "/" + it.key()); !p.empty()) return p;
  } else if (v.is_array()) {
    for (std::size_t i = 0; i < v.size(); ++i)
      if (auto p = first_non_finite(v[i], at + "/" + std::to_string(i)); !p.empty()) return p;
  }
  return {};
}

inline std::string dump_result(const nlohmann::ordered_json& out, int indent) {
#ifndef NDEBUG
  const std::string bad = first_non_finite(out);
  if (!bad.empty()) std::fprintf(stderr, "flopcast: a result holds a non-finite number at %s\n", bad.c_str());
  assert(bad.empty() && "a result holds NaN or an infinity");
#endif
  return out.dump(indent);
}

}  // namespace flopcast::detail
