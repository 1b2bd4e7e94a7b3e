#pragma once
// `flopcast profile MODEL.onnx`: per-node, per-op-type and per-scope costs of any ONNX graph.
#include <CLI/CLI.hpp>
#include <functional>

namespace flopcast::cli {

struct profile_command {
  CLI::App* app = nullptr;
  std::function<int()> run;
};
profile_command add_profile_command(CLI::App& parent);

}  // namespace flopcast::cli
