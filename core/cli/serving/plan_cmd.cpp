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

void print_csv(const json& result) {
  const json& layouts = result.at("layouts");
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
    if (o->json || o->csv) {
      const std::string text = plan_to_json(q, r, o->json ? 2 : -1);
      if (o->json)
        std::cout << text << "\n";
      else
        print_csv(json::parse(text));
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
