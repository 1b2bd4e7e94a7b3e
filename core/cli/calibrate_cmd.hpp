#pragma once
// `flopcast calibrate`: pin efficiencies to measurements; `calibrate show`, `calibrate reset`.
#include <CLI/CLI.hpp>
#include <functional>

namespace flopcast::cli {

struct calibrate_command {
  CLI::App* app = nullptr;
  std::function<int()> run;
};
calibrate_command add_calibrate_command(CLI::App& parent);

}  // namespace flopcast::cli
