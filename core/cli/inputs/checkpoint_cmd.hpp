#pragma once
// Checkpoint files on the command line: `flopcast inspect FILE` (the tensor table from a
// .safetensors / model.safetensors.index.json / .gguf header), and a checkpoint as the MODEL of
// a request (a GGUF file's keys become a config; a safetensors file needs a config.json beside
// it). Only headers are read, never tensor data.
#include <CLI/CLI.hpp>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "flopcast/checkpoint/checkpoint.hpp"

namespace flopcast::cli {

// True for *.safetensors, *.gguf, *.safetensors.index.json, or a file whose first bytes are a
// GGUF or safetensors header.
[[nodiscard]] bool is_checkpoint_path(const std::string& path);
// The checkpoint's header, read with bounded reads of the file's prefix (at most 16 MiB + 8 for
// safetensors, 64 MiB for GGUF). An index reads the header of every shard beside it.
[[nodiscard]] checkpoint_info read_checkpoint_file(const std::string& path);
// The config JSON object a request's "model" takes for a checkpoint path: GGUF, the config
// built from its keys; safetensors (or an index), the config.json beside it (an error naming
// that path when there is none: safetensors holds no architecture).
// `info`, when given, receives the checkpoint's header (its exact weight bytes feed weight_bytes).
[[nodiscard]] nlohmann::json checkpoint_model_value(const std::string& path, checkpoint_info* info = nullptr);

struct inspect_command {
  CLI::App* app = nullptr;
  std::function<int()> run;
};
inspect_command add_inspect_command(CLI::App& parent);

}  // namespace flopcast::cli
