// The streaming result writer's numbers and strings (json_out.hpp).
#include "base/json_out.hpp"

#include <charconv>
#include <limits>
#include <nlohmann/json.hpp>

// fmt's Dragonbox gives a double's shortest decimal digits (the digits and exponent only; nlohmann
// lays them out). Header-only here, so the WebAssembly module needs no fmt library.
#define FMT_HEADER_ONLY
#include <fmt/format.h>

namespace flopcast::detail {

json_out& json_out::value(double v) {
  item();
  if (!std::isfinite(v)) {
    // A NaN or an infinity in a result is a bug: debug builds stop at it, release ones write null
    // (what JSON can hold) rather than an unreadable document.
#ifndef NDEBUG
    std::fprintf(stderr, "flopcast: a result holds a non-finite number at \"%.*s\"\n",
                 static_cast<int>(last_key_.size()), last_key_.data());
    assert(false && "a result holds NaN or an infinity");
#endif
    put("null", 4);
    return *this;
  }
  // The shortest digits that read back to v (Dragonbox, several times faster than the grisu2 that
  // nlohmann's dump runs), laid out as nlohmann lays them ("%g"-like between 1e-5 and 1e15, an
  // integral value with ".0"), so the text is the form nlohmann's dump writes for the same double.
  char buffer[40];
  char* p = buffer;
  if (std::signbit(v)) {
    *p++ = '-';
    v = -v;
  }
  if (v == 0) {
    std::memcpy(p, "0.0", 3);
    put(buffer, static_cast<std::size_t>(p + 3 - buffer));
    return *this;
  }
  const auto d = fmt::detail::dragonbox::to_decimal(v);
  const auto digits = std::to_chars(p, p + 20, d.significand);
  const char* end = nlohmann::detail::dtoa_impl::format_buffer(p, static_cast<int>(digits.ptr - p), d.exponent, -4,
                                                               std::numeric_limits<double>::digits10);
  put(buffer, static_cast<std::size_t>(end - buffer));
  return *this;
}

void json_out::grow(std::size_t need) {
  std::size_t capacity = capacity_ < 4096 ? 4096 : capacity_ * 2;
  while (capacity < need) capacity *= 2;
  std::unique_ptr<char[]> bigger(new char[capacity]);
  if (size_ > 0) std::memcpy(bigger.get(), data_.get(), size_);
  data_ = std::move(bigger);
  capacity_ = capacity;
}

json_out& json_out::key(std::string_view k) {
  separate();
  string(k);
  if (indent_ >= 0)
    put(": ", 2);
  else
    put(':');
  keyed_ = true;
#ifndef NDEBUG
  last_key_ = k;
#endif
  return *this;
}

void json_out::separate() {
  if (depth_ == 0) return;
  if (!first_[depth_ - 1]) put(',');
  first_[depth_ - 1] = false;
  newline(depth_);
}

void json_out::newline(int depth) {
  if (indent_ < 0) return;
  const std::size_t n = static_cast<std::size_t>(depth) * static_cast<std::size_t>(indent_);
  reserve(n + 1);
  data_[size_++] = '\n';
  std::memset(data_.get() + size_, ' ', n);
  size_ += n;
}

json_out& json_out::open(char c) {
  item();
  put(c);
  assert(depth_ < static_cast<int>(first_.size()) && "JSON nested too deeply");
  first_[depth_++] = true;
  return *this;
}

json_out& json_out::close(char c) {
  assert(depth_ > 0 && "no container is open");
  --depth_;
  if (!first_[depth_]) newline(depth_);
  put(c);
  return *this;
}

void json_out::integer(std::int64_t v) {
  char buffer[24];
  const auto r = std::to_chars(buffer, buffer + sizeof buffer, v);
  put(buffer, static_cast<std::size_t>(r.ptr - buffer));
}

namespace {
// The length of the well-formed UTF-8 sequence at s[i], or 0 when it is not one.
std::size_t utf8_length(std::string_view s, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = byte(i);
  std::size_t n = 0;
  unsigned low = 0x80, high = 0xBF;  // the allowed range of the second byte
  if (c >= 0xC2 && c <= 0xDF)
    n = 2;
  else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    if (c == 0xE0) low = 0xA0;
    if (c == 0xED) high = 0x9F;  // no UTF-16 surrogates
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    if (c == 0xF0) low = 0x90;
    if (c == 0xF4) high = 0x8F;
  } else
    return 0;
  if (i + n > s.size()) return 0;
  if (byte(i + 1) < low || byte(i + 1) > high) return 0;
  for (std::size_t k = 2; k < n; ++k)
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
  return n;
}
}  // namespace

namespace {
struct ascii_table {
  bool plain[256] = {};
  constexpr ascii_table() {
    for (int c = 0x20; c < 0x80; ++c) plain[c] = c != '"' && c != '\\';
  }
};
constexpr ascii_table k_ascii{};
constexpr const bool* plain_ascii = k_ascii.plain;
}  // namespace

void json_out::string(std::string_view s) {
  put('"');
  std::size_t plain = 0;  // start of the run not yet copied
  for (std::size_t i = 0; i < s.size();) {
    // Plain ASCII runs (all keys, nearly all values) are skipped a byte at a time off a table.
    while (i < s.size() && plain_ascii[static_cast<unsigned char>(s[i])]) ++i;
    if (i == s.size()) break;
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x80) {
      if (const std::size_t n = utf8_length(s, i); n > 0) {
        i += n;
        continue;
      }
    }
    put(s.data() + plain, i - plain);
    switch (c) {
      case '"':
        put("\\\"", 2);
        break;
      case '\\':
        put("\\\\", 2);
        break;
      case '\b':
        put("\\b", 2);
        break;
      case '\f':
        put("\\f", 2);
        break;
      case '\n':
        put("\\n", 2);
        break;
      case '\r':
        put("\\r", 2);
        break;
      case '\t':
        put("\\t", 2);
        break;
      default:
        if (c < 0x20) {
          static constexpr char hex[] = "0123456789abcdef";
          put("\\u00", 4);
          put(hex[c >> 4]);
          put(hex[c & 0xF]);
        } else {
          put("\xEF\xBF\xBD", 3);  // a byte that is not UTF-8: U+FFFD, as a reader would show it
        }
    }
    plain = ++i;
  }
  put(s.data() + plain, s.size() - plain);
  put('"');
}

}  // namespace flopcast::detail
