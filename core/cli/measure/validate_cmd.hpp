#pragma once
// `flopcast validate`: predictions against the shipped table of published measurements.
#include <CLI/CLI.hpp>
#include <functional>

namespace flopcast::cli {

struct validate_command {
  CLI::App* app = nullptr;
  std::function<int()> run;
};
validate_command add_validate_command(CLI::App& parent);

}  // namespace flopcast::cli
