#include "serving/plan_cmd.hpp"

#include <fmt/format.h>

#include <iostream>
#include <nlohmann/json.hpp>

#include "common.hpp"
#include "flopcast/io/plan_json.hpp"
#include "flopcast/plan/plan.hpp"
#include "report_text.hpp"

namespace flopcast::cli {
namespace {

using json = nlohmann::ordered_json;

// "TP=4 x PP=3"; one GPU: "1 GPU".
std::string layout_name(const plan_layout& x) {
  std::string out;
  const auto add = [&](const char* what, std::int64_t v) {
    if (v > 1) out += (out.empty() ? "" : " x ") + fmt::format("{}={}", what, v);
  };
  add("TP", x.tp);
  add("PP", x.pp);
  add("EP", x.ep);
  add("DP", x.dp);
  return out.empty() ? "1 GPU" : out;
}

std::string answer(const plan_result& r, const hardware_spec& gpu) {
  if (r.layouts.empty()) {
    if (!r.closest) return fmt::format("Does not fit on up to {} x {}", r.max_gpus, gpu.name);
    const plan_layout& c = *r.closest;
    return fmt::format("Does not fit on up to {} x {}: the closest, {} on {} GPUs, needs {} per GPU of {} usable",
                       r.max_gpus, gpu.name, layout_name(c), c.gpus, format_bytes(c.per_gpu_memory_bytes),
                       format_bytes(c.usable_bytes));
  }
  const plan_layout& x = r.layouts.front();
  return fmt::format("Fits on {} x {} ({}) at {} per GPU of {} usable", x.gpus, gpu.name, layout_name(x),
                     format_bytes(x.per_gpu_memory_bytes), format_bytes(x.usable_bytes));
}

// The SLO search as text: the question, the ranked configurations, why the first wins.
void print_search(const plan_request& q, const search_result& r) {
  const plan_settings& p = q.plan;
  const auto limit = [](const char* name, const std::optional<double>& v) {
    return v ? fmt::format(" {} <= {}", name, format_seconds(*v)) : std::string();
  };
  std::cout << fmt::format(
      "flopcast plan: {} on up to {} x {}, {} + {} tokens, {}; SLO p{}:{}{}{}; optimise {}\n", q.model->name,
      p.search_gpus,
      [&] {
        std::string names;
        for (const hardware_spec* g : q.gpus) names += (names.empty() ? "" : " or ") + g->name;
        return names;
      }(),
      p.base.sequence_length, p.base.num_generated_tokens,
      p.concurrency    ? fmt::format("{} concurrent requests", *p.concurrency)
      : p.request_rate ? fmt::format("{} requests/s", format_number(*p.request_rate))
                       : std::string("each configuration at the most load it serves"),
      p.slo.percentile, limit("TTFT", p.slo.ttft_s), limit("TPOT", p.slo.tpot_s), limit("E2E", p.slo.e2e_s),
      to_string(p.optimize.value_or(search_objective::goodput)));
  std::cout << fmt::format("{} configurations, {} fit, {} closed-form points, {} simulated (ESTIMATED)\n",
                           r.configurations, r.fitting, r.closed_form_points, r.simulations);
  if (!r.ranked.empty()) {
    std::cout << fmt::format(
        "\n{:>3} {:<22} {:<8} {:>4} {:>4} {:>5} {:>4} {:>5} {:>6} {:>10} {:>10} {:>10} {:>10} {:>9}  {}\n", "#",
        q.gpus.size() > 1 ? "GPU and engine" : "engine", "format", "TP", "EP", "DP-at", "x", "GPUs", "load", "TTFT",
        "TPOT", "tok/s/GPU", "tok/s/user", "$/1M tok", "binds");
    std::size_t i = 0;
    for (const search_point& x : r.ranked) {
      const search_config& c = x.config;
      std::cout << fmt::format(
          "{:>3} {:<22} {:<8} {:>4} {:>4} {:>5} {:>4} {:>5} {:>6} {:>10} {:>10} {:>10} {:>10} {:>9}  {}\n", ++i,
          (q.gpus.size() > 1 ? x.gpu + " " : "") + c.engine + (c.speculative_tokens > 0 ? "+MTP" : ""),
          to_string(c.weight), c.disaggregated ? fmt::format("{}/{}", c.prefill_tp, c.tp) : std::to_string(c.tp), c.ep,
          c.attention_dp,
          c.disaggregated ? fmt::format("{}P+{}D", c.prefill_workers, c.decode_workers) : std::to_string(c.replicas),
          c.gpus(),
          x.sim.arrivals == arrival_kind::poisson ? format_number(x.sim.rate_per_s) + "/s"
                                                  : std::to_string(x.sim.clients),
          format_seconds(x.ttft_s), format_seconds(x.tpot_s), format_rate(x.output_tokens_per_s_per_gpu),
          format_rate(x.tokens_per_s_per_user), format_usd(x.usd_per_million_output_tokens), x.binding);
    }
    std::cout << "\nload: clients (or requests/s) per replica (disaggregated: per decode worker); x: replicas, or "
                 "prefill + decode workers (TP: prefill/decode); TTFT and TPOT at the SLO percentile\n";
  }
  std::cout << "\n" << r.why << "\n";
  if (!r.ranked.empty()) {
    std::string line = "flopcast";
    for (const std::string& a : serve_args(q, r.ranked.front())) line += " " + a;
    std::cout << "check the first: " << line << "\n";
    const search_point& best = r.ranked.front();
    const auto show = [&](const std::optional<launch_command>& l, const std::string& what) {
      if (!l) return;
      std::cout << fmt::format("launch {} ({} flags as its docs name them, {}):\n  {}\n", what, best.config.engine,
                               l->version, l->text);
      if (!l->yaml.empty()) {
        std::cout << "  with " << l->yaml_file << ":\n";
        for (const std::string& y : l->yaml) std::cout << "    " << y << "\n";
      }
      for (const std::string& x : l->left_out) std::cout << "  not expressed: " << x << "\n";
    };
    if (best.config.disaggregated) {
      show(best.prefill_launch, fmt::format("{} prefill workers", best.config.prefill_workers));
      show(best.launch, fmt::format("{} decode workers", best.config.decode_workers));
    } else {
      show(best.launch, best.config.replicas > 1 ? fmt::format("{} replicas", best.config.replicas) : "it");
    }
  }
  for (const std::string& n : r.notes) std::cout << "note: " << n << "\n";
}

void print_csv(const json& result, const char* list) {
  const json& layouts = result.at(list);
  if (layouts.empty()) return;
  std::string line;
  for (const auto& [key, value] : layouts.front().items()) line += (line.empty() ? "" : ",") + key;
  std::cout << line << "\n";
  for (const json& x : layouts) {
    line.clear();
    bool first = true;
    for (const auto& [key, value] : x.items()) {
      line += first ? "" : ",";
      first = false;
      if (value.is_boolean())
        line += value.get<bool>() ? "true" : "false";
      else if (value.is_array() || value.is_object())
        line += "\"" + [&] {
          std::string t = value.dump();
          std::string q2;
          for (const char ch : t) q2 += ch == '"' ? std::string("\"\"") : std::string(1, ch);
          return q2;
        }() + "\"";
      else if (!value.is_null())
        line += value.dump();
    }
    std::cout << line << "\n";
  }
}

}  // namespace

plan_command add_plan_command(CLI::App& parent) {
  auto o = std::make_shared<request_options>();
  o->command = command_plan;
  plan_command cmd;
  cmd.app = parent.add_subcommand("plan",
                                  "How many GPUs: the smallest layouts that fit, with memory per GPU, speed and cost");
  CLI::App& a = *cmd.app;
  a.add_option("MODEL", o->models, "Registry name or alias, or a path to a config.json")->required()->expected(1);
  add_request_options(a, *o, false);
  auto* j = a.add_flag("--json", o->json, "Print JSON (SI units)");
  auto* c = a.add_flag("--csv", o->csv, "Print CSV of the listed layouts (SI units)");
  j->excludes(c);

  cmd.run = [o] {
    const plan_request q = read_plan_request(build_request(*o).dump());
    const plan_result r = plan(*q.model, q.plan, *q.gpu);
    std::optional<search_result> search;
    if (q.plan.searches()) search = plan_search(q);
    if (o->json || o->csv) {
      const std::string text = plan_to_json(q, r, o->json ? 2 : -1, search ? &*search : nullptr);
      if (o->json)
        std::cout << text << "\n";
      else if (search)
        print_csv(json::parse(text).at("search"), "ranked");
      else
        print_csv(json::parse(text), "layouts");
      return 0;
    }
    if (search) {
      print_search(q, *search);
      return 0;
    }
    const settings& s = q.plan.base;
    std::cout << fmt::format("flopcast plan: {} in {} on {}, {} + {} tokens, {}\n", q.model->name,
                             to_string(s.weight_precision), q.gpu->name, s.sequence_length, s.num_generated_tokens,
                             q.plan.concurrency ? plural(static_cast<double>(r.load), "concurrent sequence")
                                                : plural(static_cast<double>(r.load), "sequence") + " per batch");
    std::cout << answer(r, *q.gpu) << "\n";
    if (!r.layouts.empty()) {
      std::cout << fmt::format("\n{:>5} {:>3} {:>3} {:>3} {:>3}  {:>12} {:>10} {:>10} {:>12} {:>9} {:>10}  {}\n",
                               "GPUs", "TP", "PP", "EP", "DP", "memory/GPU", "TTFT", "TPOT", "output", "$/h",
                               "$/1M tok", "");
      for (const plan_layout& x : r.layouts) {
        std::string marks = std::string(x.cheapest ? "cheapest" : "") + (x.cheapest && x.fastest ? ", " : "") +
                            (x.fastest ? "fastest" : "") +
                            (x.spans_nodes ? (x.cheapest || x.fastest ? ", " : "") + std::string("spans nodes") : "");
        std::cout << fmt::format("{:>5} {:>3} {:>3} {:>3} {:>3}  {:>12} {:>10} {:>10} {:>12} {:>9} {:>10}  {}\n",
                                 x.gpus, x.tp, x.pp, x.ep, x.dp, format_bytes(x.per_gpu_memory_bytes),
                                 format_seconds(x.ttft_s), format_seconds(x.tpot_s), format_rate(x.tokens_per_s),
                                 format_usd(x.cost_per_hour_usd), format_usd(x.usd_per_million_output_tokens), marks);
      }
      std::cout << "\ncheapest: lowest $ per 1M output tokens; fastest: lowest TTFT + (output tokens - 1) x TPOT\n";
    }
    for (const std::string& n : r.notes) std::cout << "note: " << n << "\n";
    return 0;
  };
  return cmd;
}

}  // namespace flopcast::cli
