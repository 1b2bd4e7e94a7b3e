#pragma once
// The per-operator table of a prefill and one decode step (LLM-Viewer's view): each matmul and
// attention part of each layer group, summed over the group's layers, with its FLOPs (from the
// pass FLOPs of flops.cpp), the bytes it moves (its share of the weights the pass reads, as the
// roofline reads them, its activations in and out, its KV-cache or recurrent-state traffic),
// and its roofline time on the estimate's device at the estimate's efficiencies.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "flopcast/estimate/efficiency_curves.hpp"
#include "flopcast/estimate/estimate.hpp"

namespace flopcast {

// A measured kernel curve that covers a row's operation on the estimate's device
// (efficiency_curves.hpp): its efficiency at the row's shape and the time the row's FLOPs take at
// it. Beside the estimate's own times, which it does not change.
struct kernel_curve_row {
  kernel_op op = kernel_op::gemm;
  curve_lookup lookup;
  double time_s = 0;  // FLOPs at lookup.efficiency x lookup.peak
};

struct operator_row {
  std::string name;         // q_proj, k_proj, ..., attention_scores, softmax, mlp_down, router, lm_head
  int group = -1;           // index into model_spec::groups; -1: once per model (embedding, final norm, head)
  std::int64_t layers = 1;  // layers the figures are summed over (per layer: divide)
  std::optional<weight_component> component;  // whose weights it reads (none: no weights)
  std::optional<precision> format;            // the format those weights are stored in (norms: 16-bit)
  double flops = 0;
  double weight_bytes = 0;      // its share of the weights the pass reads
  double activation_bytes = 0;  // activations read and written (ESTIMATE: fused kernels move less)
  double kv_bytes = 0;          // KV cache (or recurrent state) read and written
  bool kv_read = false;         // kv_bytes are a decode step's cached K/V reads (timed at the KV-read efficiency)
  // FLOPs at the pass's achieved peak (routed experts' GEMMs at their own tokens on the engine's
  // GEMM curve, as the estimate times them); 0 without a GPU. The weight-only path's
  // dequantisation, which the estimate times at the fp32 rate, is not in the rows.
  double compute_s = 0;
  double memory_s = 0;                           // bytes at the achieved bandwidth (0 without a GPU)
  std::optional<kernel_curve_row> kernel_curve;  // only with a device and a curve for the op
  [[nodiscard]] double bytes() const { return weight_bytes + activation_bytes + kv_bytes; }
  [[nodiscard]] double intensity() const { return bytes() > 0 ? flops / bytes() : 0.0; }
  [[nodiscard]] bool compute_bound() const { return compute_s > memory_s; }
  [[nodiscard]] double time_s() const { return compute_s > memory_s ? compute_s : memory_s; }
};

struct operator_pass {
  std::vector<operator_row> rows;
  double compute_efficiency = 0;  // the estimate's, times its engine's GEMM curve at the pass's tokens
  double tokens = 0;              // tokens the pass runs (whole batch)
};

struct operator_tables {
  operator_pass prefill, decode;  // decode: empty for encoder-only models
  bool has_device = false;
  double peak_flops_per_s = 0, memory_bandwidth_bytes_per_s = 0, mem_efficiency = 0;
  compute_unit compute_precision = compute_unit::bf16;
};

// The tables of an estimate (r = estimate(m, s, gpu); r.has_performance decides has_device).
[[nodiscard]] operator_tables operator_table(const model_spec& m, const settings& s, const estimate_result& r);
// The same, with each matmul and attention row read on the measured kernel curves for `gpu`
// (resolve finds the curves' devices, for transfers). gpu null: no curves.
[[nodiscard]] operator_tables operator_table(const model_spec& m, const settings& s, const estimate_result& r,
                                             const hardware_spec* gpu, const device_resolver& resolve);

}  // namespace flopcast
