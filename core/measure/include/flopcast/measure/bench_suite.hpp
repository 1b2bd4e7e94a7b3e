#pragma once
// `flopcast measure --suite`: named benchmark tasks over the reference decoder, as the seed
// profilers' BenchmarkSuite runs them (one suite, timing and output shared):
//   prefill   TTFT over prompt lengths 16, 32, 64, ... up to prompt_tokens (repetitions each)
//   decode    per-step decode time at several cached context lengths (decode_steps each)
//   batch     TTFT and decode step time at batch 1, 2, 4, ... up to max_batch
//   kv_cache  fp32 vs int8 KV cache: bytes per token as it grows, decode step and attend time
// Every point keeps its raw samples, mean, sample stddev (n - 1), n and, from 5 samples,
// p50/p90/p99 (MEASURED), and beside them the estimate at the measured machine peaks and
// with one calibration (calibrate_from on the prefill at prompt_tokens and the decode at that
// context), both flopcast::estimate() (ESTIMATED).
//
//   flopcast::measure::suite_options o;
//   o.layers = 2; o.tasks = parse_suite_tasks("prefill,decode");
//   const auto r = run_benchmark_suite(find_model("llama-3.2-1b").spec, o);
//   std::cout << suite_to_json(r);   // {"kind": "measure-suite", ...}
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "flopcast/measure/measure.hpp"

namespace flopcast::measure {

// The task names, in the order they run.
[[nodiscard]] const std::vector<std::string>& suite_task_names();
// "all" or "" -> every task; else a comma-separated list of task names (order kept, duplicates
// dropped). Throws error(invalid_argument, "/tasks") naming the bad entry and the valid names.
[[nodiscard]] std::vector<std::string> parse_suite_tasks(std::string_view list);

struct suite_options {
  std::int64_t layers = 0;          // 0: every layer
  std::int64_t prompt_tokens = 64;  // the longest prompt and context
  std::int64_t decode_steps = 8;    // timed decode steps per context length (and KV format)
  std::int64_t max_batch = 4;
  int repetitions = 3;  // timed prefills per point
  int threads = 0;
  weight_format weights = weight_format::f32;
  bool quick_machine = true;
  std::optional<machine_peaks> machine;  // reuse a machine measurement (else measured first)
  std::vector<std::string> tasks;        // empty: all
};

// A statistic over raw samples.
struct sample_stats {
  std::vector<double> samples;
  double mean = 0, stddev = 0;
  std::int64_t n = 0;
  std::optional<double> p50, p90, p99;  // from 5 samples
};
[[nodiscard]] sample_stats stats_of(std::vector<double> samples);

struct suite_point {
  std::string parameter;  // "prompt_tokens", "context_tokens", "batch_size", "kv_cache"
  double value = 0;       // the parameter's value (kv_cache: the bits per element, 32 or 8)
  std::string label;      // e.g. "int8"; empty for numbers
  std::string metric;     // "ttft_s", "decode_step_s", "kv_bytes_per_token", "attend_s"
  std::string unit;
  sample_stats measured;
  figure estimated, calibrated;
  // kv_cache: bytes cached after each prefill chunk (tokens, bytes, estimated bytes).
  std::vector<std::array<double, 3>> growth;
};

struct suite_task_result {
  std::string name;
  double wall_s = 0;
  std::vector<suite_point> points;
};

struct suite_run_result {
  std::string version, model_name;
  std::int64_t layers = 0, layers_total = 0, parameters = 0;
  suite_options options;  // as run (threads resolved, tasks filled)
  machine_peaks machine;
  hardware_spec hardware;
  calibration_result calibration;
  std::string calibration_basis;
  std::vector<suite_task_result> tasks;
  double elapsed_s = 0;
};

[[nodiscard]] suite_run_result run_benchmark_suite(const model_spec& m, const suite_options& o,
                                                   const progress_fn& progress = {});

[[nodiscard]] std::string suite_to_json(const suite_run_result& r);
// One row per sample: task,parameter,value,label,metric,unit,sample,seconds_or_value,mean,stddev,n,estimated,calibrated
[[nodiscard]] std::string suite_to_csv(const suite_run_result& r);
[[nodiscard]] std::string suite_to_text(const suite_run_result& r);

}  // namespace flopcast::measure
