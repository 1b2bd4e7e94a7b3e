#pragma once
// `flopcast measure MODEL --suite[=TASKS] [--html FILE] [--json|--csv]`: the benchmark suite
// (flopcast::measure::run_benchmark_suite) and its self-contained HTML report, filled into the
// same report runtime as `flopcast report` (web/src/report/, kind "measure-suite").
#include <string>

#include "flopcast/measure/bench_suite.hpp"

namespace flopcast::cli {

struct measure_suite_args {
  model_spec model;
  std::string tasks;  // "" or "all": every task
  measure::suite_options options;
  std::string html;  // empty: no report
  bool json = false, csv = false;
};

// Runs the suite, prints text, JSON or CSV, writes the report; returns the exit code.
int run_measure_suite(measure_suite_args& a);

}  // namespace flopcast::cli
