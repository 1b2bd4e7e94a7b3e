#pragma once
// `flopcast validate-model MODEL`: the reference decoder's counted FLOPs and bytes per
// operation against the estimate of the same truncated model (flopcast::measure::validate_model).
#include <CLI/CLI.hpp>
#include <functional>

namespace flopcast::cli {

struct validate_model_command {
  CLI::App* app = nullptr;
  std::function<int()> run;
};
validate_model_command add_validate_model_command(CLI::App& parent);

}  // namespace flopcast::cli
