// `flopcast train MODEL [options] [--json]`: the training-step analysis of the core
// (flopcast/training.hpp), printed as a report or as one JSON object.
#include "train_cmd.hpp"

#include <fmt/format.h>

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include "common.hpp"
#include "flopcast/flopcast.hpp"
#include "flopcast/io/request_json.hpp"
#include "flopcast/training/training.hpp"
#include "report_text.hpp"

namespace flopcast::cli {
namespace {

std::string grouped(std::int64_t n) { return format_integer(static_cast<double>(n)); }
std::string grouped(double n) { return format_integer(n); }

std::string phase_label(training_phase p) {
  switch (p) {
    case training_phase::forward:
      return "forward";
    case training_phase::backward_input_gradients:
      return "input gradients";
    case training_phase::backward_attention_core:
      return "attention backward";
    case training_phase::backward_weight_gradients:
      return "weight gradients";
    case training_phase::recompute:
      return "recompute";
    case training_phase::gradient_clipping:
      return "gradient clipping";
    case training_phase::mixed_precision:
      return "mixed precision";
    case training_phase::optimizer:
      return "optimizer";
  }
  return "";
}

std::string report(const model_spec& m, const hardware_spec* gpu, const training_analysis& a) {
  const training_settings& t = a.config;
  const settings& s = t.base;
  const step_flops& f = a.flops;
  const backward_flops_detail& b = f.backward;
  const std::string rule(72, '='), thin(72, '-');
  std::string o;
  const auto line = [&](const std::string& label, const std::string& value) {
    o += fmt::format(" {:<22}: {}\n", label, value);
  };
  const auto share = [&](double part) {
    return fmt::format("{:>14}  ({:>6})", format_flops(part), format_percent(part / f.total_step));
  };

  o += rule + "\n";
  o += fmt::format(" flopcast train: {}\n", m.name);
  o += fmt::format("  batch={}  seq_len={}  precision={}  gpu={}  optimizer={}{}  recompute={}\n", s.batch_size,
                   s.sequence_length, to_string(s.weight_precision), gpu ? gpu->name : "none", to_string(s.optim),
                   t.fused_optimizer ? " (fused)" : "", to_string(*t.recompute));
  if (a.lora)
    o += fmt::format("  LoRA rank={} targets={} base={}{}\n", a.lora->rank, lora_targets_name(a.lora->targets),
                     to_string(a.lora->base_precision), a.lora->quantized ? " (QLoRA)" : "");
  o += rule + "\n";
  line("Parameters", fmt::format("{}  ({})", format_count(static_cast<double>(a.parameters)), grouped(a.parameters)));
  if (a.lora)
    line("  trainable (LoRA)",
         fmt::format("{}  ({} of {})", grouped(a.lora->trainable_parameters),
                     format_percent(a.lora->trainable_percent / 100), grouped(a.lora->all_parameters)));
  o += thin + "\n";
  o += " FLOPs per step                                  share of the step\n";
  line("  Forward", share(f.forward));
  line("  Backward", share(b.total) + fmt::format("  {} x forward", format_number(b.ratio_to_forward)));
  line("    weight gradients", format_flops(b.weight_gradient));
  line("    input gradients", format_flops(b.input_gradient));
  line("    attention", fmt::format("{}  (dQ/dK {}, dV/dP {}, softmax {}, RoPE {})", format_flops(b.attention.total),
                                    format_flops(b.attention.dq_dk), format_flops(b.attention.dv_dp),
                                    format_flops(b.attention.softmax), format_flops(b.attention.rotary)));
  line("    mlp", format_flops(b.mlp));
  line("    norms", format_flops(b.norm));
  line("    embedding", format_flops(b.embedding));
  line("    output head", format_flops(b.output_head));
  if (b.mixer > 0) line("    mixers", format_flops(b.mixer));
  if (a.lora) line("    LoRA adapters", format_flops(b.lora_adapters));
  line("  Recompute (" + std::string(to_string(f.recompute.policy)) + ")", share(f.recompute.total));
  line(fmt::format("  Optimizer ({})", to_string(s.optim)), share(f.optimizer));
  line("  Gradient clipping", share(f.gradient_clipping));
  line("  Mixed precision", share(f.mixed_precision));
  line("  Step total", fmt::format("{:>14}  (sum of phases {}, ratio {})", format_flops(f.total_step),
                                   format_flops(f.sum_of_parts), format_number(f.sum_of_parts_ratio, 6)));
  const cross_check_6nd& x = a.cross_check;
  line("  6·N·T check", fmt::format("6 x {} x {} = {}; (forward + backward) / 6NT = {}", format_count(x.parameters),
                                    grouped(x.tokens), format_flops(x.flops_6nt), format_number(x.ratio)));
  line("", fmt::format("non-embedding N {}: ratio {}", format_count(x.non_embedding_parameters),
                       format_number(x.ratio_non_embedding)));
  o += thin + "\n";
  const training_memory& mem = a.memory;
  o += fmt::format(" Memory ({} recompute)\n", to_string(*t.recompute));
  line("  Weights",
       format_bytes(mem.weights) + (a.lora ? fmt::format("  (base {})", format_bytes(a.lora->base_weight_bytes)) : ""));
  line("  Gradients", format_bytes(mem.gradients));
  line("  Optimizer state", format_bytes(mem.optimizer_state));
  line("  Activations", fmt::format("{}  (ESTIMATED; none {}, selective {}, full {})", format_bytes(mem.activations),
                                    format_bytes(mem.activations_none), format_bytes(mem.activations_selective),
                                    format_bytes(mem.activations_full)));
  line("  Total", fmt::format("{}  ({} bytes per trainable parameter before activations)", format_bytes(mem.total),
                              format_number(mem.bytes_per_trainable_parameter)));
  if (gpu && s.parallel.trivial())
    line("  Fits on one GPU",
         fmt::format("{}  ({} on {})", mem.fits_on_gpu ? "yes" : "NO", format_bytes(mem.gpu_memory), gpu->name));
  if (gpu && !s.parallel.trivial()) {
    const parallel_result& pr = a.estimate.parallel;
    const parallel_layout& l = s.parallel;
    line("  Layout", fmt::format("TP {} x PP {} x DP {} x EP {} = {}", l.tensor_parallel, l.pipeline_parallel,
                                 l.data_parallel, l.expert_parallel, plural(pr.total_gpus, "GPU")));
    line("  Per GPU", fmt::format("{}  (fits: {}, {} on {})", format_bytes(pr.memory_per_gpu),
                                  pr.fits_per_gpu ? "yes" : "NO", format_bytes(mem.gpu_memory), gpu->name));
    if (a.has_performance) line("  Step on the layout", format_seconds(a.step_time_s));
  }
  o += thin + "\n";
  if (a.has_performance)
    o += fmt::format(" Phases (roofline, ESTIMATED; {} peak at {}, bandwidth at {})\n",
                     to_string(a.estimate.perf.compute_precision), format_percent(s.compute_efficiency),
                     format_percent(s.mem_efficiency));
  else
    o += " Phases (no GPU: FLOPs and traffic only)\n";
  o += fmt::format("   {:<19} {:>14} {:>12} {:>12} {:>9}  {:<7} {:>10}\n", "phase", "FLOPs", "read", "write", "FLOP/B",
                   "bound", "time");
  const auto row = [&](const std::string& name, const phase_cost& c) {
    o += fmt::format("   {:<19} {:>14} {:>12} {:>12} {:>9}  {:<7} {:>10}\n", name, format_flops(c.flops),
                     format_bytes(c.read_bytes), format_bytes(c.write_bytes), format_number(c.arithmetic_intensity),
                     a.has_performance ? to_string(c.limit) : none_text,
                     a.has_performance ? format_seconds(c.time_s) : std::string(none_text));
  };
  for (const phase_cost& c : a.phases) row(phase_label(c.phase), c);
  row("step", a.step);
  if (a.has_performance)
    line("  Throughput", fmt::format("{} tokens/s, MFU {} (model FLOPs / step time / peak)",
                                     format_number(a.tokens_per_second), format_percent(a.model_flops_utilization)));
  o += thin + "\n";
  const token_budget& tb = a.budget;
  o += fmt::format(" Token budget: {} tokens{}\n", format_count(tb.tokens),
                   tb.default_tokens ? " (default: 20 per parameter, Chinchilla)" : "");
  line("  Steps", fmt::format("{} of {}", grouped(tb.steps), plural(tb.tokens_per_step, "token")));
  line("  Total FLOPs", fmt::format("{}  (model {}; 6ND {}; ratios {} / {})", format_flops(tb.total_flops),
                                    format_flops(tb.model_flops), format_flops(tb.flops_6nd),
                                    format_number(tb.ratio_total_to_6nd), format_number(tb.ratio_model_to_6nd)));
  if (tb.has_time) {
    line("  Time",
         fmt::format("{} at MFU {} on {}", format_seconds(tb.time_s), format_percent(tb.mfu), plural(tb.gpus, "GPU")));
    line("  GPU-hours", fmt::format("{}  ({}); phase roofline: {}", format_number(tb.gpu_hours),
                                    format_usd(tb.cost_usd), format_seconds(tb.roofline_time_s)));
  }
  if (!a.recommendations.empty()) {
    o += thin + "\n";
    o += " Recommendations\n";
    for (const recommendation& r : a.recommendations) o += fmt::format("   * {}\n       {}\n", r.action, r.reason);
  }
  for (const std::string& n : a.notes) o += fmt::format(" note: {}\n", n);
  o += rule + "\n";
  return o;
}

int run_train(const request_options& o) {
  const training_request q = read_training_request(build_request(o));
  const compare_plan::point p = q.request.plan.at(0);
  const model_spec* model = p.model;
  const hardware_spec* gpu = p.gpu;
  const training_settings& t = q.training;
  const training_analysis a = analyze_training(*model, t, gpu);
  if (o.json)
    std::cout << training_to_json(*model, gpu, a) << "\n";
  else
    std::cout << report(*model, gpu, a);
  return 0;
}

}  // namespace

train_command add_train_command(CLI::App& parent) {
  auto options = std::make_shared<request_options>();
  options->command = command_train;
  train_command cmd;
  cmd.app = parent.add_subcommand("train", "Analyse one training step: backward decomposition, optimizer, bottlenecks");
  CLI::App& c = *cmd.app;
  c.add_option("MODEL", options->models, "Registry name or alias, or a path to a config.json")->required()->expected(1);
  add_request_options(c, *options);
  cmd.run = [options] { return run_train(*options); };
  return cmd;
}

}  // namespace flopcast::cli
