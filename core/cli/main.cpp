// flopcast: the native command-line interface.
//   flopcast estimate MODEL [options] [--json|--csv]
//   flopcast compare MODEL... [-b 1,8] [-s 512,2048] [-p bf16,int4] [-g A100,H100] [--json|--csv]
//   flopcast throughput | serve | train | calibrate | measure MODEL [options]
//   flopcast plan MODEL -g GPU [options] [--json|--csv]: how many GPUs, the layouts that fit
//   flopcast report MODEL [options] -o FILE.html [--pdf FILE.pdf]
//   flopcast profile MODEL.onnx [-g GPU] [-p PRECISION] [--dim k=v,...] [--depth N] [--json|--csv]
//   flopcast providers [--model M] [--json|--csv] [--compare -g GPU --utilization U]: hosted providers
//   flopcast list-models [--json] | list-gpus [--json] | list-engines [--json] | list-curves
// Every command's options come from the core's request table; bad input prints one line on
// stderr (the error code, the flag and JSON pointer, the message) and exits 2.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <stdexcept>
#include <utility>

#include "calibrate_cmd.hpp"
#include "common.hpp"
#include "flopcast/estimate/efficiency_curves.hpp"
#include "flopcast/flopcast.hpp"
#include "flopcast/io/request_json.hpp"
#include "flopcast/serving/engine.hpp"
#include "inputs/checkpoint_cmd.hpp"
#include "inputs/profile_cmd.hpp"
#include "measure/measure_cmd.hpp"
#include "measure/validate_cmd.hpp"
#include "measure/validate_model_cmd.hpp"
#include "operators_text.hpp"
#include "report_cmd.hpp"
#include "report_text.hpp"
#include "serving/plan_cmd.hpp"
#include "serving/providers_cmd.hpp"
#include "serving/serve_cmd.hpp"
#include "serving/throughput_cmd.hpp"
#include "terminal_text.hpp"
#include "train_cmd.hpp"

namespace {

using namespace flopcast;
using namespace flopcast::cli;

// A parameter count as typed: a number, or with a K, M, B (or G) or T suffix ("7B", "1.5e9").
double parse_count(const std::string& text, const char* option) {
  double scale = 1;
  std::string digits = text;
  if (!digits.empty()) {
    switch (std::toupper(static_cast<unsigned char>(digits.back()))) {
      case 'K':
        scale = 1e3;
        break;
      case 'M':
        scale = 1e6;
        break;
      case 'B':
      case 'G':
        scale = 1e9;
        break;
      case 'T':
        scale = 1e12;
        break;
      default:
        break;
    }
    if (scale != 1) digits.pop_back();
  }
  char* end = nullptr;
  const double v = std::strtod(digits.c_str(), &end);
  if (!is_json_number(digits) || end != digits.c_str() + digits.size() || !std::isfinite(v) || v < 0)
    throw error(error_code::invalid_argument, option,
                "expected a number of parameters (e.g. 7e9 or 7B), but got \"" + text + "\"");
  return v * scale;
}

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : ", ") + i;
  return out;
}

// The footer of list-models: how many there are, and what each recorded release added.
std::string models_summary(std::size_t shown) {
  const std::size_t total = model_records().size();
  std::string out =
      shown == total ? fmt::format("{} models", total) : fmt::format("{} of {} models shown", shown, total);
  out += fmt::format(" ({} config.json model types).\n", bundled_model_types());
  for (const auto& a : model_additions())
    out += fmt::format("Added in {}: {} models, the first of {} model types: {}.\n", a.release, a.records.size(),
                       a.new_model_types.size(), joined(a.new_model_types));
  return out;
}

// The footer of list-gpus: how many there are, and what each recorded release added.
std::string gpus_summary() {
  std::string out = fmt::format("{} accelerators.\n", gpu_records().size());
  for (const auto& a : gpu_additions())
    out += fmt::format("Added in {}: {}: {}.\n", a.release, a.records.size(), joined(a.records));
  return out;
}

std::vector<std::size_t> all_columns() {
  std::vector<std::size_t> c(row_fields().size());
  for (std::size_t i = 0; i < c.size(); ++i) c[i] = i;
  return c;
}

int run(int argc, char** argv) {
  CLI::App app{
      "flopcast: parameters, FLOPs, memory, latency, energy and cost of transformer LLMs, from the architecture alone"};
  app.set_version_flag("--version", std::string("flopcast ") + flopcast::version());
  app.require_subcommand(1);

  request_options est, cmp;
  est.command = command_estimate;
  cmp.command = command_compare;
  cmp.lists = true;
  CLI::App *estimate_cmd = nullptr, *compare_cmd = nullptr, *lm = nullptr, *lg = nullptr, *le = nullptr, *lc = nullptr;
  bool models_json = false, gpus_json = false, engines_json = false;
  std::string engines_gpu;  // list-engines --gpu: only the engines that run on it
  std::string min_params, max_params;
  model_filter filter;
  cli::measure_command measure;
  cli::train_command train;
  cli::throughput_command throughput;
  cli::serve_command serve;
  cli::providers_command providers;
  cli::plan_command plan_gpus;
  cli::calibrate_command calibrate;
  cli::inspect_command inspect;
  cli::validate_command validate;
  cli::validate_model_command validate_model;
  cli::report_command report;
  cli::profile_command profile;
  // Every command, in --help's order. Only the one named on the command line is built (building
  // all with their request options was a third of a CLI start); --help, --version and an
  // unknown name build them all.
  const std::pair<const char*, std::function<void()>> commands[] = {
      {"estimate",
       [&] {
         estimate_cmd = app.add_subcommand("estimate", "Estimate one model on one GPU");
         estimate_cmd->add_option("MODEL", est.models, "Registry name or alias, or a path to a config.json")
             ->required()
             ->expected(1);
         add_request_options(*estimate_cmd, est);
       }},
      {"compare",
       [&] {
         compare_cmd = app.add_subcommand("compare", "Estimate the Cartesian product of models and settings");
         compare_cmd->add_option("MODEL", cmp.models, "Registry names or config.json paths")
             ->required()
             ->expected(1, -1);
         add_request_options(*compare_cmd, cmp);
       }},
      {"list-models",
       [&] {
         lm = app.add_subcommand("list-models", "List the bundled models");
         lm->add_flag("--json", models_json, "Print JSON");
         lm->add_option("--family", filter.family,
                        "Only this family (as list-models --json names it, e.g. llama, qwen)");
         lm->add_option("--type", filter.model_type, "Only this config.json model_type (e.g. mixtral, deepseek_v3)");
         lm->add_option("--min-params", min_params, "At least this many parameters (7e9, 7B, 500M)");
         lm->add_option("--max-params", max_params, "At most this many parameters (7e9, 7B, 500M)");
       }},
      {"list-gpus",
       [&] {
         lg = app.add_subcommand("list-gpus", "List the bundled accelerators");
         lg->add_flag("--json", gpus_json, "Print JSON");
       }},
      {"list-engines",
       [&] {
         le = app.add_subcommand("list-engines",
                                 "List the serving-engine profiles and their fits to published measurements");
         le->add_flag("--json", engines_json, "Print JSON");
         le->add_option("--gpu,-g", engines_gpu, "Only the engines that run on this device");
       }},
      {"list-curves",
       [&] {
         lc = app.add_subcommand("list-curves",
                                 "List the measured kernel efficiency curves (data/efficiency/) and their sources");
       }},
      {"measure", [&] { measure = cli::add_measure_command(app); }},
      {"train", [&] { train = cli::add_train_command(app); }},
      {"throughput", [&] { throughput = cli::add_throughput_command(app); }},
      {"serve", [&] { serve = cli::add_serve_command(app); }},
      {"providers", [&] { providers = cli::add_providers_command(app); }},
      {"plan", [&] { plan_gpus = cli::add_plan_command(app); }},
      {"calibrate", [&] { calibrate = cli::add_calibrate_command(app); }},
      {"inspect", [&] { inspect = cli::add_inspect_command(app); }},
      {"validate", [&] { validate = cli::add_validate_command(app); }},
      {"validate-model", [&] { validate_model = cli::add_validate_model_command(app); }},
      {"report", [&] { report = cli::add_report_command(app); }},
      {"profile", [&] { profile = cli::add_profile_command(app); }},
  };
  const std::string named = argc > 1 && argv[1][0] != '-' ? argv[1] : "";
  const auto one =
      std::find_if(std::begin(commands), std::end(commands), [&](const auto& c) { return named == c.first; });
  if (one != std::end(commands)) {
    one->second();
    if (app.get_subcommands([&](const CLI::App* sub) { return sub->get_name() == named; }).empty())
      throw std::logic_error("the command table names \"" + named + "\", which its builder does not add");
  } else {
    for (const auto& c : commands) c.second();
  }
  const auto ran = [](const CLI::App* sub) { return sub && static_cast<bool>(*sub); };

  if (argc > 1 && argv[1][0] != '-') {
    const std::string command = argv[1];
    std::string names;
    bool known = false;
    for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
      known = known || sub->get_name() == command;
      names += (names.empty() ? "" : ", ") + sub->get_name();
    }
    if (!known)
      throw error(error_code::invalid_argument, "COMMAND",
                  "unknown command \"" + command + "\": expected one of " + names);
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
    // An unknown option, a missing or extra value, excluded options...: coded like every other error.
    std::cerr << "flopcast: error: [flopcast." << to_string(error_code::invalid_argument) << "] " << e.what()
              << " (see flopcast --help)\n";
    return 2;
  }

  if (ran(measure.app)) return measure.run();
  if (ran(train.app)) return train.run();
  if (ran(throughput.app)) return throughput.run();
  if (ran(serve.app)) return serve.run();
  if (ran(providers.app)) return providers.run();
  if (ran(plan_gpus.app)) return plan_gpus.run();
  if (ran(calibrate.app)) return calibrate.run();
  if (ran(inspect.app)) return inspect.run();
  if (ran(validate.app)) return validate.run();
  if (ran(validate_model.app)) return validate_model.run();
  if (ran(report.app)) return report.run();
  if (ran(profile.app)) return profile.run();
  if (ran(lm)) {
    if (!min_params.empty()) filter.min_parameters = parse_count(min_params, "--min-params");
    if (!max_params.empty()) filter.max_parameters = parse_count(max_params, "--max-params");
    if (models_json) {
      std::cout << models_to_json(filter) << "\n";
      return 0;
    }
    std::cout << fmt::format("{:<44} {:<28} {:>16} {:>10}\n", "id", "alias", "parameters", "type");
    std::size_t shown = 0;
    for (const auto& r : model_records())
      if (filter.matches(r)) {
        ++shown;
        std::cout << fmt::format("{:<44} {:<28} {:>16} {:>10}\n", r.id, r.aliases.empty() ? "" : r.aliases.front(),
                                 cli::format_count(static_cast<double>(count_parameters(r.spec).total)),
                                 r.spec.model_type);
      }
    std::cout << "\n" << models_summary(shown);
    return 0;
  }
  if (ran(le)) {
    const hardware_spec* device = engines_gpu.empty() ? nullptr : &find_gpu(engines_gpu);
    if (engines_json) {
      std::cout << engines_to_json(2, device) << "\n";
      return 0;
    }
    std::cout << fmt::format("{:<14} {:<26} {:<11} {:>9}  {}\n", "id", "name", "batching", "fit rows", "version");
    for (const auto& e : engine_records())
      if (device == nullptr || e.runs_on_device(*device))
        std::cout << fmt::format("{:<14} {:<26} {:<11} {:>9}  {}\n   {}; runs on {}\n", e.id, e.name,
                                 to_string(e.batching),
                                 e.efficiency_fitted ? std::to_string(e.fit_for(hardware_spec{})->rows) : "unfitted",
                                 e.version, e.basis(device), e.runs_on_text());
    return 0;
  }
  if (ran(lc)) {
    // Each source, then each curve: what it measured, where, and its efficiency at each published x.
    std::size_t curves = 0;
    for (const auto& s : efficiency_sources()) {
      std::cout << s.id << ": " << s.title << "\n  " << s.url << " (" << s.licence << ")\n";
      for (const auto& c : s.curves) {
        ++curves;
        std::string fixed;
        for (const auto& [k, v] : c.fixed) fixed += fmt::format("{}{}={:g}", fixed.empty() ? "" : ",", k, v);
        std::string points;
        for (const auto& p : c.points)
          points += fmt::format("{}{:g}:{:.3f}", points.empty() ? "" : " ", p.x, p.efficiency);
        std::cout << fmt::format("  {:<40} {:<13} {:<12} {:<5} {:<22} {} ({}) by {}: {}\n", c.id, to_string(c.op),
                                 c.device, c.format, c.engine, fixed.empty() ? "-" : fixed, c.peak_field, c.axis,
                                 points);
      }
    }
    std::cout << fmt::format("\n{} curves from {} sources (efficiency = achieved / the device's datasheet peak).\n",
                             curves, efficiency_sources().size());
    return 0;
  }
  if (ran(lg)) {
    if (gpus_json) {
      std::cout << gpus_to_json() << "\n";
      return 0;
    }
    std::cout << fmt::format("{:<22} {:>10} {:>13} {:>12} {:>7} {:>8}  {}\n", "name", "memory", "bandwidth",
                             "bf16/fp16", "TDP", "$/h", "aliases");
    for (const auto& g : gpu_records()) {
      const auto half = g.peak(precision::bf16) ? g.peak(precision::bf16) : g.peak(precision::fp16);
      std::string aliases;
      for (const auto& a : g.aliases) aliases += (aliases.empty() ? "" : ", ") + a;
      std::cout << fmt::format("{:<22} {:>10} {:>13} {:>12} {:>7} {:>8}  {}\n", g.name,
                               cli::format_bytes(g.memory_bytes), cli::format_bandwidth(g.memory_bandwidth_bytes_per_s),
                               half ? cli::format_flop_rate(*half) : std::string(cli::none_text),
                               cli::format_watts(g.tdp_watts), cli::format_usd(g.cost_per_hour_usd), aliases);
    }
    std::cout << "\n" << gpus_summary();
    return 0;
  }

  const bool comparing = ran(compare_cmd);
  const request_options& o = comparing ? cmp : est;
  const compare_request q = read_compare_request(build_request(o), comparing);
  const compare_plan& plan = q.plan;
  if (!comparing) {
    compare_plan::point p = plan.at(0);
    p.config.weight_bytes_source = cli::weight_bytes_source();
    const estimate_result r = estimate(*p.model, p.config, p.gpu);
    const estimate_context ctx{*p.model, p.config, p.gpu, r, provider_for_model_name(est.models.at(0))};
    if (o.json)
      std::cout << to_json(ctx) << "\n";
    else if (o.csv)
      std::cout << rows_to_csv({row_values(ctx)}, all_columns());
    else
      std::cout << cli::report(ctx) << (p.config.operator_table ? cli::operators_report(ctx) : "")
                << (ctx.provider ? cli::provider_text(*ctx.provider) : "");
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
  // Control characters in any output are escaped (terminal_text.hpp); as \u00XX in JSON output.
  bool json_output = false;
  for (int i = 1; i < argc; ++i)
    json_output = json_output || std::string(argv[i]) == "--json" || std::string(argv[i]) == "--graph";
  const flopcast::cli::terminal_filter filter(json_output);
  try {
    return run(argc, argv);
  } catch (const flopcast::error& e) {
    std::cerr << "flopcast: error: " << flopcast::cli::cli_message(e) << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "flopcast: internal error: " << e.what() << "\n";
    return 1;
  }
}
