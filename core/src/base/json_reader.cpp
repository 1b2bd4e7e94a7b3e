// The shared JSON reading helpers (json_reader.hpp).
#include "base/json_reader.hpp"

#include <algorithm>
#include <cmath>

#include "base/detail.hpp"

namespace flopcast::detail {

std::string describe(const json& v) {
  std::string text = v.dump();
  if (text.size() > 40) text = text.substr(0, 37) + "...";
  return std::string(v.type_name()) + " " + text;
}

json parse_json(std::string_view text, const char* what) {
  if (text.size() > k_max_text_bytes)
    throw error(error_code::limit, "",
                std::string(what) + " is " + std::to_string(text.size()) + " bytes: expected at most " +
                    std::to_string(k_max_text_bytes) + " (16 MiB)");
  // Depth and duplicate keys are checked while parsing (nlohmann's parser is iterative; only
  // later recursion, e.g. dumping a value into a message, could overflow the stack).
  std::vector<std::vector<std::string>> keys;  // the keys seen in each open object
  std::string duplicate;
  const json::parser_callback_t check = [&](int depth, json::parse_event_t event, json& parsed) {
    switch (event) {
      case json::parse_event_t::object_start:
      case json::parse_event_t::array_start:
        if (depth >= static_cast<int>(k_max_depth))
          throw error(error_code::limit, "",
                      std::string(what) + " is nested deeper than " + std::to_string(k_max_depth) + " levels");
        if (event == json::parse_event_t::object_start) keys.emplace_back();
        break;
      case json::parse_event_t::object_end:
        keys.pop_back();
        break;
      case json::parse_event_t::key: {
        const std::string& k = parsed.get_ref<const std::string&>();
        auto& seen = keys.back();
        if (std::find(seen.begin(), seen.end(), k) != seen.end())
          throw error(error_code::config_parse, "",
                      std::string(what) + " has the key \"" + k + "\" twice in one object: expected each key once");
        seen.push_back(k);
        break;
      }
      default:
        break;
    }
    return true;
  };
  try {
    return json::parse(text.begin(), text.end(), check);
  } catch (const json::exception& e) {
    // nlohmann's message carries line and column; drop its "[json.exception...] " prefix.
    std::string msg = e.what();
    const auto pos = msg.find("] ");
    throw error(error_code::config_parse, "",
                std::string(what) + " is not valid JSON: " + (pos == std::string::npos ? msg : msg.substr(pos + 2)));
  }
}

json parse_object(std::string_view text, const char* what) {
  json j = parse_json(text, what);
  if (!j.is_object())
    throw error(error_code::config_type, "",
                std::string("expected ") + what + " to be a JSON object, but got " + describe(j));
  return j;
}

std::int64_t to_integer(const json& v, const std::string& ptr, std::int64_t min, std::int64_t max,
                        const char* expected) {
  std::int64_t out = 0;
  if (v.is_number_integer()) {
    if (v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(max))
      throw error(error_code::config_range, ptr, std::string("expected ") + expected + ", but got " + v.dump());
    out = v.get<std::int64_t>();
  } else if (v.is_number_float() && std::isfinite(v.get<double>()) && std::floor(v.get<double>()) == v.get<double>() &&
             std::fabs(v.get<double>()) < 9.0e15) {
    out = static_cast<std::int64_t>(v.get<double>());
  } else if (v.is_number_float() && std::isfinite(v.get<double>()) && std::floor(v.get<double>()) == v.get<double>()) {
    throw error(error_code::config_range, ptr, std::string("expected ") + expected + ", but got " + v.dump());
  } else {
    throw error(error_code::config_type, ptr, std::string("expected ") + expected + ", but got " + describe(v));
  }
  if (out < min || out > max)
    throw error(error_code::config_range, ptr,
                std::string("expected ") + expected + ", but got " + std::to_string(out));
  return out;
}

bool reader::has(std::string_view key) const {
  auto it = j_.find(std::string(key));
  return it != j_.end() && !it->is_null();
}

std::string_view reader::pick(std::initializer_list<std::string_view> keys) const {
  for (auto k : keys)
    if (has(k)) return k;
  return *keys.begin();
}

std::int64_t reader::integer(std::string_view key, std::int64_t min, std::int64_t max, const char* expected) const {
  if (!has(key))
    throw error(error_code::config_missing, ptr(key), std::string("required field is missing: expected ") + expected);
  return to_integer(at(key), ptr(key), min, max, expected);
}
std::int64_t reader::positive(std::string_view key) const {
  return integer(key, 1, k_max_dim, "a positive integer (at most 2^30)");
}
std::int64_t reader::positive_or(std::string_view key, std::int64_t fallback) const {
  return has(key) ? positive(key) : fallback;
}
std::int64_t reader::non_negative_or(std::string_view key, std::int64_t fallback) const {
  return has(key) ? integer(key, 0, k_max_dim, "a non-negative integer (at most 2^30)") : fallback;
}
bool reader::boolean_or(std::string_view key, bool fallback) const {
  if (!has(key)) return fallback;
  const json& v = at(key);
  if (!v.is_boolean()) throw error(error_code::config_type, ptr(key), "expected true or false, but got " + describe(v));
  return v.get<bool>();
}
double reader::number_or(std::string_view key, double fallback, double min, double max) const {
  if (!has(key)) return fallback;
  const json& v = at(key);
  if (!v.is_number()) throw error(error_code::config_type, ptr(key), "expected a number, but got " + describe(v));
  const double d = v.get<double>();
  if (!(d >= min && d <= max))
    throw error(error_code::config_range, ptr(key),
                "expected a number in [" + format_number(min) + ", " + format_number(max) + "], but got " + v.dump());
  return d;
}
std::string reader::string_or(std::string_view key, std::string fallback) const {
  if (!has(key)) return fallback;
  const json& v = at(key);
  if (!v.is_string()) throw error(error_code::config_type, ptr(key), "expected a string, but got " + describe(v));
  return v.get<std::string>();
}
std::vector<std::int64_t> reader::int_list_or_empty(std::string_view key) const {
  std::vector<std::int64_t> out;
  if (!has(key)) return out;
  const json& v = at(key);
  if (!v.is_array())
    throw error(error_code::config_type, ptr(key), "expected an array of integers, but got " + describe(v));
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (!v[i].is_number_integer())
      throw error(error_code::config_type, ptr(key) + "/" + std::to_string(i),
                  "expected an integer, but got " + describe(v[i]));
    out.push_back(v[i].get<std::int64_t>());
  }
  return out;
}
std::vector<std::string> reader::string_list_or_empty(std::string_view key) const {
  std::vector<std::string> out;
  if (!has(key)) return out;
  const json& v = at(key);
  if (!v.is_array())
    throw error(error_code::config_type, ptr(key), "expected an array of strings, but got " + describe(v));
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (!v[i].is_string())
      throw error(error_code::config_type, ptr(key) + "/" + std::to_string(i),
                  "expected a string, but got " + describe(v[i]));
    out.push_back(v[i].get<std::string>());
  }
  return out;
}

void reader::only(const std::vector<std::string_view>& known, const char* what) const {
  for (auto it = j_.begin(); it != j_.end(); ++it) {
    if (std::find(known.begin(), known.end(), it.key()) != known.end()) continue;
    std::string list;
    for (auto k : known) list += (list.empty() ? "" : ", ") + std::string(k);
    throw error(error_code::invalid_argument, ptr(it.key()),
                std::string("unknown ") + what + ": expected one of " + list);
  }
}

void range_error(const reader& r, std::string_view key, const std::string& message) {
  throw error(error_code::config_range, r.ptr(key), message);
}

}  // namespace flopcast::detail

namespace flopcast {
nlohmann::json parse_json_text(std::string_view text, const char* what) { return detail::parse_json(text, what); }
}  // namespace flopcast
