#include "measure/measure_suite_cmd.hpp"

#include <unistd.h>

#include <iostream>

#include "report_cmd.hpp"

namespace flopcast::cli {

int run_measure_suite(measure_suite_args& a) {
  a.options.tasks = measure::parse_suite_tasks(a.tasks);
  // The runtime first: a missing one fails before the minutes of measuring.
  const std::string runtime = a.html.empty() ? std::string() : find_report_runtime();
  measure::progress_fn progress;
  if (isatty(STDERR_FILENO))
    progress = [](double f, std::string_view what) {
      std::cerr << "\r\033[K[" << static_cast<int>(f * 100) << "%] " << what << std::flush;
    };
  const measure::suite_run_result r = measure::run_benchmark_suite(a.model, a.options, progress);
  if (progress) std::cerr << "\r\033[K" << std::flush;
  const std::string json = measure::suite_to_json(r);
  if (!a.html.empty()) {
    write_report_file(a.html, fill_report(runtime, json), "--html");
    std::cerr << "flopcast: wrote " << a.html << "\n";
  }
  if (a.json)
    std::cout << json << "\n";
  else if (a.csv)
    std::cout << measure::suite_to_csv(r);
  else
    std::cout << measure::suite_to_text(r);
  return 0;
}

}  // namespace flopcast::cli
