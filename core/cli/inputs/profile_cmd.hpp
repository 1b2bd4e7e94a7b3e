#pragma once
// `flopcast profile MODEL.onnx`: per-node, per-op-type and per-scope costs of any ONNX graph.
#include <CLI/CLI.hpp>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace flopcast::cli {

struct profile_command {
  CLI::App* app = nullptr;
  std::function<int()> run;
};
profile_command add_profile_command(CLI::App& parent);
// --dim's NAME=SIZE[,NAME=SIZE...] items (the option may repeat), checked by the core's profile
// options reader (as WASM's profile): a malformed item throws at "--dim", a bad size at "/dims/NAME".
std::map<std::string, std::int64_t> parse_dims(const std::vector<std::string>& items);

}  // namespace flopcast::cli
