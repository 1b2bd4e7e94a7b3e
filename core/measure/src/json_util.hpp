#pragma once
// JSON building blocks of the measurement output (internal; nlohmann stays at the edge).
#include <cmath>
#include <nlohmann/json.hpp>

#include "flopcast/measure/figure.hpp"
#include "flopcast/measure/suite.hpp"

namespace flopcast::measure::json_util {

using json = nlohmann::ordered_json;

// A number, or null when not finite.
inline json number(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

// {"value": v | null, "label": "MEASURED" | "ESTIMATED" | "unavailable", "note"?: "..."}
inline json figure_json(const figure& f) {
  json j;
  j["value"] = f.value ? number(*f.value) : json(nullptr);
  j["label"] = std::string(to_string(f.label));
  if (!f.note.empty()) j["note"] = f.note;
  return j;
}

inline json metric_json(const metric& m) {
  json j;
  j["task"] = m.task;
  j["metric"] = m.name;
  j["value"] = m.value.value ? number(*m.value.value) : json(nullptr);
  j["unit"] = m.unit;
  j["label"] = std::string(to_string(m.value.label));
  if (m.stddev) j["stddev"] = number(*m.stddev);
  if (m.samples > 0) j["samples"] = m.samples;
  if (!m.value.note.empty()) j["note"] = m.value.note;
  return j;
}

}  // namespace flopcast::measure::json_util
