// `flopcast validate`: the current model's predictions against the shipped validation table
// (data/measurements/, embedded at build time for the native CLI only), per row and as the median
// and p90 |error| per engine and metric. Predictions come from the core alone: estimate() for
// single-stream rows, serve() for rows at a stated concurrency, batch or maximum throughput. Rows
// at a request rate need the serving simulator and are listed as not predicted, as are rows
// naming a model or device flopcast does not bundle.
#include "validate_cmd.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <string_view>

#include "flopcast/engine.hpp"
#include "flopcast/error.hpp"
#include "flopcast/estimate.hpp"
#include "flopcast/registry.hpp"
#include "flopcast/serving.hpp"

namespace flopcast::cli {

extern const std::string_view k_measurement_files[];
extern const std::size_t k_measurement_file_count;

namespace {

using json = nlohmann::json;

struct prediction {
  std::string id, source, engine, metric, gpu, model;
  double measured = 0, predicted = 0;
};

// The figure the row measures, from the core; nullopt with `why` when the row is not predicted.
std::optional<double> predict(const json& row, std::string& why) {
  const std::string metric = row.at("metric").get<std::string>();
  const json& load = row.at("load");
  const std::string kind = load.at("kind").get<std::string>();
  if (kind == "request_rate") {
    why = "at a request rate (needs the serving simulator)";
    return std::nullopt;
  }
  if (row.at("input_tokens").is_null() || row.at("output_tokens").is_null()) {
    why = "a length not stated";
    return std::nullopt;
  }
  const model_spec* model = nullptr;
  const hardware_spec* gpu = nullptr;
  try {
    model = &find_model(row.at("model").get<std::string>()).spec;
  } catch (const error&) {
    why = "model not bundled";
    return std::nullopt;
  }
  try {
    gpu = &find_gpu(row.at("gpu").get<std::string>());
  } catch (const error&) {
    why = "device not bundled";
    return std::nullopt;
  }
  settings s;
  try {
    s.weight_precision = parse_precision(row.at("precision").get<std::string>());
    if (row.contains("kv_cache_precision") && row.at("kv_cache_precision").is_string())
      s.kv_cache_precision = parse_precision(row.at("kv_cache_precision").get<std::string>());
  } catch (const error&) {
    why = "a precision flopcast does not read";
    return std::nullopt;
  }
  s.parallel.tensor_parallel = row.value("tensor_parallel", 1);
  const auto isl = row.at("input_tokens").get<std::int64_t>();
  const auto osl = row.at("output_tokens").get<std::int64_t>();
  const double gpus = std::max(1.0, row.value("num_gpus", 1.0));
  const bool per_gpu = row.value("per", std::string("system")) == "gpu";
  try {
    if (kind == "single_stream") {
      s.batch_size = 1;
      s.sequence_length = std::max<std::int64_t>(isl, 1);
      s.num_generated_tokens = std::max<std::int64_t>(osl, 2);
      const estimate_result r = estimate(*model, s, gpu);
      const performance& p = r.perf;
      if (metric == "decode_tokens_per_s") return p.decode_tokens_per_second;
      if (metric == "prefill_tokens_per_s") return static_cast<double>(isl) / p.prefill_latency_s;
      if (metric == "ttft_s") return p.prefill_latency_s;
      if (metric == "tpot_s" || metric == "itl_s") return p.decode_latency_per_token_s;
      why = "a single-stream metric not predicted";
      return std::nullopt;
    }
    serving_settings v;
    v.base = s;
    v.prompt_tokens = std::max<std::int64_t>(isl, 1);
    v.output_tokens = std::max<std::int64_t>(osl, 1);
    if ((kind == "concurrency" || kind == "batch") && load.at("value").is_number())
      v.concurrency = static_cast<std::int64_t>(load.at("value").get<double>());
    const serving_result r = serve(*model, v, *gpu);
    if (r.concurrency == 0) {
      why = "does not fit by flopcast's rule";
      return std::nullopt;
    }
    const double share = per_gpu ? 1.0 / gpus : 1.0;
    if (metric == "output_tokens_per_s") return r.output_tokens_per_second * share;
    if (metric == "total_tokens_per_s") return r.total_tokens_per_second * share;
    if (metric == "requests_per_s") return r.requests_per_second * share;
    if (metric == "ttft_s") return r.ttft_s;
    if (metric == "tpot_s" || metric == "itl_s") return r.tpot_s;
    if (metric == "decode_tokens_per_s") return r.output_tokens_per_second * share;
    why = "a serving metric not predicted";
    return std::nullopt;
  } catch (const error& e) {
    why = std::string("refused by the core: ") + std::string(to_string(e.code()));
    return std::nullopt;
  }
}

double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  const double at = q * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(at));
  const std::size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (at - static_cast<double>(lo));
}

}  // namespace

validate_command add_validate_command(CLI::App& parent) {
  struct options {
    std::string engine, metric;
    bool json = false;
  };
  auto o = std::make_shared<options>();
  validate_command cmd;
  cmd.app = parent.add_subcommand(
      "validate", "Predictions against the shipped table of published measurements (data/measurements/)");
  cmd.app->add_option("--engine", o->engine, "Only rows of this engine (vllm, sglang, tensorrt-llm, llama.cpp, ...)");
  cmd.app->add_option("--metric", o->metric, "Only rows of this metric (ttft_s, output_tokens_per_s, ...)");
  cmd.app->add_flag("--json", o->json, "Print JSON");
  cmd.run = [o] {
    if (!o->engine.empty()) o->engine = find_engine(o->engine).id;  // aliases; an unknown engine is an error
    std::vector<prediction> rows;
    std::map<std::string, std::int64_t> skipped;
    std::int64_t total = 0;
    for (std::size_t f = 0; f < k_measurement_file_count; ++f) {
      const json file = json::parse(k_measurement_files[f]);
      const std::string source = file.at("source").at("id").get<std::string>();
      for (const json& row : file.at("rows")) {
        if (!o->engine.empty() && row.at("engine") != o->engine) continue;
        if (!o->metric.empty() && row.at("metric") != o->metric) continue;
        ++total;
        std::string why;
        const std::optional<double> p = predict(row, why);
        if (!p || !std::isfinite(*p) || *p <= 0) {
          ++skipped[why.empty() ? "no finite prediction" : why];
          continue;
        }
        rows.push_back({row.at("id"), source, row.at("engine"), row.at("metric"), row.at("gpu"), row.at("model"),
                        row.at("value").get<double>(), *p});
      }
    }
    // Summary per engine and metric: signed and absolute relative errors of predicted/measured.
    std::map<std::pair<std::string, std::string>, std::vector<double>> errors;
    for (const prediction& r : rows) errors[{r.engine, r.metric}].push_back(r.predicted / r.measured - 1.0);
    json summary = json::array();
    for (const auto& [key, e] : errors) {
      std::vector<double> abs_e(e.size());
      std::transform(e.begin(), e.end(), abs_e.begin(), [](double x) { return std::fabs(x); });
      summary.push_back({{"engine", key.first},
                         {"metric", key.second},
                         {"rows", e.size()},
                         {"median_error", quantile(e, 0.5)},
                         {"median_abs_error", quantile(abs_e, 0.5)},
                         {"p90_abs_error", quantile(abs_e, 0.9)}});
    }
    if (o->json) {
      json out = {{"model", "plain roofline (no engine profile fitted yet)"},
                  {"rows_considered", total},
                  {"rows_predicted", rows.size()},
                  {"summary", summary},
                  {"skipped", skipped}};
      json list = json::array();
      for (const prediction& r : rows)
        list.push_back({{"id", r.id},
                        {"source", r.source},
                        {"engine", r.engine},
                        {"metric", r.metric},
                        {"gpu", r.gpu},
                        {"model", r.model},
                        {"measured", r.measured},
                        {"predicted", r.predicted},
                        {"error", r.predicted / r.measured - 1.0}});
      out["rows"] = list;
      std::cout << out.dump(2) << "\n";
      return 0;
    }
    std::cout << fmt::format("flopcast validate: {} of {} rows predicted (plain roofline; no engine fitted yet)\n",
                             rows.size(), total);
    std::cout << fmt::format("  {:<14} {:<22} {:>5} {:>10} {:>10} {:>10}\n", "engine", "metric", "rows", "median",
                             "median|e|", "p90|e|");
    for (const json& s : summary)
      std::cout << fmt::format("  {:<14} {:<22} {:>5} {:>+9.1f}% {:>9.1f}% {:>9.1f}%\n",
                               s.at("engine").get<std::string>(), s.at("metric").get<std::string>(),
                               s.at("rows").get<std::size_t>(), 100 * s.at("median_error").get<double>(),
                               100 * s.at("median_abs_error").get<double>(), 100 * s.at("p90_abs_error").get<double>());
    for (const auto& [why, n] : skipped) std::cout << fmt::format("  not predicted: {} rows, {}\n", n, why);
    return 0;
  };
  return cmd;
}

}  // namespace flopcast::cli
