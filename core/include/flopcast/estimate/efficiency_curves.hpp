#pragma once
// Measured per-operation efficiency curves (data/efficiency/<source-id>.json, embedded at build
// time): what a named kernel library achieved on a named device, by size, as published, over the
// device's datasheet peak. lookup_efficiency reads a curve at a shape:
// - measured: the shape is one of the published points (the stored efficiency, exactly);
// - interpolated: between two points, linearly in the curve's axis scale (log of a size such as
//   M tokens or message bytes; square root of a sequence length); beyond the ends it holds the end
//   value (no extrapolation) and says so (clamped, range_widening x1.5);
// - transferred: the device has no curve for the op and format, a device of the same vendor and
//   architecture (NVIDIA: the same compute capability; AMD: the same gfx target) has one. The
//   efficiency carries over, so the achieved rate scales by the ratio of the two devices'
//   datasheet peaks of the curve's kind (the format's FLOP/s, memory or interconnect bandwidth);
//   range_widening = 1.25 x max(r, 1/r) for that ratio r.
// Otherwise nullopt: callers keep their own efficiencies.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "flopcast/hardware/hardware.hpp"

namespace flopcast {

enum class kernel_op : std::uint8_t {
  gemm,
  grouped_gemm,
  attention_prefill,
  attention_decode,
  all_reduce,
  all_gather,
  all_to_all,
  memory_bandwidth
};
[[nodiscard]] std::string_view to_string(kernel_op op) noexcept;
[[nodiscard]] std::optional<kernel_op> parse_kernel_op(std::string_view name) noexcept;

enum class curve_scale : std::uint8_t { log, sqrt, linear };

struct efficiency_point {
  double x = 0;
  double achieved = 0;    // in the curve's metric (TFLOP/s or GB/s), as published
  double efficiency = 0;  // achieved over the curve's peak
  std::string quote;      // the table row or sentence it comes from
};

struct efficiency_curve {
  std::string id;
  kernel_op op = kernel_op::gemm;
  std::string device;               // a data/gpus.json name
  std::string device_as_published;  // the source's own name for it
  std::string format;               // a compute unit name: bf16, fp8, ...
  std::string engine;               // kernel library: deepgemm, deepep, cublas, ...
  std::string kernel;               // the kernel or entry point, where the source names it
  std::string variant;              // contiguous / masked, dispatch / combine, ...; empty: none
  std::string axis;                 // m, m_per_group, seq_len, message_bytes, ep_ranks, ...
  curve_scale scale = curve_scale::log;
  std::vector<std::pair<std::string, double>> fixed;  // the shape held fixed (n, k, head_dim, ...)
  std::string metric;                                 // tflops or gbps
  std::string peak_field;                // peak_flops.<unit>, memory_bandwidth or interconnect_unidirectional
  double peak = 0;                       // that peak of `device` (FLOP/s or bytes/s) the efficiencies divide by
  std::vector<efficiency_point> points;  // x strictly increasing
};

struct efficiency_source {
  std::string id;    // the file's stem
  std::string file;  // data/efficiency/<id>.json
  std::string title, url, repository, path, commit, licence, retrieved, note;
  std::vector<std::string> quotes;
  std::vector<efficiency_curve> curves;
};

// One efficiency file's text, as embedded or as a test gives it.
struct efficiency_file {
  std::string name;  // "deepseek-deepgemm-readme-h800-fp8.json"
  std::string_view text;
};

// Reads and checks files; a bad one throws flopcast::error naming the file and the field
// ("data/efficiency/x.json: /curves/0/points/1/x: ...").
[[nodiscard]] std::vector<efficiency_source> read_efficiency_sources(const std::vector<efficiency_file>& files);
// The bundled files, read once.
[[nodiscard]] const std::vector<efficiency_source>& efficiency_sources();

struct curve_query {
  kernel_op op = kernel_op::gemm;
  std::string format;   // compute unit name
  std::string variant;  // empty: any
  double x = 0;         // along the curve's axis
  // Shape the caller knows (n, k, ...): of several curves the nearest in log space is read.
  std::vector<std::pair<std::string, double>> fixed;
};

struct curve_lookup {
  double efficiency = 0;  // of the target device's peak of the curve's kind
  std::string source;     // the source id
  std::string curve;      // the curve id
  std::string device;     // the curve's device (differs from the target when transferred)
  std::string how;        // measured | interpolated | transferred
  bool clamped = false;   // x beyond the table: the end value held
  double range_widening = 1;
  double peak = 0;  // the target's peak the efficiency applies to (FLOP/s or bytes/s)
};

// Finds a device record by name (nullptr: unknown); transfers need the curve devices' records.
using device_resolver = std::function<const hardware_spec*(std::string_view)>;

// The target's peak of a curve's kind (nullopt: the device lists none).
[[nodiscard]] std::optional<double> curve_peak(const hardware_spec& gpu, std::string_view peak_field);

[[nodiscard]] std::optional<curve_lookup> lookup_efficiency(const curve_query& q, const hardware_spec& target,
                                                            const device_resolver& resolve,
                                                            const std::vector<efficiency_source>& sources);
// The bundled sources.
[[nodiscard]] std::optional<curve_lookup> lookup_efficiency(const curve_query& q, const hardware_spec& target,
                                                            const device_resolver& resolve);

}  // namespace flopcast
