#pragma once
// Measure, not only estimate: runs the reference decoder on this machine (prefill of N
// prompt tokens, M - 1 decode steps), measures the machine's peaks, and sets the measured
// TTFT, TPOT, throughput, bandwidth and FLOP/s per phase beside estimate() for the same
// configuration on the measured machine spec, with the error in %. It also derives the
// efficiencies that make the estimate reproduce the measurement (a calibration).
//
//   flopcast::measure::measure_options o;
//   o.layers = 4; o.prompt_tokens = 128; o.generated_tokens = 32;
//   const auto r = flopcast::measure::run_measurement(find_model("llama-3.2-1b").spec, o);
//   r.calibration.compute_efficiency;  // store it, pass it to settings later
//
// `flopcast measure` prints to_text(r), to_json(r) or to_csv(r).
//
// JSON (to_json), SI units, every figure {"value": number|null, "label":
// "MEASURED"|"ESTIMATED"|"unavailable", "note"?: text}; "error_pct" = 100 x (estimate -
// measured) / measured. Keys (stable):
//   flopcast_version, command ("measure")
//   model:   name, model_type, layers, layers_total, parameters
//   run:     batch_size, prompt_tokens, generated_tokens, decode_steps, threads,
//            repetitions, weight_precision, kv_cache_precision, kernels
//   machine: name ("this-cpu"), cpu, kernels, threads, memory_total_bytes,
//            memory_available_bytes, llc_bytes, stream_bytes_per_s {copy, scale, add, triad,
//            read}, bandwidth_bytes_per_s (used by the estimate), gemm_fp32_flops_per_s,
//            gemm_size, fma_fp32_flops_per_s, fma_fp64_flops_per_s, int8_dot_ops_per_s,
//            tdp_watts (ESTIMATED: a placeholder), energy_counters {available, note}, elapsed_s
//   ttft, tpot: measured (+ stddev, samples), estimated, error_pct, calibrated,
//            calibrated_error_pct; ttft.samples_s (per repetition); tpot.p50_s .. p99_s
//   comparison: [{metric, unit, measured, estimated, error_pct, calibrated,
//            calibrated_error_pct}] for ttft_s, tpot_s, prefill_tokens_per_s,
//            decode_tokens_per_s, total_request_s, prefill_flops_per_s,
//            decode_bandwidth_bytes_per_s, kv_growth_bytes_per_token, prefill_flops,
//            decode_first_step_flops, prefill_bytes, decode_first_step_bytes, energy_j
//   phases:  prefill {ttft_s, tokens_per_s, flops, bytes, flops_per_s,
//            bandwidth_bytes_per_s, energy_j}, decode {tpot_s, p50_s, p90_s, p95_s, p99_s,
//            tokens_per_s, flops, bytes, flops_per_s, bandwidth_bytes_per_s,
//            weight_bandwidth_bytes_per_s, energy_j, samples_s: [[per step] per repetition]}
//   counts:  prefill and decode_first_step, each {counted: {qkv_projection, rotary,
//            attention_scores, softmax, attention_values, output_projection, mlp, norm,
//            output_head, total, weight_bytes, embedding_bytes, kv_read_bytes,
//            kv_write_bytes, label: MEASURED}, estimated: {same FLOP keys, bytes, label: ESTIMATED}}
//   kv_cache: format, bytes_per_token, growth_bytes_per_token, estimated_bytes_per_token,
//            compression_ratio_vs_fp16, layers: [{layer, label, append_calls, attend_calls,
//            append_s_mean, attend_s_mean, tokens_written, peak_bytes, compression_ratio}]
//   calibration: compute_efficiency, mem_efficiency, compute_basis, mem_basis, clamped,
//            in_sample (true: derived from this same run), label ("MEASURED")
//   tasks: [{name, wall_s}], metrics: [suite rows], elapsed_s
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "flopcast/estimate/estimate.hpp"
#include "flopcast/measure/decoder.hpp"
#include "flopcast/measure/figure.hpp"
#include "flopcast/measure/kv_profiler.hpp"
#include "flopcast/measure/machine.hpp"
#include "flopcast/measure/suite.hpp"
#include "flopcast/measure/tracker.hpp"
#include "flopcast/model/model.hpp"

namespace flopcast::measure {

struct efficiencies {
  double compute_efficiency = 1.0;
  double mem_efficiency = 1.0;
};

struct measure_options {
  std::int64_t layers = 0;             // 0: all of the model's layers
  std::int64_t prompt_tokens = 128;    // per sequence
  std::int64_t generated_tokens = 32;  // the first comes from prefill, the rest from decode steps
  std::int64_t batch_size = 1;
  int threads = 0;  // 0: every hardware thread
  weight_format weights = weight_format::f32;
  kv_format kv_cache = kv_format::f32;
  int repetitions = 3;                      // timed runs, after one short warm-up
  bool quick_machine = false;               // smaller microbenchmarks (tests)
  std::optional<machine_peaks> machine;     // reuse a machine measurement
  std::optional<efficiencies> calibration;  // estimate with these (e.g. from a store) as well
  std::uint64_t seed = 1;
};

// A measured figure over repetitions or steps.
struct measured_stat {
  figure value;  // the mean
  double stddev = 0;
  std::int64_t samples = 0;
};

struct comparison_row {
  std::string metric;  // e.g. "ttft_s"
  std::string unit;
  figure measured;
  figure estimated;  // at the measured peaks, efficiency 1 (or the given calibration)
  std::optional<double> error_pct;
  figure calibrated;  // with this run's calibration
  std::optional<double> calibrated_error_pct;
};

struct calibration_result {
  double compute_efficiency = 1.0;  // achieved / peak FLOP/s in the phase that is compute-bound (prefill)
  double mem_efficiency = 1.0;      // achieved / peak bandwidth in the phase that is memory-bound (decode)
  std::string compute_basis, mem_basis;
  bool clamped = false;  // a ratio above 1 was clamped to 1
};

struct measure_result {
  std::string version;
  std::string model_name, model_type;
  std::int64_t layers = 0, layers_total = 0, parameters = 0;
  measure_options options;  // as run (threads resolved)
  model_spec model;         // the (truncated) model that ran
  machine_peaks machine;
  hardware_spec hardware;      // "this-cpu"
  settings estimate_settings;  // the run as estimate() sees it (efficiencies of the estimate)
  estimate_result estimate;    // at the peaks (or options.calibration)
  estimate_result calibrated;  // with `calibration`
  calibration_result calibration;
  decoder_memory memory;  // what the decoder allocated

  // Measured.
  std::vector<double> ttft_samples_s;                 // per repetition
  std::vector<std::vector<double>> decode_samples_s;  // per repetition, per step
  latency_stats ttft, tpot;                           // over repetitions / over every step
  figure prefill_tokens_per_s, decode_tokens_per_s;
  figure prefill_flops_per_s, prefill_bandwidth_bytes_per_s;
  figure decode_flops_per_s, decode_bandwidth_bytes_per_s, decode_weight_bandwidth_bytes_per_s;
  figure kv_growth_bytes_per_token;
  figure prefill_energy_j, decode_energy_j;
  op_counts prefill_counts;  // one prefill (identical in every repetition)
  op_counts decode_counts;   // every decode step of one repetition
  op_counts decode_first_step_counts;
  kv_profile_report kv;  // all repetitions

  std::vector<comparison_row> comparison;
  suite_result suite;
  double elapsed_s = 0;

  [[nodiscard]] const comparison_row* find(std::string_view metric) const noexcept;
};

// Checks the options and that the run fits in this machine's memory, before anything is
// allocated. Throws flopcast::error(invalid_argument) naming the field ("/prompt_tokens",
// "/generated_tokens", "/batch_size", "/threads", "/repetitions", "/layers", "/memory"), or
// what decoder_shape_of throws. Returns the truncated model.
[[nodiscard]] model_spec check_measurement(const model_spec& m, const measure_options& o);

// The run as estimate() sees it (batch, prompt, generated tokens, weight and KV precision,
// causal attention) with the efficiencies `e`: what run_measurement and the suite estimate.
[[nodiscard]] settings measurement_settings(const measure_options& o, efficiencies e = {});

[[nodiscard]] measure_result run_measurement(const model_spec& m, const measure_options& o,
                                             const progress_fn& progress = {}, const log_fn& log = {});

// The efficiencies that make estimate(m, s, hw) reproduce a measured TTFT and TPOT (mean
// decode step): each phase calibrates the efficiency of the bound it is under at peak, by
// the core's rule (flopcast::fit_efficiencies, the one `flopcast calibrate` uses); figures
// beyond the peaks are clamped to 1 (`clamped`).
[[nodiscard]] calibration_result calibrate_from(const model_spec& m, settings s, const hardware_spec& hw, double ttft_s,
                                                std::optional<double> tpot_s);

[[nodiscard]] std::string to_json(const measure_result& r);
[[nodiscard]] std::string to_csv(const measure_result& r);   // the suite's metric rows
[[nodiscard]] std::string to_text(const measure_result& r);  // tables for a terminal

}  // namespace flopcast::measure
