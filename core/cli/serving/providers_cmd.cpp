#include "serving/providers_cmd.hpp"

#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>

#include "common.hpp"
#include "flopcast/base/error.hpp"
#include "flopcast/io/result_json.hpp"
#include "flopcast/plan/price_comparison.hpp"
#include "format.hpp"

namespace flopcast::cli {
namespace {

using nlohmann::json;

// The --compare options as typed: they become a price comparison request (JSON), which the core
// reads as it reads WASM's priceComparison, so both refuse a bad value alike.
struct providers_options {
  std::string model, gpu, precision;
  bool json = false, csv = false, compare = false;
  std::string tp, prompt, output, utilization, cost_per_hour;
  request_options given;  // which options were given (given.given)
};

std::string cell(const json& v, const char* unit = "") {
  if (v.is_null()) return "-";
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_integer()) return std::to_string(v.get<std::int64_t>());
  return fmt::format("{:g}{}", v.get<double>(), unit);
}

std::string usd(const json& v) { return v.is_null() ? "-" : format_usd(v.get<double>()); }

std::string csv_cell(const json& v) {
  if (v.is_null()) return "";
  std::string s = v.is_string() ? v.get<std::string>() : v.dump();
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

int list(const providers_options& o) {
  const std::string text = providers_json(o.model, o.json ? 2 : -1);
  if (o.json) {
    std::cout << text << "\n";
    return 0;
  }
  const json j = json::parse(text);
  static const char* const keys[] = {"provider",
                                     "id",
                                     "model",
                                     "precision",
                                     "context_length",
                                     "output_tokens_per_second",
                                     "input_usd_per_million",
                                     "output_usd_per_million",
                                     "date",
                                     "source"};
  if (o.csv) {
    std::string line;
    for (const char* k : keys) line += (line.empty() ? "" : ",") + std::string(k);
    std::cout << line << "\n";
    for (const json& e : j["providers"]) {
      line.clear();
      for (std::size_t i = 0; i < std::size(keys); ++i) line += (i ? "," : "") + csv_cell(e[keys[i]]);
      std::cout << line << "\n";
    }
    return 0;
  }
  std::cout << fmt::format("{:<11} {:<50} {:<42} {:>6} {:>8} {:>7} {:>9} {:>9}  {}\n", "provider", "id", "model",
                           "prec", "context", "tok/s", "$/1M in", "$/1M out", "seen");
  for (const json& e : j["providers"])
    std::cout << fmt::format("{:<11} {:<50} {:<42} {:>6} {:>8} {:>7} {:>9} {:>9}  {}\n", cell(e["provider"]),
                             cell(e["id"]), cell(e["model"]), cell(e["precision"]), cell(e["context_length"]),
                             cell(e["output_tokens_per_second"]), usd(e["input_usd_per_million"]),
                             usd(e["output_usd_per_million"]), cell(e["date"]));
  std::cout << fmt::format(
      "{} entries. Figures are PUBLISHED by the provider or the page named in --json's source, "
      "as seen on the date shown; prices change. '-': not found.\n",
      j["providers"].size());
  return 0;
}

// The fields of a price comparison request (price_comparison.hpp) and their flags.
struct compare_field {
  const char* key;
  const char* flag;
  std::string providers_options::*value;
  bool number;
};
const compare_field compare_fields[] = {
    {"model", "--model", &providers_options::model, false},
    {"gpu", "--gpu", &providers_options::gpu, false},
    {"precision", "--precision", &providers_options::precision, false},
    {"tensor_parallel", "--tp", &providers_options::tp, true},
    {"utilization", "--utilization", &providers_options::utilization, true},
    {"prompt_tokens", "--prompt-tokens", &providers_options::prompt, true},
    {"output_tokens", "--output-tokens", &providers_options::output, true},
    {"cost_per_hour_usd", "--cost-per-hour", &providers_options::cost_per_hour, true},
};

int compare(const providers_options& o) {
  json request = json::object();
  for (const compare_field& f : compare_fields) {
    name_flag(std::string("/") + f.key, f.flag);
    if (!o.given.given.count(f.flag)) continue;
    const std::string& text = o.*f.value;
    request[f.key] = f.number ? json_number_or_text(text) : json(text);
  }
  const std::string text = price_comparison_json(std::string_view(request.dump()), 2);
  if (o.json) {
    std::cout << text << "\n";
    return 0;
  }
  const json j = json::parse(text);
  const json& sh = j["self_hosted"];
  std::cout << fmt::format(
      "flopcast providers --compare: {} on {} x {} ({}), prompt {} + output {} tokens, utilization {:g}\n",
      cell(j["model"]), cell(j["gpus"]), cell(j["gpu"]), cell(j["precision"]), cell(j["prompt_tokens"]),
      cell(j["output_tokens"]), j["utilization"].get<double>());
  std::cout << fmt::format("  self-hosted (ESTIMATED): {}/GPU-h, {} output tokens/s busy at concurrency {}\n",
                           usd(j["gpu_cost_per_hour_usd"]), format_number(j["output_tokens_per_second"].get<double>()),
                           cell(j["concurrency"]));
  std::cout << fmt::format("{:<11} {:<50} {:>9} {:>9} {:>8} {:>11} {:>10}\n", "who", "id", "$/1M in", "$/1M out",
                           "tok/s", "$/request", "self/API");
  std::cout << fmt::format("{:<11} {:<50} {:>9} {:>9} {:>8} {:>11} {:>10}\n", "self-hosted",
                           cell(j["gpu"]) + " x" + cell(j["gpus"]), usd(sh["usd_per_million_input_tokens"]),
                           usd(sh["usd_per_million_output_tokens"]), "-", usd(sh["usd_per_request"]), "1");
  for (const json& e : j["providers"])
    std::cout << fmt::format("{:<11} {:<50} {:>9} {:>9} {:>8} {:>11} {:>10}\n", cell(e["provider"]), cell(e["id"]),
                             usd(e["input_usd_per_million"]), usd(e["output_usd_per_million"]),
                             cell(e["output_tokens_per_second"]), usd(e["usd_per_request"]),
                             e["self_hosted_to_api_cost"].is_null()
                                 ? std::string("-")
                                 : fmt::format("{:.3g}", e["self_hosted_to_api_cost"].get<double>()));
  std::cout << "  " << j["meaning"].get<std::string>() << "\n";
  return 0;
}

}  // namespace

std::string provider_text(const provider_entry& e) {
  const auto num = [](const std::optional<double>& v, const char* unit) {
    return v ? fmt::format("{:g}{}", *v, unit) : std::string("- (not found)");
  };
  const auto price = [](const std::optional<double>& v) { return v ? format_usd(*v) : std::string("- (not found)"); };
  std::string out = fmt::format("\nProvider ({}, PUBLISHED, seen {}; prices change)\n", e.provider_name, e.seen);
  out += fmt::format("  model id              : {}  (serves {})\n", e.id, e.model);
  out += fmt::format("  output speed          : {}\n", num(e.output_tokens_per_second, " tokens/s"));
  out += fmt::format("  price per 1M tokens   : input {}, output {}\n", price(e.input_usd_per_million),
                     price(e.output_usd_per_million));
  if (e.precision) out += fmt::format("  served precision      : {}\n", *e.precision);
  if (e.context_length) out += fmt::format("  context length        : {}\n", *e.context_length);
  if (!e.price_source.empty()) out += fmt::format("  price source          : {}\n", e.price_source);
  if (!e.speed_source.empty()) out += fmt::format("  speed source          : {}\n", e.speed_source);
  if (!e.note.empty()) out += fmt::format("  note                  : {}\n", e.note);
  return out;
}

providers_command add_providers_command(CLI::App& parent) {
  auto o = std::make_shared<providers_options>();
  providers_command cmd;
  cmd.app = parent.add_subcommand(
      "providers",
      "Hosted providers' model ids, published speed and price per 1M tokens (offline catalog, data/providers/); "
      "--compare: API price vs self-hosted cost per 1M tokens");
  CLI::App& a = *cmd.app;
  note_given(a.add_option("--model,-m", o->model,
                          "Only the entries serving this model (registry name or alias, or a provider id)"),
             o->given, "--model");
  auto* j = a.add_flag("--json", o->json, "Print JSON");
  auto* c = a.add_flag("--csv", o->csv, "Print CSV (the listing)");
  j->excludes(c);
  a.add_flag("--compare", o->compare,
             "API price vs self-hosted cost of --model: the serving model (as `flopcast throughput`) on -g GPU, busy "
             "--utilization of the paid hours");
  const auto option = [&](const char* names, std::string& value, const char* flag, const char* help) {
    note_given(a.add_option(names, value, help), o->given, flag);
  };
  option("--gpu,-g", o->gpu, "--gpu", "GPU for --compare [H100]");
  option("--tp", o->tp, "--tp", "Tensor-parallel GPUs for --compare [the smallest power of two up to 8 that fits]");
  option("--precision,-p", o->precision, "--precision", "Weight precision for --compare [bf16]");
  option("--utilization", o->utilization, "--utilization",
         "Share of the paid GPU hours spent serving at full throughput, for --compare [0.5]");
  option("--prompt-tokens", o->prompt, "--prompt-tokens", "Prompt tokens per request, for --compare [512]");
  option("--output-tokens", o->output, "--output-tokens", "Output tokens per request, for --compare [256]");
  option("--cost-per-hour", o->cost_per_hour, "--cost-per-hour",
         "USD per GPU-hour for --compare [the GPU's, data/gpus.json]");
  cmd.run = [o] {
    if (o->compare) {
      if (o->csv) throw error(error_code::invalid_argument, "--csv", "--compare prints text or --json");
      return compare(*o);
    }
    return list(*o);
  };
  return cmd;
}

}  // namespace flopcast::cli
