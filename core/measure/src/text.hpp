#pragma once
// Human-readable numbers for the measurement tables (internal).
#include <fmt/format.h>

#include <cmath>
#include <string>

namespace flopcast::measure::text {

// 1.23 ms, 45.6 us, 789 ns, 2.34 s
inline std::string duration(double s) {
  if (!std::isfinite(s)) return "-";
  const double a = std::fabs(s);
  if (a >= 1) return fmt::format("{:.3f} s", s);
  if (a >= 1e-3) return fmt::format("{:.2f} ms", s * 1e3);
  if (a >= 1e-6) return fmt::format("{:.2f} us", s * 1e6);
  return fmt::format("{:.0f} ns", s * 1e9);
}

// Binary units: 1.50 MiB
inline std::string bytes(double b) {
  if (!std::isfinite(b)) return "-";
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  double v = b;
  while (std::fabs(v) >= 1024 && u < 4) {
    v /= 1024;
    ++u;
  }
  return u == 0 ? fmt::format("{:.0f} B", v) : fmt::format("{:.2f} {}", v, units[u]);
}

// Decimal SI with a unit: 12.3 GB/s, 150 GFLOP/s
inline std::string si(double v, const char* unit) {
  if (!std::isfinite(v)) return "-";
  const char* prefixes[] = {"", "k", "M", "G", "T", "P"};
  int p = 0;
  while (std::fabs(v) >= 1000 && p < 5) {
    v /= 1000;
    ++p;
  }
  return fmt::format("{:.{}f} {}{}", v, std::fabs(v) >= 100 ? 0 : std::fabs(v) >= 10 ? 1 : 2, prefixes[p], unit);
}

inline std::string percent(double fraction) {
  if (!std::isfinite(fraction)) return "-";
  return fmt::format("{:+.1f}%", fraction * 100);
}

}  // namespace flopcast::measure::text
