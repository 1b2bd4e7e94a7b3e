// flopcast validate-model MODEL|config.json [--layers N] [--prompt N] [--steps N] [--batch N]
//                         [--window N] [--threads T] [--json]
//                         [--onnx FILE [--dim NAME=SIZE,...] [--onnx-head]]
// Runs the reference decoder (dense, GQA/MQA, sliding-window, MoE and MLA layers) on the
// model's first layers with random weights and compares what its kernels counted, per
// operation, with estimate() of the same truncated model. Exit 0: every checked operation
// agrees; 1: one disagrees; 2: bad input.
#include "measure/validate_model_cmd.hpp"

#include <fmt/format.h>

#include <iostream>
#include <memory>

#include "common.hpp"
#include "flopcast/base/error.hpp"
#include "flopcast/catalog/registry.hpp"
#include "flopcast/flopcast.hpp"
#include "flopcast/measure/validate_model.hpp"
#include "flopcast/profile/profile.hpp"
#include "inputs/onnx_library.hpp"
#include "inputs/profile_cmd.hpp"

namespace flopcast::cli {

namespace {

struct validate_model_args {
  std::string model, layers = "2", prompt = "16", steps = "2", batch = "1", window = "0", threads;
  std::string onnx;
  std::vector<std::string> dims;
  bool onnx_head = false, json = false;
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

// The export's first input is [batch, tokens, ...]: its size must be what the estimate is asked for.
void check_tokens(const profile::graph& g, const std::map<std::string, std::int64_t>& dims,
                  const measure::validate_options& o) {
  if (g.inputs.empty() || g.inputs[0].dims.size() < 2) return;
  std::int64_t size[2] = {0, 0};
  for (int i = 0; i < 2; ++i) {
    const profile::dim& d = g.inputs[0].dims[static_cast<std::size_t>(i)];
    const auto it = dims.find(d.symbol);
    size[i] = d.value >= 0 ? d.value : it != dims.end() ? it->second : 0;
  }
  if (size[0] > 0 && size[1] > 0 && (size[0] != o.batch || size[1] != o.prompt))
    bad("--onnx", fmt::format("the export's input \"{}\" is {} x {} tokens, but the estimate is asked for --batch {} x "
                              "--prompt {}: give the same sizes",
                              g.inputs[0].name, size[0], size[1], o.batch, o.prompt));
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
  app->add_option("--onnx", args->onnx,
                  "Instead of running the decoder, compare the profiled matmul FLOPs of an ONNX export of the model's "
                  "first --layers layers (batch --batch, --prompt tokens) with the analytic estimate");
  app->add_option("--dim", args->dims, "With --onnx: the export's symbolic dimensions, NAME=SIZE[,NAME=SIZE...]");
  app->add_flag("--onnx-head", args->onnx_head, "With --onnx: the export includes the LM head");
  app->add_flag("--json", args->json, "Print JSON");

  cmd.run = [args] {
    const validate_model_args& a = *args;
    if (a.onnx.empty() && (!a.dims.empty() || a.onnx_head))
      bad(a.dims.empty() ? "--onnx-head" : "--dim", "is read only with --onnx FILE");
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
      if (!a.onnx.empty()) {
        profile::options po;
        po.dims = parse_dims(a.dims);
        const profile::graph g = profile::read_graph_json(onnx_graph_json(a.onnx, "--onnx"));
        check_tokens(g, po.dims, o);
        r = measure::compare_onnx(model, g, profile::run(g, po), o, a.onnx_head);
      } else {
        r = measure::validate_model(model, o);
      }
    } catch (const error& e) {
      throw as_flag(e);
    }
    std::cout << (a.json ? measure::to_json(r) + "\n" : measure::to_text(r));
    return r.ok() ? 0 : 1;
  };
  return cmd;
}

}  // namespace flopcast::cli
