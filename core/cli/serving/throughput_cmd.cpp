#include "serving/throughput_cmd.hpp"

#include <fmt/format.h>

#include <iostream>

#include "common.hpp"
#include "flopcast/io/request_json.hpp"
#include "flopcast/serving/serving.hpp"
#include "report_text.hpp"

namespace flopcast::cli {

throughput_command add_throughput_command(CLI::App& parent) {
  auto o = std::make_shared<request_options>();
  o->command = command_throughput;
  throughput_command cmd;
  cmd.app = parent.add_subcommand("throughput",
                                  "Serving capacity: concurrent sequences, tokens/s, TTFT, TPOT, $ per 1M tokens");
  CLI::App& a = *cmd.app;
  a.add_option("MODEL", o->models, "Registry name or alias, or a path to a config.json")->required()->expected(1);
  add_request_options(a, *o);

  cmd.run = [o] {
    const nlohmann::json req = build_request(*o);
    const serving_request q = read_serving_request(req);
    const compare_plan::point p = q.request.plan.at(0);
    const serving_settings& s = q.serving;
    const serving_result r = serve(*p.model, s, *p.gpu);
    if (o->json) {
      std::cout << serving_to_json(*p.model, s, *p.gpu, r) << "\n";
      return 0;
    }
    std::cout << fmt::format("flopcast throughput: {} on {} x {} ({}), prompt {} + output {} tokens\n", p.model->name,
                             r.gpus, p.gpu->name, to_string(s.base.weight_precision), s.prompt_tokens, s.output_tokens);
    std::cout << fmt::format("  KV budget per GPU     : {} ({} per sequence{})\n", format_bytes(r.kv_budget_bytes),
                             format_bytes(r.kv_bytes_per_sequence), s.paged ? ", paged" : "");
    if (r.concurrency == 0) {
      std::cout << "  does NOT fit: weights and activations leave no room for one sequence's KV cache (try --tp or a "
                   "lower precision)\n";
      return 0;
    }
    if (r.concurrency_capped)
      std::cout << fmt::format(
          "  does NOT fit at --concurrency {}: at most {} sequences' caches fit; figures below are "
          "at {} (the engine queues the rest)\n",
          *s.concurrency, r.max_concurrency, r.concurrency);
    const auto rng = [](const figure_range& x, auto f) { return fmt::format("[{} .. {}]", f(x.low), f(x.high)); };
    std::cout << fmt::format("  max concurrent seqs   : {}   (evaluated at {})\n", r.max_concurrency, r.concurrency);
    const auto number = [](double v) { return format_number(v); };
    std::cout << fmt::format("  output tokens/s       : {}  range {}  (ESTIMATED)\n",
                             format_number(r.output_tokens_per_second), rng(r.output_tokens_per_second_range, number));
    std::cout << fmt::format("  requests/s            : {}\n", format_number(r.requests_per_second));
    std::cout << fmt::format("  TTFT                  : {}  range {}\n", format_seconds(r.ttft_s),
                             rng(r.ttft_range, format_seconds));
    std::cout << fmt::format("  TPOT                  : {}  range {}  [decode {}-bound]\n", format_seconds(r.tpot_s),
                             rng(r.tpot_range, format_seconds), to_string(r.decode_bound));
    std::cout << fmt::format("  cost per 1M tokens    : {}\n", format_usd(r.cost_per_1m_output_tokens_usd));
    if (!r.point_correction.empty()) std::cout << fmt::format("  point correction      : {}\n", r.point_correction);
    if (r.speculative)
      std::cout << fmt::format("  speculative ({} x{}, a={}): {} tokens/step, TPOT {}, {}, speedup {}x\n",
                               s.draft->name, s.speculative_tokens, s.acceptance_rate,
                               format_number(r.expected_tokens_per_step), format_seconds(r.speculative_tpot_s),
                               format_rate(r.speculative_output_tokens_per_second), format_number(r.speedup));
    return 0;
  };
  return cmd;
}

}  // namespace flopcast::cli
