#pragma once
// `flopcast train`: the detailed training-step analysis.
#include <CLI/CLI.hpp>
#include <functional>

namespace flopcast::cli {

struct train_command {
  CLI::App* app = nullptr;
  std::function<int()> run;
};

train_command add_train_command(CLI::App& parent);

}  // namespace flopcast::cli
