#pragma once
// Typed, range-checked access to parsed JSON, shared by the config, hardware, calibration
// and request readers. Every error names its field by the full JSON pointer from the root of
// what the user gave (a reader made for a nested part carries its base pointer).
#include <cstdint>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "flopcast/base/error.hpp"

namespace flopcast::detail {

using json = nlohmann::json;

// "string \"4096\"", "array [1,2]" (cut to 40 characters): what a message says it got.
[[nodiscard]] std::string describe(const json& v);

// Limits on every JSON text flopcast reads (configs, requests, GPU records, calibration stores):
// its size, and how deeply arrays and objects nest. Duplicate keys are refused too.
inline constexpr std::size_t k_max_text_bytes = std::size_t{16} << 20;  // 16 MiB
inline constexpr std::size_t k_max_depth = 128;

// Parses `text` as one JSON object; `what` names it in errors ("config.json", "the request").
[[nodiscard]] json parse_object(std::string_view text, const char* what);
// Parses `text` as any JSON value.
[[nodiscard]] json parse_json(std::string_view text, const char* what);
// nlohmann's SAX events (json::sax_parse) as three calls on Handler: put(value) for a scalar,
// open(json::value_t::object or array) and close() for an object or array; Handler adds key()
// and parse_error() and befriends this class.
template <class Handler>
class sax_events {
 public:
  bool null() { return self().put(nullptr); }
  bool boolean(bool v) { return self().put(v); }
  bool number_integer(json::number_integer_t v) { return self().put(v); }
  bool number_unsigned(json::number_unsigned_t v) { return self().put(v); }
  bool number_float(json::number_float_t v, const json::string_t& /*text*/) { return self().put(v); }
  bool string(json::string_t& v) { return self().put(std::move(v)); }
  bool binary(json::binary_t& v) { return self().put(json::binary(std::move(v))); }

  bool start_object(std::size_t /*elements*/) { return self().open(json::value_t::object); }
  bool start_array(std::size_t /*elements*/) { return self().open(json::value_t::array); }
  bool end_object() { return self().close(); }
  bool end_array() { return self().close(); }

 private:
  Handler& self() { return static_cast<Handler&>(*this); }
};

// The error for text nlohmann's parser refuses ("<what> is not valid JSON: ..."), for readers
// with their own SAX handler.
[[nodiscard]] error invalid_json(const char* what, const json::exception& e);

// An integer in [min, max]; integral floats (4096.0) are accepted. `expected` completes
// "expected ..." in the message.
[[nodiscard]] std::int64_t to_integer(const json& v, const std::string& ptr, std::int64_t min, std::int64_t max,
                                      const char* expected);

// Re-anchors an error raised for a nested value under `base` ("/model" + "/hidden_size").
template <class F>
decltype(auto) nested(const std::string& base, F&& fn) {
  try {
    return fn();
  } catch (const error& e) {
    throw error(e.code(), base + e.pointer(), e.message());
  }
}

class reader {
 public:
  explicit reader(const json& j, std::string base = "") : j_(j), base_(std::move(base)) {}

  [[nodiscard]] const json& value() const { return j_; }
  [[nodiscard]] const std::string& base() const { return base_; }
  [[nodiscard]] bool has(std::string_view key) const;
  [[nodiscard]] const json& at(std::string_view key) const { return j_.at(std::string(key)); }
  [[nodiscard]] std::string ptr(std::string_view key) const { return base_ + "/" + std::string(key); }
  // The first of `keys` present (some families renamed fields over time).
  [[nodiscard]] std::string_view pick(std::initializer_list<std::string_view> keys) const;

  [[nodiscard]] std::int64_t integer(std::string_view key, std::int64_t min, std::int64_t max,
                                     const char* expected) const;
  [[nodiscard]] std::int64_t positive(std::string_view key) const;
  [[nodiscard]] std::int64_t positive_or(std::string_view key, std::int64_t fallback) const;
  // A layer count: at most 2^16 (the deepest published models have a few hundred), so no
  // config can make an estimate's time or output grow without bound.
  [[nodiscard]] std::int64_t layers(std::string_view key) const {
    return integer(key, 1, k_max_layers, "a positive integer (at most 2^16)");
  }
  [[nodiscard]] std::int64_t non_negative_or(std::string_view key, std::int64_t fallback) const;
  [[nodiscard]] bool boolean_or(std::string_view key, bool fallback) const;
  [[nodiscard]] double number_or(std::string_view key, double fallback, double min, double max) const;
  [[nodiscard]] std::string string_or(std::string_view key, std::string fallback) const;
  [[nodiscard]] std::vector<std::int64_t> int_list_or_empty(std::string_view key) const;
  [[nodiscard]] std::vector<std::string> string_list_or_empty(std::string_view key) const;
  // Fails on a key not in `known`, listing them: "unknown field: expected one of ...".
  void only(const std::vector<std::string_view>& known, const char* what) const;

  static constexpr std::int64_t k_max_dim = std::int64_t{1} << 30;
  static constexpr std::int64_t k_max_layers = std::int64_t{1} << 16;

 private:
  const json& j_;
  std::string base_;
};

[[noreturn]] void range_error(const reader& r, std::string_view key, const std::string& message);

// A record's "added": the flopcast release that first bundled it, "MAJOR.MINOR.PATCH" (digits
// only); empty when the key is absent.
[[nodiscard]] std::string release_or_empty(const reader& r, std::string_view key);

}  // namespace flopcast::detail
