#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "flopcast/formats/precision.hpp"

namespace flopcast {

// What a device is: a discrete accelerator (gpu, tpu, npu), a host processor (cpu) or a
// system-on-chip whose accelerator shares the system memory (soc: Apple M-series, GB10,
// Ryzen AI Max, Jetson). Read from a record's "kind" (default gpu).
enum class device_kind : std::uint8_t { gpu, tpu, npu, cpu, soc };

[[nodiscard]] constexpr std::string_view to_string(device_kind k) noexcept {
  switch (k) {
    case device_kind::gpu:
      return "gpu";
    case device_kind::tpu:
      return "tpu";
    case device_kind::npu:
      return "npu";
    case device_kind::cpu:
      return "cpu";
    case device_kind::soc:
      return "soc";
  }
  return "gpu";
}

// One accelerator. Peak rates are dense (no 2:4 sparsity); a precision the chip lacks
// has no entry (std::nullopt).
struct hardware_spec {
  std::string name;
  std::vector<std::string> aliases;
  std::string vendor;
  device_kind kind = device_kind::gpu;
  // Marketed memory capacity (binary GiB x 2^30). For unified-memory systems, the whole RAM.
  double memory_bytes = 0;
  // The share of memory_bytes the accelerator may hold, in (0, 1]: below 1 where the OS caps
  // it (macOS's default GPU working-set limit, about 2/3 of RAM up to 32 GB and 3/4 above;
  // the Ryzen AI Max's 96-of-128 GB variable graphics memory). 1 for discrete memory.
  double usable_memory_fraction = 1;
  double memory_bandwidth_bytes_per_s = 0;
  std::string memory_type;  // "hbm", "gddr", "lpddr", "ddr"; empty when not stated
  std::array<std::optional<double>, all_precisions.size()> peak_flops_per_s{};  // by precision
  // Dense peaks outside the precision enum (peak_flops keys "fp6", "fp4", "fp16_acc16"):
  // fp6 / fp4 tensor rates (Blackwell, CDNA4), and the FP16-input FP16-accumulate tensor rate
  // that GeForce parts run at twice their FP32-accumulate rate (the "fp16" entry holds the
  // FP32-accumulate rate frameworks use). Not yet used by the estimator.
  std::optional<double> peak_fp6, peak_fp4, peak_fp16_acc16;
  double tdp_watts = 0;
  double interconnect_bandwidth_bytes_per_s = 0;  // total bidirectional per device
  std::string interconnect_name;
  std::string interconnect_generation;        // "NVLink 5", "ICI (v5p)", ...; empty when unknown
  std::int64_t interconnect_domain_size = 0;  // devices in one NVLink / ICI / xGMI domain; 0 = unknown
  double cost_per_hour_usd = 0;
  // The flopcast release that first bundled the record ("0.3.0"); empty: before 0.3.0.
  std::string added;
  // NVIDIA's CUDA compute capability (8.9 for Ada); 0 = not stated. Engines whose docs name a
  // minimum (vLLM: 7.0) are not offered below it (data/engines/*.json runs_on).
  double compute_capability = 0;
  // AMD's LLVM target ("gfx1100"); empty = not stated. Engines that list the targets they ship
  // kernels for (vLLM's ROCm page) are offered on those alone.
  std::string gfx;
  std::string source_note;  // where the figures come from

  [[nodiscard]] std::optional<double> peak(precision p) const { return peak_flops_per_s[static_cast<std::size_t>(p)]; }
  // Memory the accelerator may hold: memory_bytes x usable_memory_fraction.
  [[nodiscard]] double usable_memory_bytes() const { return memory_bytes * usable_memory_fraction; }
  // The device family engine profiles are fitted per: lower-case vendor and memory type
  // ("nvidia-hbm", "nvidia-gddr", "apple-lpddr"); empty when either is unknown.
  [[nodiscard]] std::string family() const;
};

// Reads one accelerator from a JSON object in data/gpus.json's record format.
[[nodiscard]] hardware_spec read_hardware(std::string_view json_text);

}  // namespace flopcast
