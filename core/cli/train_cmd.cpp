#include "train_cmd.hpp"

#include <iostream>

namespace flopcast::cli {

train_command add_train_command(CLI::App& parent) {
  train_command cmd;
  cmd.app = parent.add_subcommand("train", "Analyse one training step: backward decomposition, optimizer, bottlenecks");
  cmd.run = [] {
    std::cerr << "flopcast: error: train is not implemented yet\n";
    return 2;
  };
  return cmd;
}

}  // namespace flopcast::cli
