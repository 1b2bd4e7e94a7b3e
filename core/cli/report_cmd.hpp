#pragma once
// `flopcast report`: one self-contained HTML file (the estimate's table and charts, drawn by
// the page's chart code), optionally printed to PDF by headless Chromium.
#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <string_view>

namespace flopcast::cli {

struct report_command {
  CLI::App* app = nullptr;
  std::function<int()> run;
};
report_command add_report_command(CLI::App& parent);

// The report file: the runtime (the template with its script, from the Vite build) with the
// data's JSON in its placeholder ("<" escaped, so the data cannot end its script element).
[[nodiscard]] std::string fill_report(std::string_view runtime, std::string_view data_json);
// The report runtime (dist/report-runtime.html, an install's share/flopcast/, or
// $FLOPCAST_REPORT_RUNTIME); error(invalid_argument, "FLOPCAST_REPORT_RUNTIME") when missing.
[[nodiscard]] std::string find_report_runtime();
// Writes `text` to `path`; error(invalid_argument, option) when it cannot.
void write_report_file(const std::string& path, const std::string& text, const char* option);

}  // namespace flopcast::cli
