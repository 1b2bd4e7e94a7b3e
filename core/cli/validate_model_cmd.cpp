// flopcast validate-model MODEL|config.json [--layers N] [--prompt N] [--steps N] [--batch N]
//                         [--window N] [--threads T] [--json]
// Runs the reference decoder (dense, GQA/MQA, sliding-window, MoE and MLA layers) on the
// model's first layers with random weights and compares what its kernels counted, per
// operation, with estimate() of the same truncated model. Exit 0: every checked operation
// agrees; 1: one disagrees; 2: bad input.
#include "validate_model_cmd.hpp"

#include <fmt/format.h>

#include <iostream>
#include <memory>

#include "common.hpp"
#include "flopcast/config.hpp"
#include "flopcast/error.hpp"
#include "flopcast/measure/validate_model.hpp"
#include "flopcast/registry.hpp"

namespace flopcast::cli {

namespace {

struct validate_model_args {
  std::string model, layers = "2", prompt = "16", steps = "2", batch = "1", window = "0", threads;
  std::string onnx;
  bool json = false;
};

// A model argument: a registry name, or a config.json path (as `estimate` reads it).
model_spec resolve_model(const std::string& name) {
  const nlohmann::json v = model_value(name, "MODEL");
  if (v.is_string()) return find_model(v.get<std::string>()).spec;
  return read_hf_config(v.dump(), name);
}

// Errors about options name the flag the user typed.
error as_flag(const error& e) {
  static const std::pair<const char*, const char*> flags[] = {
      {"/layers", "--layers"},    {"/prompt_tokens", "--prompt"}, {"/decode_steps", "--steps"},
      {"/batch_size", "--batch"}, {"/window", "--window"},        {"/max_tokens", "--prompt"}};
  for (const auto& [ptr, flag] : flags)
    if (e.pointer() == ptr) return error(e.code(), flag, e.message());
  return e;
}

}  // namespace

validate_model_command add_validate_model_command(CLI::App& parent) {
  validate_model_command cmd;
  auto args = std::make_shared<validate_model_args>();
  CLI::App* app = parent.add_subcommand(
      "validate-model",
      "Run the reference decoder on a model's first layers and check its counted FLOPs and bytes per operation "
      "against the estimate (exit 0: all agree, 1: one disagrees, 2: bad input)");
  cmd.app = app;
  app->add_option("MODEL", args->model, "Registry name or alias, or a path to a config.json")->required();
  app->add_option("--layers", args->layers, "First N layers to run (real widths, heads, experts, vocabulary) [2]");
  app->add_option("--prompt", args->prompt, "Prompt tokens per sequence [16]");
  app->add_option("--steps", args->steps, "Decode steps after the prefill [2]");
  app->add_option("--batch", args->batch, "Sequences [1]");
  app->add_option("--window", args->window,
                  "Cut sliding windows longer than N to N, so that a short prompt crosses them [0: keep]");
  app->add_option("--threads", args->threads, "Threads [every hardware thread]");
  // TODO(issue 15, lead at merge): --onnx FILE compares the ONNX profiler's FLOPs of an export
  // (flopcast/profile.hpp, built in parallel) with the analytic estimate of this architecture.
  app->add_option("--onnx", args->onnx, "Compare an ONNX export's profiled FLOPs (not wired yet)");
  app->add_flag("--json", args->json, "Print JSON");

  cmd.run = [args] {
    const validate_model_args& a = *args;
    if (!a.onnx.empty())
      throw error(error_code::invalid_argument, "--onnx",
                  "comparing an ONNX export needs the ONNX profiler (flopcast profile), which this build lacks");
    measure::validate_options o;
    o.layers = parse_int(a.layers, "--layers");
    o.prompt = parse_int(a.prompt, "--prompt");
    o.decode_steps = parse_int(a.steps, "--steps");
    o.batch = parse_int(a.batch, "--batch");
    o.window = parse_int(a.window, "--window");
    if (!a.threads.empty()) {
      const std::int64_t t = parse_int(a.threads, "--threads");
      if (t < 1 || t > 1024) bad("--threads", "expected an integer in [1, 1024], but got " + std::to_string(t));
      o.threads = static_cast<int>(t);
    }
    const model_spec model = resolve_model(a.model);
    measure::validate_result r;
    try {
      r = measure::validate_model(model, o);
    } catch (const error& e) {
      throw as_flag(e);
    }
    std::cout << (a.json ? measure::to_json(r) + "\n" : measure::to_text(r));
    return r.ok() ? 0 : 1;
  };
  return cmd;
}

}  // namespace flopcast::cli
