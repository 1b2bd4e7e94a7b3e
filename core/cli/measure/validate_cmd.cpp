// `flopcast validate`: the model's predictions against the shipped validation table
// (data/measurements/, embedded at build time for the native CLI only), per row and as the median
// and p90 |error| per engine, metric and split (fit / held_out). The predictions are
// validation.cpp's (the same the engine fit optimises): the bundled engine profiles, or with
// --plain the roofline without any fitted cost.
#include "measure/validate_cmd.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string_view>

#include "flopcast/base/error.hpp"
#include "flopcast/catalog/registry.hpp"
#include "flopcast/estimate/estimate.hpp"
#include "flopcast/serving/engine.hpp"
#include "format.hpp"
#include "measure/engine_fit.hpp"
#include "measure/training_validation.hpp"
#include "measure/validation.hpp"

namespace flopcast::cli {

extern const std::string_view k_measurement_files[];
extern const std::size_t k_measurement_file_count;

namespace {

using json = nlohmann::json;

struct prediction {
  std::string id, source, engine, metric, gpu, model, family;
  bool held_out = false, features = false;  // features: the row states a serving feature
  double measured = 0, predicted = 0;
};

// Leave one campaign out: for each engine and each of its fit sources, the engine refitted without
// that source (validation::fit_engine, the fit npm run fit runs) predicts the source's rows. The
// table beside it: the same rows under the bundled constants (fitted with the source in).
int run_loco(const std::vector<validation::row>& table, const std::string& only, bool as_json) {
  const std::vector<validation::row> rows = validation::fit_table(table);
  std::map<std::string, std::set<std::string>> fit_sources;
  for (const validation::row& r : rows)
    if (!r.held_out) fit_sources[r.data.at("engine").get<std::string>()].insert(r.source);
  json out = json::array();
  if (!as_json)
    std::cout << fmt::format(
        "flopcast validate --loco: each fit source left out of its engine's fit in turn\n"
        "  {:<14} {:<48} {:>5} {:>12} {:>12} {:>12}\n",
        "engine", "source left out", "rows", "in-fit |e|", "left-out |e|", "left-out p90");
  for (const auto& [engine, sources] : fit_sources) {
    if (!only.empty() && engine != only) continue;
    for (const std::string& left : sources) {
      std::vector<validation::row> rest;
      for (const validation::row& r : rows)
        if (r.source != left) rest.push_back(r);
      const nlohmann::ordered_json section = validation::fit_engine(engine, rest);
      validation::predictor predict;
      std::vector<double> in_fit, left_out;
      for (const validation::row& r : rows) {
        if (r.source != left || r.data.at("engine") != engine) continue;
        const double measured = r.data.at("value").get<double>();
        validation::model_choice bundled;
        const validation::prediction pb = predict(r.data, bundled);
        if (!pb.value || *pb.value <= 0 || !std::isfinite(*pb.value)) continue;
        const std::optional<validation::model_choice> c = validation::choice_from(section, pb.family);
        if (!c) continue;
        const validation::prediction pl = predict(r.data, *c);
        if (!pl.value || *pl.value <= 0 || !std::isfinite(*pl.value)) continue;
        in_fit.push_back(std::fabs(*pb.value / measured - 1.0));
        left_out.push_back(std::fabs(*pl.value / measured - 1.0));
      }
      if (left_out.empty()) {
        if (!as_json)
          std::cout << fmt::format("  {:<14} {:<48} {:>5}   (the engine cannot be fitted without it)\n", engine, left,
                                   0);
        out.push_back({{"engine", engine}, {"source", left}, {"rows", 0}, {"fitted_without", false}});
        continue;
      }
      const double a = validation::quantile(in_fit, 0.5), b = validation::quantile(left_out, 0.5),
                   c = validation::quantile(left_out, 0.9);
      out.push_back({{"engine", engine},
                     {"source", left},
                     {"rows", left_out.size()},
                     {"fitted_without", true},
                     {"in_fit_median_abs_error", a},
                     {"left_out_median_abs_error", b},
                     {"left_out_p90_abs_error", c}});
      if (!as_json)
        std::cout << fmt::format("  {:<14} {:<48} {:>5} {:>12} {:>12} {:>12}\n", engine, left, left_out.size(),
                                 format_percent(a), format_percent(b), format_percent(c));
    }
  }
  if (as_json) std::cout << json{{"loco", out}}.dump(2) << "\n";
  return 0;
}

}  // namespace

validate_command add_validate_command(CLI::App& parent) {
  struct options {
    std::string engine, metric;
    bool json = false, plain = false, only_features = false, without_features = false, loco = false, by_family = false,
         by_source = false;
  };
  auto o = std::make_shared<options>();
  validate_command cmd;
  cmd.app = parent.add_subcommand(
      "validate", "Predictions against the shipped table of published measurements (data/measurements/)");
  cmd.app->add_option("--engine", o->engine, "Only rows of this engine (vllm, sglang, tensorrt-llm, llama.cpp, ...)");
  cmd.app->add_option("--metric", o->metric, "Only rows of this metric (ttft_s, output_tokens_per_s, ...)");
  cmd.app->add_flag("--plain", o->plain, "The plain roofline: no engine's fitted costs or efficiencies");
  cmd.app->add_flag("--features", o->only_features,
                    "Only rows that state a serving feature (prefix caching with a prompt pool or shared prefix, "
                    "attention data parallelism, speculative decoding, disaggregation, data-parallel replicas)");
  cmd.app->add_flag("--without-features", o->without_features,
                    "Run every row as if it stated none of those features (the simulator before them)");
  cmd.app->add_flag("--by-family", o->by_family,
                    "Summarise per device family too (vendor and memory type: nvidia-hbm, apple-lpddr, ...)");
  cmd.app->add_flag("--by-source", o->by_source,
                    "Summarise per source (campaign) too: the groups the ratchet holds (tests/cli/validate.test.mjs)");
  cmd.app->add_flag("--loco", o->loco,
                    "Leave one campaign out: refit each engine without each of its fit sources in turn (the fit of "
                    "npm run fit) and predict that source's rows with the refit constants; slow (one fit per source)");
  cmd.app->add_flag("--json", o->json, "Print JSON");
  cmd.run = [o] {
    if (!o->engine.empty()) o->engine = find_engine(o->engine).id;  // aliases; an unknown engine is an error
    std::vector<std::string_view> files(k_measurement_files, k_measurement_files + k_measurement_file_count);
    validation::model_choice how;
    how.how = o->plain ? validation::model_choice::kind::plain : validation::model_choice::kind::bundled;
    how.features = !o->without_features;
    validation::predictor predict;
    std::vector<prediction> rows;
    std::map<std::string, std::int64_t> skipped;
    std::int64_t total = 0;
    const auto table = validation::rows_of(files);
    if (o->loco) return run_loco(table, o->engine, o->json);
    // The training rows (training_validation.cpp): their own group, left out by the serving filters.
    const validation::training_summary training = o->engine.empty() && o->metric.empty() && !o->only_features
                                                      ? validation::validate_training(files)
                                                      : validation::training_summary{};
    if (!o->metric.empty()) {
      // An unknown metric is an error naming the known ones, never an empty summary.
      std::set<std::string> metrics;
      for (const validation::row& v : table) metrics.insert(v.data.at("metric").get<std::string>());
      if (!metrics.count(o->metric)) {
        std::string names;
        for (const std::string& m : metrics) names += (names.empty() ? "" : ", ") + m;
        throw error(error_code::invalid_argument, "--metric",
                    "unknown metric \"" + o->metric + "\": expected one of " + names);
      }
    }
    for (const validation::row& v : table) {
      const json& row = v.data;
      if (!o->engine.empty() && row.at("engine") != o->engine) continue;
      if (!o->metric.empty() && row.at("metric") != o->metric) continue;
      const bool features = validation::uses_features(row);
      if (o->only_features && !features) continue;
      ++total;
      const validation::prediction p = predict(row, how);
      if (!p.value || !std::isfinite(*p.value) || *p.value <= 0) {
        ++skipped[p.why.empty() ? "no finite prediction" : p.why];
        continue;
      }
      rows.push_back({row.at("id"), v.source, row.at("engine"), row.at("metric"), row.at("gpu"), row.at("model"),
                      o->by_family ? p.family : std::string(), v.held_out, features, row.at("value").get<double>(),
                      *p.value});
    }
    // Summary per engine, metric, split and whether the rows state serving features: signed and
    // absolute relative errors of predicted/measured.
    std::map<std::tuple<std::string, std::string, bool, bool, std::string, std::string>, std::vector<double>> errors;
    for (const prediction& r : rows)
      errors[{r.engine, r.metric, r.held_out, r.features, r.family, o->by_source ? r.source : std::string()}].push_back(
          r.predicted / r.measured - 1.0);
    json summary = json::array();
    for (const auto& [key, e] : errors) {
      std::vector<double> abs_e(e.size());
      std::transform(e.begin(), e.end(), abs_e.begin(), [](double x) { return std::fabs(x); });
      summary.push_back({{"engine", std::get<0>(key)},
                         {"metric", std::get<1>(key)},
                         {"split", std::get<2>(key) ? "held_out" : "fit"},
                         {"features", std::get<3>(key)},
                         {"family", std::get<4>(key).empty() ? json(nullptr) : json(std::get<4>(key))},
                         {"source", std::get<5>(key).empty() ? json(nullptr) : json(std::get<5>(key))},
                         {"rows", e.size()},
                         {"median_error", validation::quantile(e, 0.5)},
                         {"median_abs_error", validation::quantile(abs_e, 0.5)},
                         {"p90_abs_error", validation::quantile(abs_e, 0.9)}});
    }
    const std::string what =
        std::string(o->plain ? "plain roofline (no engine costs or fitted efficiencies)"
                             : "engine profiles as fitted (data/engines/), plain roofline where unfitted") +
        (o->without_features ? "; rows run without their serving features" : "");
    if (o->json) {
      json out = {{"model", what},
                  {"rows_considered", total},
                  {"rows_predicted", rows.size()},
                  {"summary", summary},
                  {"skipped", skipped},
                  {"training",
                   {{"rows_considered", training.considered},
                    {"rows_predicted", training.predicted},
                    {"summary", training.summary},
                    {"skipped", training.skipped},
                    {"rows", training.rows}}}};
      json list = json::array();
      for (const prediction& r : rows)
        list.push_back({{"id", r.id},
                        {"source", r.source},
                        {"split", r.held_out ? "held_out" : "fit"},
                        {"features", r.features},
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
    std::cout << fmt::format("flopcast validate: {} of {} rows predicted ({})\n", rows.size(), total, what);
    std::cout << fmt::format("  {:<14} {:<22}{} {:<18} {:>5} {:>10} {:>10} {:>10}\n", "engine", "metric",
                             o->by_family ? fmt::format(" {:<13}", "family") : "", "split", "rows", "median",
                             "median|e|", "p90|e|");
    for (const json& s : summary)
      std::cout << fmt::format(
          "  {:<14} {:<22}{} {:<18} {:>5} {:>10} {:>10} {:>10}\n", s.at("engine").get<std::string>(),
          s.at("metric").get<std::string>(),
          o->by_family ? fmt::format(" {:<13}",
                                     s.at("family").is_string() ? s.at("family").get<std::string>() : std::string("-"))
                       : "",
          s.at("split").get<std::string>() + (s.at("features").get<bool>() ? " features" : ""),
          s.at("rows").get<std::size_t>(), format_percent(s.at("median_error").get<double>()),
          format_percent(s.at("median_abs_error").get<double>()), format_percent(s.at("p90_abs_error").get<double>()));
    for (const auto& [why, n] : skipped) std::cout << fmt::format("  not predicted: {} rows, {}\n", n, why);
    if (training.considered > 0) {
      std::cout << fmt::format("training: {} of {} rows predicted (tokens/s, the training step model)\n",
                               training.predicted, training.considered);
      for (const json& s : training.summary)
        std::cout << fmt::format(
            "  {:<16} {:<20} {:<18} {:>5} {:>10} {:>10} {:>10}\n", s.at("engine").get<std::string>(),
            s.at("metric").get<std::string>(), s.at("split").get<std::string>(), s.at("rows").get<std::size_t>(),
            format_percent(s.at("median_error").get<double>()), format_percent(s.at("median_abs_error").get<double>()),
            format_percent(s.at("p90_abs_error").get<double>()));
      for (const auto& [why, n] : training.skipped) std::cout << fmt::format("  not predicted: {} rows, {}\n", n, why);
    }
    return 0;
  };
  return cmd;
}

}  // namespace flopcast::cli
