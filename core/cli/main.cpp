// flopcast: the native command-line interface.
//   flopcast estimate MODEL [options] [--json|--csv]
//   flopcast compare MODEL... [-b 1,8] [-s 512,2048] [-p bf16,int4] [-g A100,H100] [--json|--csv]
//   flopcast list-models [--json] | list-gpus [--json]
// Bad input prints one line on stderr and exits 2.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>

#include "flopcast/flopcast.hpp"
#include "measure_cmd.hpp"
#include "train_cmd.hpp"
#include "report_text.hpp"

namespace {

using namespace flopcast;

// Options shared by estimate and compare, as typed (strings: parsed and checked here so
// every error names its option).
struct options {
  std::vector<std::string> models;
  std::string batch = "1", seq = "2048", gen = "128", precision = "bf16", gpu = "A100";
  std::string kv_precision, gpu_file, optimizer = "adam";
  bool training = false, causal = false, no_checkpointing = false, no_flash = false;
  std::string compute_eff, mem_eff, power_util, carbon, cost;
  bool json = false, csv = false;
};

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ',')) out.push_back(item);
  if (out.empty()) out.push_back("");
  return out;
}

[[noreturn]] void bad(const std::string& option, const std::string& message) {
  throw error(error_code::invalid_argument, option, message);
}

std::int64_t parse_int(const std::string& text, const std::string& option) {
  std::size_t used = 0;
  long long v = 0;
  try {
    v = std::stoll(text, &used);
  } catch (const std::out_of_range&) {
    bad(option, "expected an integer, but got \"" + text + "\" (out of range)");
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size()) bad(option, "expected an integer, but got \"" + text + "\"");
  return v;
}

double parse_number(const std::string& text, const std::string& option) {
  std::size_t used = 0;
  double v = 0;
  try {
    v = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size() || !std::isfinite(v)) bad(option, "expected a number, but got \"" + text + "\"");
  return v;
}

std::string read_file(const std::string& path, const std::string& option) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw error(error_code::io, option, "cannot read \"" + path + "\": " + std::strerror(errno));
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool looks_like_path(const std::string& s) {
  std::ifstream probe(s);
  return probe.good() || s.size() > 5 && s.compare(s.size() - 5, 5, ".json") == 0;
}

// A model by registry name or config.json path. Loaded specs outlive the call.
const model_spec& resolve_model(const std::string& name, std::vector<std::unique_ptr<model_spec>>& owned) {
  if (!looks_like_path(name)) return find_model(name).spec;
  const std::string text = read_file(name, "MODEL");
  try {
    std::string label = name;
    const auto slash = label.find_last_of('/');
    if (slash != std::string::npos && label.substr(slash + 1) == "config.json" && slash > 0) label = label.substr(0, slash);
    owned.push_back(std::make_unique<model_spec>(read_hf_config(text, label)));
  } catch (const error& e) {
    throw error(e.code(), e.pointer(), e.message() + " in " + name);
  }
  return *owned.back();
}

struct gpu_choice {
  const hardware_spec* spec = nullptr;  // nullptr: none
};

std::vector<gpu_choice> resolve_gpus(const options& o, std::vector<std::unique_ptr<hardware_spec>>& owned) {
  std::vector<gpu_choice> out;
  if (!o.gpu_file.empty()) {
    const std::string text = read_file(o.gpu_file, "--gpu-file");
    try {
      owned.push_back(std::make_unique<hardware_spec>(read_hardware(text)));
    } catch (const error& e) {
      throw error(e.code(), e.pointer(), e.message() + " in " + o.gpu_file);
    }
    out.push_back({owned.back().get()});
    return out;
  }
  for (const auto& g : split(o.gpu)) {
    std::string lower = g;
    for (char& ch : lower) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    out.push_back({lower == "none" ? nullptr : &find_gpu(g)});
  }
  return out;
}

settings base_settings(const options& o) {
  settings s;
  s.kv_cache_precision = o.kv_precision.empty() ? std::nullopt
                                                 : std::optional<precision>(parse_precision(o.kv_precision, "--kv-precision"));
  s.training = o.training;
  s.optim = parse_optimizer(o.optimizer, "--optimizer");
  s.gradient_checkpointing = !o.no_checkpointing;
  s.causal = o.causal;
  s.flash_attention = !o.no_flash;
  if (!o.compute_eff.empty()) s.compute_efficiency = parse_number(o.compute_eff, "--compute-efficiency");
  if (!o.mem_eff.empty()) s.mem_efficiency = parse_number(o.mem_eff, "--mem-efficiency");
  if (!o.power_util.empty()) s.power_utilization = parse_number(o.power_util, "--power-utilization");
  if (!o.carbon.empty()) s.carbon_intensity_g_per_kwh = parse_number(o.carbon, "--carbon-intensity");
  if (!o.cost.empty()) s.cost_per_hour_usd = parse_number(o.cost, "--cost-per-hour");
  return s;
}

// Rewrites the core's request-field pointer into the CLI option the user typed.
error as_cli_error(const error& e) {
  static const std::pair<const char*, const char*> k[] = {
      {"/batch_size", "--batch"},
      {"/sequence_length", "--seq-len"},
      {"/num_generated_tokens", "--gen-tokens"},
      {"/precision", "--precision"},
      {"/compute_efficiency", "--compute-efficiency"},
      {"/mem_efficiency", "--mem-efficiency"},
      {"/power_utilization", "--power-utilization"},
      {"/carbon_intensity", "--carbon-intensity"},
      {"/cost_per_hour", "--cost-per-hour"},
      {"/gpu", "--gpu"},
      {"/model", "MODEL"},
  };
  for (const auto& [field, option] : k)
    if (e.pointer() == field) return error(e.code(), option, e.message());
  return e;
}

// The comparison the options describe (a single point for estimate).
compare_plan make_plan(const options& o, bool allow_lists, std::vector<std::unique_ptr<model_spec>>& models_owned,
                       std::vector<std::unique_ptr<hardware_spec>>& gpus_owned) {
  const auto list = [&](const std::string& v, const char* option) {
    auto items = split(v);
    if (!allow_lists && items.size() > 1) bad(option, "expected one value, but got a list \"" + v + "\" (use flopcast compare)");
    return items;
  };
  compare_plan plan;
  plan.base = base_settings(o);
  for (const auto& b : list(o.batch, "--batch")) plan.batch_sizes.push_back(parse_int(b, "--batch"));
  for (const auto& q : list(o.seq, "--seq-len")) plan.sequence_lengths.push_back(parse_int(q, "--seq-len"));
  for (const auto& n : list(o.gen, "--gen-tokens")) plan.generated_tokens.push_back(parse_int(n, "--gen-tokens"));
  for (const auto& p : list(o.precision, "--precision")) plan.precisions.push_back(parse_precision(p, "--precision"));
  (void)list(o.gpu, "--gpu");
  for (const auto& g : resolve_gpus(o, gpus_owned)) plan.gpus.push_back(g.spec);
  for (const auto& name : o.models) plan.models.push_back(&resolve_model(name, models_owned));
  return plan;
}

void add_estimate_options(CLI::App& cmd, options& o, bool lists) {
  const std::string l = lists ? " (comma list)" : "";
  cmd.add_option("-b,--batch", o.batch, "Batch size" + l + " [1]");
  cmd.add_option("-s,--seq-len", o.seq, "Prompt / input length in tokens" + l + " [2048]");
  cmd.add_option("-n,--gen-tokens", o.gen, "Generated tokens" + l + " [128]");
  cmd.add_option("-p,--precision", o.precision, "fp32, tf32, fp16, bf16, fp8, int8, int4 (aliases ok)" + l + " [bf16]");
  cmd.add_option("--kv-precision", o.kv_precision, "KV-cache precision [weights', fp16 for int8/int4]");
  cmd.add_option("-g,--gpu", o.gpu, "GPU name or alias, or none" + l + " [A100]");
  cmd.add_option("--gpu-file", o.gpu_file, "Custom accelerator JSON (data/gpus.json record format)");
  cmd.add_flag("--training", o.training, "Report training memory and step time");
  cmd.add_option("--optimizer", o.optimizer, "adam, adamw, sgd (with momentum), none [adam]");
  cmd.add_flag("--no-checkpointing", o.no_checkpointing, "Training without activation checkpointing");
  cmd.add_flag("--causal", o.causal, "Count only the attention pairs a causal mask keeps");
  cmd.add_flag("--no-flash-attention", o.no_flash, "Activation estimate with materialised attention scores");
  cmd.add_option("--compute-efficiency", o.compute_eff, "Fraction of peak FLOP/s achieved, (0,1] [0.5]");
  cmd.add_option("--mem-efficiency", o.mem_eff, "Fraction of peak bandwidth achieved, (0,1] [0.8]");
  cmd.add_option("--power-utilization", o.power_util, "Mean power as a fraction of TDP, (0,1] [0.85]");
  cmd.add_option("--carbon-intensity", o.carbon, "Grid carbon intensity, g CO2 per kWh [400]");
  cmd.add_option("--cost-per-hour", o.cost, "USD per GPU-hour [the GPU's default]");
  auto* j = cmd.add_flag("--json", o.json, "Print JSON (SI units)");
  auto* c = cmd.add_flag("--csv", o.csv, "Print CSV (SI units)");
  j->excludes(c);
}

std::vector<std::size_t> all_columns() {
  std::vector<std::size_t> c(row_fields().size());
  for (std::size_t i = 0; i < c.size(); ++i) c[i] = i;
  return c;
}

int run(int argc, char** argv) {
  CLI::App app{"flopcast: parameters, FLOPs, memory, latency, energy and cost of transformer LLMs, from the architecture alone"};
  app.set_version_flag("--version", std::string("flopcast ") + flopcast::version());
  app.require_subcommand(1);

  options est, cmp;
  auto* estimate_cmd = app.add_subcommand("estimate", "Estimate one model on one GPU");
  estimate_cmd->add_option("MODEL", est.models, "Registry name or alias, or a path to a config.json")->required()->expected(1);
  add_estimate_options(*estimate_cmd, est, false);

  auto* compare_cmd = app.add_subcommand("compare", "Estimate the Cartesian product of models and settings");
  compare_cmd->add_option("MODEL", cmp.models, "Registry names or config.json paths")->required()->expected(1, -1);
  add_estimate_options(*compare_cmd, cmp, true);

  bool models_json = false, gpus_json = false;
  auto* lm = app.add_subcommand("list-models", "List the bundled models");
  lm->add_flag("--json", models_json, "Print JSON");
  auto* lg = app.add_subcommand("list-gpus", "List the bundled accelerators");
  lg->add_flag("--json", gpus_json, "Print JSON");
  const cli::measure_command measure = cli::add_measure_command(app);
  const cli::train_command train = cli::add_train_command(app);

  if (argc > 1 && argv[1][0] != '-') {
    const std::string command = argv[1];
    std::string names;
    bool known = false;
    for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
      known = known || sub->get_name() == command;
      names += (names.empty() ? "" : ", ") + sub->get_name();
    }
    if (!known) throw error(error_code::invalid_argument, "COMMAND", "unknown command \"" + command + "\": expected one of " + names);
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "flopcast: error: " << e.what() << " (see flopcast --help)\n";
    return 2;
  }

  if (*measure.app) return measure.run();
  if (*train.app) return train.run();
  if (*lm) {
    if (models_json) {
      std::cout << models_to_json() << "\n";
      return 0;
    }
    std::cout << fmt::format("{:<44} {:<28} {:>16} {:>10}\n", "id", "alias", "parameters", "type");
    for (const auto& r : model_records())
      std::cout << fmt::format("{:<44} {:<28} {:>16} {:>10}\n", r.id, r.aliases.empty() ? "" : r.aliases.front(),
                               count_parameters(r.spec).total, r.spec.model_type);
    return 0;
  }
  if (*lg) {
    if (gpus_json) {
      std::cout << gpus_to_json() << "\n";
      return 0;
    }
    std::cout << fmt::format("{:<18} {:>9} {:>11} {:>12} {:>7} {:>8}  {}\n", "name", "memory", "bandwidth", "bf16/fp16", "TDP",
                             "$/h", "aliases");
    for (const auto& g : gpu_records()) {
      const auto half = g.peak(precision::bf16) ? g.peak(precision::bf16) : g.peak(precision::fp16);
      std::string aliases;
      for (const auto& a : g.aliases) aliases += (aliases.empty() ? "" : ", ") + a;
      std::cout << fmt::format("{:<18} {:>9} {:>9}/s {:>12} {:>5} W {:>8.2f}  {}\n", g.name, cli::format_bytes(g.memory_bytes),
                               cli::format_bytes(g.memory_bandwidth_bytes_per_s), half ? cli::format_flops(*half) + "/s" : "-",
                               g.tdp_watts, g.cost_per_hour_usd, aliases);
    }
    return 0;
  }

  const bool comparing = static_cast<bool>(*compare_cmd);
  const options& o = comparing ? cmp : est;
  std::vector<std::unique_ptr<model_spec>> models_owned;
  std::vector<std::unique_ptr<hardware_spec>> gpus_owned;
  const compare_plan plan = make_plan(o, comparing, models_owned, gpus_owned);
  if (!comparing) {
    const compare_plan::point p = plan.at(0);
    const estimate_result r = estimate(*p.model, p.config, p.gpu);
    const estimate_context ctx{*p.model, p.config, p.gpu, r};
    if (o.json) std::cout << to_json(ctx) << "\n";
    else if (o.csv) std::cout << rows_to_csv({row_values(ctx)}, all_columns());
    else std::cout << cli::report(ctx);
    return 0;
  }

  const auto rows = compare_rows(plan, max_compare_rows);
  if (o.json) {
    std::cout << rows_to_json(rows, all_columns()) << "\n";
    return 0;
  }
  if (o.csv) {
    std::cout << rows_to_csv(rows, all_columns());
    return 0;
  }
  // Table: the model, each dimension that varies, then the headline figures.
  const auto col = [](std::string_view key) {
    for (std::size_t i = 0; i < row_fields().size(); ++i)
      if (row_fields()[i].key == key) return i;
    return std::size_t{0};
  };
  std::vector<std::size_t> columns{col("model")};
  for (std::string_view key : {"precision", "gpu", "batch_size", "sequence_length", "num_generated_tokens"}) {
    const std::size_t c = col(key);
    for (const auto& r : rows)
      if (cli::format_value(r[c]) != cli::format_value(rows[0][c])) {
        columns.push_back(c);
        break;
      }
  }
  for (std::string_view key : {"parameters", "forward_flops", "memory", "kv_cache", "prefill_latency_s",
                               "decode_latency_per_token_s", "decode_tokens_per_second", "fits_on_gpu"})
    columns.push_back(col(key));
  std::cout << cli::table(rows, columns);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const flopcast::error& e) {
    std::cerr << "flopcast: error: " << as_cli_error(e).what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "flopcast: internal error: " << e.what() << "\n";
    return 1;
  }
}
