#pragma once
#include <array>
#include <optional>
#include <string>
#include <vector>

#include "flopcast/precision.hpp"

namespace flopcast {

// One accelerator. Peak rates are dense (no 2:4 sparsity); a precision the chip lacks
// has no entry (std::nullopt).
struct hardware_spec {
  std::string name;
  std::vector<std::string> aliases;
  std::string vendor;
  double memory_bytes = 0;
  double memory_bandwidth_bytes_per_s = 0;
  std::array<std::optional<double>, all_precisions.size()> peak_flops_per_s{};  // by precision
  double tdp_watts = 0;
  double interconnect_bandwidth_bytes_per_s = 0;
  std::string interconnect_name;
  double cost_per_hour_usd = 0;
  std::string source_note;  // where the figures come from

  [[nodiscard]] std::optional<double> peak(precision p) const { return peak_flops_per_s[static_cast<std::size_t>(p)]; }
};

}  // namespace flopcast
