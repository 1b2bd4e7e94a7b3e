// The shared JSON reading helpers (json_reader.hpp).
#include "base/json_reader.hpp"

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "base/detail.hpp"

namespace flopcast::detail {

std::string describe(const json& v) {
  std::string text = v.dump();
  if (text.size() > 40) text = text.substr(0, 37) + "...";
  return std::string(v.type_name()) + " " + text;
}

// The message for text nlohmann's parser refuses; it carries line and column. Its
// "[json.exception...] " prefix is dropped.
error invalid_json(const char* what, const json::exception& e) {
  std::string msg = e.what();
  const auto pos = msg.find("] ");
  return error(error_code::config_parse, "",
               std::string(what) + " is not valid JSON: " + (pos == std::string::npos ? msg : msg.substr(pos + 2)));
}

namespace {

// Builds the parsed value from nlohmann's SAX events in time linear in the text: each value is
// put once into its parent, and each key is inserted once into its object's map, whose insert
// also tells a duplicate key (no search over the keys seen; nlohmann's callback parser, which
// the depth limit used before, rescans the parent after every nested value). The depth limit is
// checked when an array or object opens: the outermost one is at depth 0, as the callback
// parser counted.
class dom_builder : public sax_events<dom_builder> {
 public:
  dom_builder(json& root, const char* what) : root_(root), what_(what) {}

  bool key(json::string_t& k) {
    auto& object = open_.back()->get_ref<json::object_t&>();
    // try_emplace leaves `k` alone when the key is there already.
    const auto [it, inserted] = object.try_emplace(std::move(k));
    if (!inserted)
      throw error(error_code::config_parse, "",
                  std::string(what_) + " has the key \"" + k + "\" twice in one object: expected each key once");
    element_ = &it->second;
    return true;
  }

  template <class Exception>
  bool parse_error(std::size_t /*position*/, const std::string& /*last_token*/, const Exception& e) {
    throw invalid_json(what_, e);
  }

 private:
  friend class sax_events<dom_builder>;
  template <class V>
  json* place(V&& v) {
    if (open_.empty()) {
      root_ = json(std::forward<V>(v));
      return &root_;
    }
    json& parent = *open_.back();
    if (parent.is_array()) {
      auto& array = parent.get_ref<json::array_t&>();
      array.emplace_back(std::forward<V>(v));
      return &array.back();
    }
    *element_ = json(std::forward<V>(v));
    return element_;
  }
  template <class V>
  bool put(V&& v) {
    place(std::forward<V>(v));
    return true;
  }
  bool open(json::value_t type) {
    if (open_.size() >= k_max_depth)
      throw error(error_code::limit, "",
                  std::string(what_) + " is nested deeper than " + std::to_string(k_max_depth) + " levels");
    open_.push_back(place(type));
    return true;
  }
  bool close() {
    open_.pop_back();
    return true;
  }

  json& root_;
  const char* what_;
  std::vector<json*> open_;  // the arrays and objects not yet closed, outermost first
  json* element_ = nullptr;  // the value of the object key just read
};

}  // namespace

json parse_json(std::string_view text, const char* what) {
  if (text.size() > k_max_text_bytes)
    throw error(error_code::limit, "",
                std::string(what) + " is " + std::to_string(text.size()) + " bytes: expected at most " +
                    std::to_string(k_max_text_bytes) + " (16 MiB)");
  // Depth and duplicate keys are checked while parsing (nlohmann's parser is iterative; only
  // later recursion, e.g. dumping a value into a message, could overflow the stack).
  json out;
  dom_builder builder(out, what);
  try {
    json::sax_parse(text.begin(), text.end(), &builder);
  } catch (const json::exception& e) {
    throw invalid_json(what, e);
  }
  return out;
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
std::string release_or_empty(const reader& r, std::string_view key) {
  if (!r.has(key) || r.at(key).is_null()) return "";  // null: what the list outputs write for "none"
  const std::string v = r.string_or(key, "");
  int parts = 0, digits = 0;
  bool ok = !v.empty() && v.size() <= 32;
  for (char c : v) {
    if (c >= '0' && c <= '9') {
      ++digits;
    } else if (c == '.' && digits > 0) {
      ++parts;
      digits = 0;
    } else {
      ok = false;
    }
  }
  if (!ok || parts != 2 || digits == 0)
    throw error(error_code::config_range, r.ptr(key),
                "expected a release as MAJOR.MINOR.PATCH (e.g. \"0.3.0\"), but got \"" + v.substr(0, 40) + "\"");
  return v;
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
