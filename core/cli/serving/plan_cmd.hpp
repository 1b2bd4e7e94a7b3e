#pragma once
// `flopcast plan`: how many GPUs a model needs, the layouts that fit, the cheapest and fastest.
#include <CLI/CLI.hpp>
#include <functional>

namespace flopcast::cli {

struct plan_command {
  CLI::App* app = nullptr;
  std::function<int()> run;
};
plan_command add_plan_command(CLI::App& parent);

}  // namespace flopcast::cli
