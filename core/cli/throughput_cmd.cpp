#include "throughput_cmd.hpp"

#include <fmt/format.h>

#include <iostream>

#include "common.hpp"
#include "flopcast/serving.hpp"
#include "report_text.hpp"

namespace flopcast::cli {

throughput_command add_throughput_command(CLI::App& parent) {
  struct state {
    options o;
    std::string model, prompt = "512", output = "256", concurrency, utilization = "0.9", block = "16", chunk = "0";
    std::string draft, spec_tokens = "4", acceptance = "0.7";
    bool no_paged = false;
  };
  auto st = std::make_shared<state>();
  throughput_command cmd;
  cmd.app = parent.add_subcommand("throughput",
                                  "Serving capacity: concurrent sequences, tokens/s, TTFT, TPOT, $ per 1M tokens");
  CLI::App& a = *cmd.app;
  a.add_option("MODEL", st->model, "Registry name or alias, or a path to a config.json")->required();
  add_hardware_options(a, st->o, false);
  a.add_option("--prompt", st->prompt, "Prompt tokens per request [512]");
  a.add_option("--output", st->output, "Output tokens per request [256]");
  a.add_option("--concurrency", st->concurrency, "Concurrent sequences [the most the KV budget holds]");
  a.add_option("--gpu-memory-utilization", st->utilization, "Share of GPU memory the server uses, (0,1] [0.9]");
  a.add_flag("--no-paged", st->no_paged, "Contiguous KV cache instead of paged blocks");
  a.add_option("--block-size", st->block, "Paged KV block size in tokens [16]");
  a.add_option("--chunked-prefill", st->chunk, "Prefill tokens per step (chunked prefill), 0 = off [0]");
  a.add_option("--draft", st->draft, "Draft model for speculative decoding");
  a.add_option("--speculative-tokens", st->spec_tokens, "Draft tokens per verification [4]");
  a.add_option("--acceptance", st->acceptance, "Acceptance rate of a draft token, [0,1] [0.7]");
  a.add_flag("--json", st->o.json, "Print JSON (SI units)");

  cmd.run = [st] {
    options& o = st->o;
    if (o.gpu_file.empty() && (o.gpu == "none" || split(o.gpu).size() != 1))
      bad("--gpu", "expected one GPU name (serving needs a GPU), but got \"" + o.gpu + "\"");
    owned_specs owned;
    serving_settings s;
    o.models = {st->model};
    const compare_plan plan = make_plan(o, false, owned);  // resolves model, GPU, settings, calibration
    const compare_plan::point p = plan.at(0);
    s.base = p.config;
    s.prompt_tokens = parse_int(st->prompt, "--prompt");
    s.output_tokens = parse_int(st->output, "--output");
    if (!st->concurrency.empty()) s.concurrency = parse_int(st->concurrency, "--concurrency");
    s.gpu_memory_utilization = parse_number(st->utilization, "--gpu-memory-utilization");
    s.paged = !st->no_paged;
    s.block_size = parse_int(st->block, "--block-size");
    s.chunked_prefill_tokens = parse_int(st->chunk, "--chunked-prefill");
    if (!st->draft.empty()) {
      s.draft = &resolve_model(st->draft, owned, "--draft");
      s.speculative_tokens = parse_int(st->spec_tokens, "--speculative-tokens");
      s.acceptance_rate = parse_number(st->acceptance, "--acceptance");
    }
    const serving_result r = serve(*p.model, s, *p.gpu);
    if (o.json) {
      std::cout << serving_to_json(*p.model, s, *p.gpu, r) << "\n";
      return 0;
    }
    std::cout << fmt::format("flopcast throughput: {} on {} x {} ({}), prompt {} + output {} tokens\n", p.model->name,
                             r.gpus, p.gpu->name, to_string(s.base.weight_precision), s.prompt_tokens, s.output_tokens);
    std::cout << fmt::format("  KV budget per GPU     : {} ({} per sequence{})\n", format_bytes(r.kv_budget_bytes),
                             format_bytes(r.kv_bytes_per_sequence), s.paged ? ", paged" : "");
    if (!r.fits) {
      std::cout << "  does NOT fit: weights and activations leave no room for one sequence's KV cache (try --tp or a "
                   "lower precision)\n";
      return 0;
    }
    const auto rng = [](const figure_range& x, auto f) { return fmt::format("[{} .. {}]", f(x.low), f(x.high)); };
    std::cout << fmt::format("  max concurrent seqs   : {}   (evaluated at {})\n", r.max_concurrency, r.concurrency);
    std::cout << fmt::format("  output tokens/s       : {:.1f}  range {}  (ESTIMATED)\n", r.output_tokens_per_second,
                             rng(r.output_tokens_per_second_range, [](double v) { return fmt::format("{:.1f}", v); }));
    std::cout << fmt::format("  requests/s            : {:.3f}\n", r.requests_per_second);
    std::cout << fmt::format("  TTFT                  : {}  range {}\n", format_seconds(r.ttft_s),
                             rng(r.ttft_range, format_seconds));
    std::cout << fmt::format("  TPOT                  : {}  range {}  [decode {}-bound]\n", format_seconds(r.tpot_s),
                             rng(r.tpot_range, format_seconds), to_string(r.decode_bound));
    std::cout << fmt::format("  cost per 1M tokens    : ${:.4f}\n", r.cost_per_1m_output_tokens_usd);
    if (r.speculative)
      std::cout << fmt::format(
          "  speculative ({} x{}, a={}): {:.2f} tokens/step, TPOT {}, {:.1f} tok/s, speedup {:.2f}x\n", s.draft->name,
          s.speculative_tokens, s.acceptance_rate, r.expected_tokens_per_step, format_seconds(r.speculative_tpot_s),
          r.speculative_output_tokens_per_second, r.speedup);
    return 0;
  };
  return cmd;
}

}  // namespace flopcast::cli
