#pragma once
// Helpers shared by the CLI's commands: option parsing with errors that name the option,
// model and GPU resolution, the options of estimate-like commands, the calibration store.
#include <CLI/CLI.hpp>
#include <memory>
#include <string>
#include <vector>

#include "flopcast/flopcast.hpp"

namespace flopcast::cli {

// Options of estimate-like commands, as typed (strings: parsed and checked here so every
// error names its option).
struct options {
  std::vector<std::string> models;
  std::string batch = "1", seq = "2048", gen = "128", precision = "bf16", gpu = "A100";
  std::string kv_precision, gpu_file, optimizer = "adam";
  bool training = false, causal = false, no_checkpointing = false, no_flash = false;
  std::string compute_eff, mem_eff, power_util, carbon, cost;
  // Parallel layout.
  std::string tp = "1", pp = "1", dp = "1", ep = "1", microbatches = "1", interconnect, link_latency;
  bool sequence_parallel = false;
  bool no_calibration = false;
  bool json = false, csv = false;
};

std::vector<std::string> split(const std::string& s);
[[noreturn]] void bad(const std::string& option, const std::string& message);
std::int64_t parse_int(const std::string& text, const std::string& option);
double parse_number(const std::string& text, const std::string& option);
std::string read_file(const std::string& path, const std::string& option);

// Models and GPUs loaded from files live in these owners for the command's duration.
struct owned_specs {
  std::vector<std::unique_ptr<model_spec>> models;
  std::vector<std::unique_ptr<hardware_spec>> gpus;
};
// A registry name or alias, or a config.json path.
const model_spec& resolve_model(const std::string& name, owned_specs& owned, const std::string& option = "MODEL");
// The GPUs of -g (comma list, "none" = no GPU) or --gpu-file.
std::vector<const hardware_spec*> resolve_gpus(const options& o, owned_specs& owned);

settings base_settings(const options& o);
// The comparison the options describe (a single point for estimate); applies the
// calibration store unless --no-calibration.
compare_plan make_plan(const options& o, bool allow_lists, owned_specs& owned);
// Adds the estimate-like options (lists: comma lists allowed).
void add_estimate_options(CLI::App& cmd, options& o, bool lists, bool output_flags = true);
// Only precision, GPU, efficiencies, energy/cost and the parallel layout.
void add_hardware_options(CLI::App& cmd, options& o, bool lists);

// Rewrites the core's request-field pointer into the CLI option the user typed.
error as_cli_error(const error& e);

// The calibration store: $FLOPCAST_CALIBRATION_FILE, else $XDG_CONFIG_HOME/flopcast/
// calibration.json, else ~/.config/flopcast/calibration.json.
std::string calibration_path();
std::vector<calibration_entry> load_calibration();
void save_calibration(const std::vector<calibration_entry>& entries);

}  // namespace flopcast::cli
