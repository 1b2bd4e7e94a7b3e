#include "flopcast/base/format.hpp"

#include <array>
#include <cmath>
#include <cstdio>
#include <stdexcept>

// Every step mirrors web/src/format.js operation for operation (the same IEEE doubles in the same
// order), so both print the same digits; tests/fixtures/format_cases.json holds the cases.
namespace flopcast::display {
namespace {

constexpr int max_decimals = 9;

double pow10(int n) {
  double p = 1;
  for (int i = 0; i < std::abs(n); ++i) p *= 10;
  return n < 0 ? 1 / p : p;
}
double scale_by(double x, int k) { return k >= 0 ? x * pow10(k) : x / pow10(-k); }

std::string group(const std::string& digits) {
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

// The text of m / 10^k (m a non-negative integer-valued double), integer part grouped.
std::string decimal_text(double m, int k, bool trim) {
  char buf[400];                              // the largest double has 309 digits
  std::snprintf(buf, sizeof buf, "%.0f", m);  // exact digits, also beyond 2^53
  std::string d = buf;
  if (k <= 0) return group(d + std::string(static_cast<std::size_t>(-k), '0'));
  const auto uk = static_cast<std::size_t>(k);
  if (d.size() <= uk) d = std::string(uk + 1 - d.size(), '0') + d;
  const std::string whole = d.substr(0, d.size() - uk);
  std::string frac = d.substr(d.size() - uk);
  if (trim) {
    const auto last = frac.find_last_not_of('0');
    frac = last == std::string::npos ? std::string() : frac.substr(0, last + 1);
  }
  return group(whole) + (frac.empty() ? "" : "." + frac);
}

struct rounded {
  std::string text;
  double value = 0;
  bool zero = true;
};

// |x| (x >= 0) rounded to `digits` significant digits, half up.
rounded sig(double x, int digits) {
  double m = 0;
  int k = 0;
  if (x != 0) {
    int e = static_cast<int>(std::floor(std::log10(x)));
    if (x >= pow10(e + 1))
      ++e;
    else if (x < pow10(e))
      --e;
    k = digits - 1 - e;
    m = std::floor(scale_by(x, k) + 0.5);
    if (m >= pow10(digits)) {
      --k;
      m = std::floor(scale_by(x, k) + 0.5);
    }
    if (k > max_decimals) {
      m = 0;
      k = 0;
    }
  }
  return {decimal_text(m, k, true), scale_by(m, -k), m == 0};
}

std::string signed_text(bool negative, const rounded& r) { return negative && !r.zero ? "-" + r.text : r.text; }

double at_level(double a, int level, double base) {
  double x = a;
  for (int i = 0; i < level; ++i) x /= base;
  for (int i = 0; i > level; --i) x *= 1000;
  return x;
}

struct laddered {
  std::string text;
  std::string_view unit;
};

template <std::size_t N, std::size_t S>
laddered ladder(double v, int digits, double base, const std::array<std::string_view, N>& names,
                const std::array<std::string_view, S>& small) {
  const double a = std::fabs(v);
  const int top = static_cast<int>(N) - 1;
  const int low = -(static_cast<int>(S) - 1);
  int level = 0;
  if (a > 0) {
    while (level < top && at_level(a, level, base) >= 1000) ++level;
    while (level > low && at_level(a, level, base) < 1) --level;
  }
  rounded r = sig(at_level(a, level, base), digits);
  if (r.value >= 1000 && level < top) r = sig(at_level(a, ++level, base), digits);
  if (r.zero) level = 0;
  return {signed_text(v < 0, r),
          level >= 0 ? names[static_cast<std::size_t>(level)] : small[static_cast<std::size_t>(-level)]};
}

constexpr std::array<std::string_view, 9> si_up = {"", "k", "M", "G", "T", "P", "E", "Z", "Y"};
constexpr std::array<std::string_view, 4> si_down = {"", "m", "µ", "n"};
constexpr std::array<std::string_view, 1> no_small = {""};
constexpr std::array<std::string_view, 9> binary = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB", "ZiB", "YiB"};

bool finite(double v) { return std::isfinite(v); }
std::string none() { return std::string(none_text); }
std::string cat(std::string_view a, std::string_view b, std::string_view c = {}, std::string_view d = {}) {
  std::string out;
  out.reserve(a.size() + b.size() + c.size() + d.size());
  return out.append(a).append(b).append(c).append(d);
}

}  // namespace

std::string format_number(double v, int digits) {
  if (!finite(v)) return none();
  return signed_text(v < 0, sig(std::fabs(v), digits));
}

std::string format_si(double v, std::string_view unit, int digits, bool small) {
  if (!finite(v)) return none();
  const laddered r = small ? ladder(v, digits, 1000, si_up, si_down) : ladder(v, digits, 1000, si_up, no_small);
  return cat(r.text, " ", r.unit, unit);
}

std::string format_flops(double f) { return format_si(f, "FLOP", 3, false); }
std::string format_flop_rate(double f) { return format_si(f, "FLOP/s", 3, false); }
std::string format_bandwidth(double b) { return format_si(b, "B/s", 3, false); }
std::string format_bytes(double b) {
  if (!finite(b)) return none();
  const laddered r = ladder(b, 3, 1024, binary, no_small);
  return cat(r.text, " ", r.unit);
}
std::string format_joules(double j) { return format_si(j, "J"); }
std::string format_wh(double wh) { return format_si(wh, "Wh"); }
std::string format_watts(double w) { return format_si(w, "W"); }
std::string format_grams(double g) {
  if (!finite(g)) return none();
  static constexpr std::array<std::string_view, 3> up = {"g", "kg", "t"};
  static constexpr std::array<std::string_view, 3> down = {"", "mg", "µg"};
  const laddered r = ladder(g, 3, 1000, up, down);
  return cat(r.text, " ", r.unit);
}
std::string format_per_second(double v, std::string_view unit) { return format_si(v, cat(unit, "/s"), 3, false); }
std::string format_rate(double v) { return finite(v) ? format_number(v) + " tok/s" : none(); }
std::string format_percent(double v) { return finite(v) ? format_number(v * 100) + " %" : none(); }

std::string plural(double n, std::string_view one, std::string_view many) {
  if (!finite(n)) return none();
  const std::string text = format_integer(n);
  if (text == "1") return cat(text, " ", one);
  return many.empty() ? cat(text, " ", one, "s") : cat(text, " ", many);
}

std::string format_bits(double v) {
  if (!finite(v)) return none();
  const std::string text = format_number(v);
  return text + (text == "1" ? " bit" : " bits");
}

std::string format_seconds(double s) {
  if (!finite(s) || s == 0) return none();
  struct unit {
    std::string_view name, singular;
    double seconds, next;
  };
  static constexpr std::array<unit, 8> time = {{{"ns", "ns", 1e-9, 1000},
                                                {"µs", "µs", 1e-6, 1000},
                                                {"ms", "ms", 1e-3, 1000},
                                                {"s", "s", 1, 60},
                                                {"min", "min", 60, 60},
                                                {"h", "h", 3600, 24},
                                                {"days", "day", 86400, 365.25},
                                                {"years", "year", 31557600, HUGE_VAL}}};
  static constexpr std::array<double, 3> times = {1e9, 1e6, 1e3};
  const double a = std::fabs(s);
  const auto in_unit = [&](std::size_t i) { return i < 3 ? a * times[i] : a / time[i].seconds; };
  std::size_t i = time.size() - 1;
  while (i > 0 && a < time[i].seconds) --i;
  rounded r = sig(in_unit(i), 3);
  if (r.value >= time[i].next) r = sig(in_unit(++i), 3);
  if (r.zero) return none();
  return cat(signed_text(s < 0, r), " ", r.text == "1" ? time[i].singular : time[i].name);
}

std::string format_integer(double n) {
  if (!finite(n)) return none();
  const double m = std::floor(std::fabs(n) + 0.5);
  return (n < 0 && m != 0 ? "-" : "") + decimal_text(m, 0, false);
}

std::string format_count(double n) {
  if (!finite(n)) return none();
  if (std::fabs(n) < 1e6) return std::floor(n) == n ? format_integer(n) : format_number(n);
  static constexpr std::array<std::string_view, 5> suffix = {"", "K", "M", "B", "T"};
  const laddered r = ladder(n, 3, 1000, suffix, no_small);
  return cat(r.text, r.unit);
}

std::string format_usd(double v) {
  if (!finite(v)) return none();
  const double a = std::fabs(v);
  std::string text;
  bool zero = false;
  if (a >= 1e15) {
    text = sig(a, 3).text;  // no cents on amounts this absurd (none exact beyond 2^53 cents)
  } else if (a >= 0.01) {
    text = decimal_text(std::floor(a * 100 + 0.5), 2, false);
  } else {
    const rounded r = sig(a, 3);
    zero = r.zero;
    text = zero ? "0.00" : r.text;
  }
  return cat(v < 0 && !zero ? "-" : "", "$", text);
}

std::string format_as(std::string_view kind, double v, std::string_view unit) {
  if (kind == "boolean") return std::isnan(v) ? none() : v != 0 ? "yes" : "no";
  if (kind == "bound") return std::isnan(v) ? none() : v != 0 ? "compute" : "memory";
  if (kind == "count") return format_count(v);
  if (kind == "int") return format_integer(v);
  if (kind == "flops") return format_flops(v);
  if (kind == "flops/s") return format_flop_rate(v);
  if (kind == "bytes") return format_bytes(v);
  if (kind == "bytes/s") return format_bandwidth(v);
  if (kind == "seconds") return format_seconds(v);
  if (kind == "rate") return format_rate(v);
  if (kind == "joules") return format_joules(v);
  if (kind == "wh") return format_wh(v);
  if (kind == "watts") return format_watts(v);
  if (kind == "grams") return format_grams(v);
  if (kind == "usd") return format_usd(v);
  if (kind == "percent") return format_percent(v);
  if (kind == "bits") return format_bits(v);
  if (kind == "number") return format_number(v);
  if (kind == "per_second") return format_per_second(v, unit);
  if (kind == "plural") return plural(v, unit);
  throw std::invalid_argument(cat("no format rule '", kind, "'"));
}

}  // namespace flopcast::display
