#pragma once
// `flopcast throughput`: serving capacity under continuous batching.
#include <CLI/CLI.hpp>
#include <functional>

namespace flopcast::cli {

struct throughput_command {
  CLI::App* app = nullptr;
  std::function<int()> run;
};
throughput_command add_throughput_command(CLI::App& parent);

}  // namespace flopcast::cli
