#pragma once
// `flopcast measure`: native latency measurement beside the estimate (not in the WASM build).
#include <CLI/CLI.hpp>
#include <functional>

namespace flopcast::cli {

struct measure_command {
  CLI::App* app = nullptr;   // the subcommand
  std::function<int()> run;  // runs it after parsing; returns the exit code
};

// Registers `measure` on the parent app.
measure_command add_measure_command(CLI::App& parent);

}  // namespace flopcast::cli
