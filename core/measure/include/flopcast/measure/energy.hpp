#pragma once
// Energy from the CPU's own counters (Linux powercap: Intel RAPL, or AMD's RAPL-compatible
// package domains), when this machine exposes them. Virtual machines and containers usually
// do not: then every energy figure is unavailable, with the reason.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace flopcast::measure {

class energy_meter {
 public:
  // Looks for package domains under `powercap_root` (default /sys/class/powercap).
  explicit energy_meter(std::string powercap_root = "/sys/class/powercap");

  [[nodiscard]] bool available() const noexcept { return !domains_.empty(); }
  // Why energy is unavailable ("no /sys/class/powercap: RAPL is not exposed on this machine").
  [[nodiscard]] const std::string& reason() const noexcept { return reason_; }

  struct reading {
    std::vector<std::uint64_t> microjoules;  // per domain, raw counter
  };
  [[nodiscard]] reading read() const;
  // Joules between two readings (counter wrap-around handled); empty if unavailable.
  [[nodiscard]] std::optional<double> joules_between(const reading& a, const reading& b) const;

 private:
  struct domain {
    std::string energy_path;
    std::uint64_t range_uj = 0;
  };
  std::vector<domain> domains_;
  std::string reason_;
};

}  // namespace flopcast::measure
