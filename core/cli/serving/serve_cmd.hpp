#pragma once
// `flopcast serve`: the iteration-level serving simulator (continuous batching) over a list of
// concurrency or request-rate values: the latency-throughput curve.
#include <CLI/CLI.hpp>
#include <functional>

namespace flopcast::cli {

struct serve_command {
  CLI::App* app = nullptr;
  std::function<int()> run;
};
serve_command add_serve_command(CLI::App& parent);

}  // namespace flopcast::cli
