#include "measure_cmd.hpp"

#include <iostream>

namespace flopcast::cli {

measure_command add_measure_command(CLI::App& parent) {
  measure_command cmd;
  cmd.app = parent.add_subcommand("measure", "Measure real latency on this machine beside the estimate");
  cmd.run = [] {
    std::cerr << "flopcast: error: measure is not implemented yet\n";
    return 2;
  };
  return cmd;
}

}  // namespace flopcast::cli
