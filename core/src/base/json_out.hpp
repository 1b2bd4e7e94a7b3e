#pragma once
// A streaming JSON writer for results: fields go straight into one string, in order, with no
// tree of values built and destroyed per call (that tree was ~70% of estimate_json's time and
// most of the WebAssembly module's code). The output is what nlohmann's dump() writes for the
// same document: compact with indent < 0, else its layout ("key": value, one item per line,
// [] and {} for empty containers); doubles are the shortest text that reads back to the same
// double, integral ones with ".0" so that a reader keeps them floating-point.
#include <array>
#include <cassert>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

namespace flopcast::detail {

class json_out {
 public:
  explicit json_out(int indent = -1) : indent_(indent) {}

  // Containers: a key first inside an object, none inside an array or at the top.
  json_out& begin_object() { return open('{'); }
  json_out& begin_array() { return open('['); }
  json_out& end_object() { return close('}'); }
  json_out& end_array() { return close(']'); }
  json_out& key(std::string_view k);

  json_out& value(std::nullptr_t) { return token("null"); }
  json_out& value(bool b) { return token(b ? "true" : "false"); }
  json_out& value(std::string_view s) {
    item();
    string(s);
    return *this;
  }
  json_out& value(const char* s) { return value(std::string_view(s)); }
  json_out& value(const std::string& s) { return value(std::string_view(s)); }
  json_out& value(double v);
  template <class T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
  json_out& value(T v) {
    item();
    integer(static_cast<std::int64_t>(v));
    return *this;
  }
  template <class T>
  json_out& value(const std::optional<T>& v) {
    return v ? value(*v) : value(nullptr);
  }
  // Already-written JSON (another writer's output), inserted as one value.
  json_out& raw(std::string_view json_text) {
    item();
    put(json_text.data(), json_text.size());
    return *this;
  }

  template <class T>
  json_out& field(std::string_view k, const T& v) {
    key(k);
    return value(v);
  }
  // A number where `has` holds, else null.
  template <class T>
  json_out& field_if(std::string_view k, bool has, const T& v) {
    key(k);
    return has ? value(v) : value(nullptr);
  }
  // A string field that is null when empty.
  json_out& text_or_null(std::string_view k, std::string_view v) {
    key(k);
    return v.empty() ? value(nullptr) : value(v);
  }
  // {"k": {...}} and {"k": [...]} with the body written by `body()`.
  template <class F>
  json_out& object(std::string_view k, F&& body) {
    key(k);
    begin_object();
    body();
    return end_object();
  }
  template <class F>
  json_out& array(std::string_view k, F&& body) {
    key(k);
    begin_array();
    body();
    return end_array();
  }
  // {"k": [each element of `list` as a string]}.
  template <class List>
  json_out& strings(std::string_view k, const List& list) {
    key(k);
    begin_array();
    for (const auto& x : list) value(std::string_view(x));
    return end_array();
  }
  // [low, high].
  json_out& pair(std::string_view k, double low, double high) {
    key(k);
    begin_array();
    value(low);
    value(high);
    return end_array();
  }

  [[nodiscard]] std::string take() {
    assert(depth_ == 0 && "a container was left open");
    return size_ > 0 ? std::string(data_.get(), size_) : std::string();
  }

 private:
  json_out& token(std::string_view t) {
    item();
    put(t.data(), t.size());
    return *this;
  }
  // Before a value: the separator in an array (after a key it was written already).
  void item() {
    if (keyed_)
      keyed_ = false;
    else
      separate();
  }
  void separate();
  void newline(int depth);
  json_out& open(char c);
  json_out& close(char c);
  void integer(std::int64_t v);
  void string(std::string_view s);

  // The text grows in one buffer with inline appends (std::string's are out-of-line calls: its
  // members are instantiated in the standard library, not here).
  void reserve(std::size_t more) {
    if (size_ + more > capacity_) grow(size_ + more);
  }
  void put(char c) {
    reserve(1);
    data_[size_++] = c;
  }
  void put(const char* p, std::size_t n) {
    if (n == 0) return;  // memcpy's pointers must be valid even for no bytes (an empty buffer has none)
    reserve(n);
    std::memcpy(data_.get() + size_, p, n);
    size_ += n;
  }
  void grow(std::size_t need);

  std::unique_ptr<char[]> data_;
  std::size_t size_ = 0, capacity_ = 0;
  int indent_;
  int depth_ = 0;
  bool keyed_ = false;
  std::array<bool, 32> first_{};
#ifndef NDEBUG
  std::string_view last_key_;
#endif
};

}  // namespace flopcast::detail
