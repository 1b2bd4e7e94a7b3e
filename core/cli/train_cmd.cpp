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
#include "flopcast/training.hpp"
#include "report_text.hpp"

namespace flopcast::cli {
namespace {

struct train_options {
  std::string model;
  std::string batch = "1", seq = "2048", precision = "bf16", gpu = "A100", gpu_file, optimizer = "adam";
  std::string recompute, tokens, mfu, gpus = "1", lora_rank, lora_targets, base_precision;
  std::string compute_eff, mem_eff;
  bool no_clip = false, fused = false, qlora = false, causal = false, no_flash = false, json = false;
};

// A token count: a number with an optional K, M, B (or G) or T suffix ("15T", "2e12").
double parse_tokens(const std::string& text, const std::string& option) {
  if (text.empty()) bad(option, "expected a number of tokens (e.g. 1e12 or 15T), but got \"\"");
  double scale = 1;
  std::string digits = text;
  switch (std::toupper(static_cast<unsigned char>(text.back()))) {
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
  std::size_t used = 0;
  double v = 0;
  try {
    v = std::stod(digits, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (digits.empty() || used == 0 || used != digits.size() || !std::isfinite(v))
    bad(option, "expected a number of tokens (e.g. 1e12 or 15T), but got \"" + text + "\"");
  return v * scale;
}

bool looks_like_path(const std::string& s) {
  std::ifstream probe(s);
  return probe.good() || (s.size() > 5 && s.compare(s.size() - 5, 5, ".json") == 0);
}

// Rewrites a core request-field pointer into the option the user typed.
error as_option_error(const error& e) {
  static const std::pair<const char*, const char*> k[] = {
      {"/batch_size", "--batch"},
      {"/sequence_length", "--seq-len"},
      {"/precision", "--precision"},
      {"/compute_efficiency", "--compute-efficiency"},
      {"/mem_efficiency", "--mem-efficiency"},
      {"/tokens", "--tokens"},
      {"/mfu", "--mfu"},
      {"/gpus", "--gpus"},
      {"/lora_rank", "--lora-rank"},
      {"/lora_targets", "--lora-targets"},
      {"/base_precision", "--base-precision"},
      {"/recompute", "--recompute"},
      {"/optimizer", "--optimizer"},
      {"/gpu", "--gpu"},
  };
  for (const auto& [field, option] : k)
    if (e.pointer() == field) return error(e.code(), option, e.message());
  return e;
}

std::string grouped(std::int64_t n) {
  std::string digits = std::to_string(n < 0 ? -n : n), out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return n < 0 ? "-" + out : out;
}

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
    return fmt::format("{:>14}  ({:5.1f}%)", format_flops(part), 100.0 * part / f.total_step);
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
    line("  trainable (LoRA)", fmt::format("{}  ({:.4f}% of {})", grouped(a.lora->trainable_parameters),
                                           a.lora->trainable_percent, grouped(a.lora->all_parameters)));
  o += thin + "\n";
  o += " FLOPs per step                                  share of the step\n";
  line("  Forward", share(f.forward));
  line("  Backward", share(b.total) + fmt::format("  {:.3f} x forward", b.ratio_to_forward));
  line("    weight gradients", format_flops(b.weight_gradient));
  line("    input gradients", format_flops(b.input_gradient));
  line("    attention", fmt::format("{}  (dQ/dK {}, dV/dP {}, softmax {}, RoPE {})", format_flops(b.attention.total),
                                    format_flops(b.attention.dq_dk), format_flops(b.attention.dv_dp),
                                    format_flops(b.attention.softmax), format_flops(b.attention.rotary)));
  line("    mlp", format_flops(b.mlp));
  line("    norms", format_flops(b.norm));
  line("    embedding", format_flops(b.embedding));
  line("    output head", format_flops(b.output_head));
  if (a.lora) line("    LoRA adapters", format_flops(b.lora_adapters));
  line("  Recompute (" + std::string(to_string(f.recompute.policy)) + ")", share(f.recompute.total));
  line(fmt::format("  Optimizer ({})", to_string(s.optim)), share(f.optimizer));
  line("  Gradient clipping", share(f.gradient_clipping));
  line("  Mixed precision", share(f.mixed_precision));
  line("  Step total", fmt::format("{:>14}  (sum of phases {}, ratio {:.6f})", format_flops(f.total_step),
                                   format_flops(f.sum_of_parts), f.sum_of_parts_ratio));
  const cross_check_6nd& x = a.cross_check;
  line("  6·N·T check", fmt::format("6 x {} x {} = {}; (forward + backward) / 6NT = {:.3f}", format_count(x.parameters),
                                    grouped(static_cast<std::int64_t>(x.tokens)), format_flops(x.flops_6nt), x.ratio));
  line("", fmt::format("non-embedding N {}: ratio {:.3f}", format_count(x.non_embedding_parameters),
                       x.ratio_non_embedding));
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
  line("  Total", fmt::format("{}  ({:.1f} bytes per trainable parameter before activations)", format_bytes(mem.total),
                              mem.bytes_per_trainable_parameter));
  if (gpu)
    line("  Fits on one GPU",
         fmt::format("{}  ({} on {})", mem.fits_on_gpu ? "yes" : "NO", format_bytes(mem.gpu_memory), gpu->name));
  o += thin + "\n";
  if (a.has_performance)
    o += fmt::format(" Phases (roofline, ESTIMATED; {} peak at {:.0f}%, bandwidth at {:.0f}%)\n",
                     to_string(a.estimate.perf.compute_precision), s.compute_efficiency * 100, s.mem_efficiency * 100);
  else
    o += " Phases (no GPU: FLOPs and traffic only)\n";
  o += fmt::format("   {:<19} {:>14} {:>12} {:>12} {:>9}  {:<7} {:>10}\n", "phase", "FLOPs", "read", "write", "FLOP/B",
                   "bound", "time");
  const auto row = [&](const std::string& name, const phase_cost& c) {
    o += fmt::format("   {:<19} {:>14} {:>12} {:>12} {:>9.1f}  {:<7} {:>10}\n", name, format_flops(c.flops),
                     format_bytes(c.read_bytes), format_bytes(c.write_bytes), c.arithmetic_intensity,
                     a.has_performance ? to_string(c.limit) : "-", a.has_performance ? format_seconds(c.time_s) : "-");
  };
  for (const phase_cost& c : a.phases) row(phase_label(c.phase), c);
  row("step", a.step);
  if (a.has_performance)
    line("  Throughput", fmt::format("{:.0f} tokens/s, MFU {:.1f}% (model FLOPs / step time / peak)",
                                     a.tokens_per_second, a.model_flops_utilization * 100));
  o += thin + "\n";
  const token_budget& tb = a.budget;
  o += fmt::format(" Token budget: {} tokens{}\n", format_count(tb.tokens),
                   tb.default_tokens ? " (default: 20 per parameter, Chinchilla)" : "");
  line("  Steps", fmt::format("{} of {} tokens", grouped(static_cast<std::int64_t>(tb.steps)),
                              grouped(static_cast<std::int64_t>(tb.tokens_per_step))));
  line("  Total FLOPs", fmt::format("{}  (model {}; 6ND {}; ratios {:.3f} / {:.3f})", format_flops(tb.total_flops),
                                    format_flops(tb.model_flops), format_flops(tb.flops_6nd), tb.ratio_total_to_6nd,
                                    tb.ratio_model_to_6nd));
  if (tb.has_time) {
    line("  Time", fmt::format("{}  ({:.1f} days) at MFU {:.0f}% on {} GPU{}", format_seconds(tb.time_s),
                               tb.time_s / 86400.0, tb.mfu * 100, tb.gpus, tb.gpus == 1 ? "" : "s"));
    line("  GPU-hours", fmt::format("{:.0f}  (${:.0f}); phase roofline: {}", tb.gpu_hours, tb.cost_usd,
                                    format_seconds(tb.roofline_time_s)));
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

int run_train(const train_options& o) {
  training_settings t;
  settings& s = t.base;
  s.training = true;
  s.batch_size = parse_int(o.batch, "--batch");
  s.sequence_length = parse_int(o.seq, "--seq-len");
  s.weight_precision = parse_precision(o.precision, "--precision");
  s.optim = parse_optimizer(o.optimizer, "--optimizer");
  s.causal = o.causal;
  s.flash_attention = !o.no_flash;
  if (!o.compute_eff.empty()) s.compute_efficiency = parse_number(o.compute_eff, "--compute-efficiency");
  if (!o.mem_eff.empty()) s.mem_efficiency = parse_number(o.mem_eff, "--mem-efficiency");
  if (!o.recompute.empty()) t.recompute = parse_recompute_policy(o.recompute, "--recompute");
  t.gradient_clipping = !o.no_clip;
  t.fused_optimizer = o.fused;
  if (!o.tokens.empty()) t.tokens = parse_tokens(o.tokens, "--tokens");
  if (!o.mfu.empty()) t.mfu = parse_number(o.mfu, "--mfu");
  t.gpus = parse_int(o.gpus, "--gpus");
  if (!o.lora_rank.empty()) t.lora.rank = parse_int(o.lora_rank, "--lora-rank");
  if (!o.lora_targets.empty()) {
    t.lora.targets = parse_lora_targets(o.lora_targets, "--lora-targets");
    if (t.lora.rank == 0 && !o.qlora)
      bad("--lora-targets", "LoRA targets apply to LoRA only: expected --lora-rank R (R > 0) or --qlora with it");
  }
  if (!o.base_precision.empty()) {
    t.lora.base_precision = parse_precision(o.base_precision, "--base-precision");
    if (o.qlora && !is_weight_only(*t.lora.base_precision))
      bad("--base-precision",
          "--qlora quantises the frozen base: expected int8 or int4, but got \"" + o.base_precision + "\"");
  }
  if (o.qlora) {
    if (!t.lora.base_precision) t.lora.base_precision = precision::int4;
    if (o.lora_rank.empty()) t.lora.rank = 64;  // the QLoRA paper's rank
    if (t.lora.rank == 0) bad("--lora-rank", "--qlora trains LoRA adapters: expected a rank > 0, but got 0");
  }

  std::vector<std::unique_ptr<model_spec>> owned_models;
  const model_spec* model = nullptr;
  if (looks_like_path(o.model)) {
    const std::string text = read_file(o.model, "MODEL");
    try {
      std::string label = o.model;
      const auto slash = label.find_last_of('/');
      if (slash != std::string::npos && slash > 0 && label.substr(slash + 1) == "config.json")
        label = label.substr(0, slash);
      owned_models.push_back(std::make_unique<model_spec>(read_hf_config(text, label)));
    } catch (const error& e) {
      throw error(e.code(), e.pointer(), e.message() + " in " + o.model);
    }
    model = owned_models.back().get();
  } else {
    try {
      model = &find_model(o.model).spec;
    } catch (const error& e) {
      throw error(e.code(), "MODEL", e.message());
    }
  }

  std::unique_ptr<hardware_spec> owned_gpu;
  const hardware_spec* gpu = nullptr;
  if (!o.gpu_file.empty()) {
    const std::string text = read_file(o.gpu_file, "--gpu-file");
    try {
      owned_gpu = std::make_unique<hardware_spec>(read_hardware(text));
    } catch (const error& e) {
      throw error(e.code(), e.pointer(), e.message() + " in " + o.gpu_file);
    }
    gpu = owned_gpu.get();
  } else {
    std::string lower = o.gpu;
    for (char& ch : lower) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    if (lower != "none") {
      try {
        gpu = &find_gpu(o.gpu);
      } catch (const error& e) {
        throw error(e.code(), "--gpu", e.message());
      }
    }
  }

  const training_analysis a = analyze_training(*model, t, gpu);
  if (o.json)
    std::cout << training_to_json(*model, gpu, a) << "\n";
  else
    std::cout << report(*model, gpu, a);
  return 0;
}

}  // namespace

train_command add_train_command(CLI::App& parent) {
  auto options = std::make_shared<train_options>();
  train_options& o = *options;
  train_command cmd;
  cmd.app = parent.add_subcommand("train", "Analyse one training step: backward decomposition, optimizer, bottlenecks");
  CLI::App& c = *cmd.app;
  c.add_option("MODEL", o.model, "Registry name or alias, or a path to a config.json")->required();
  c.add_option("-b,--batch", o.batch, "Micro-batch size per GPU [1]");
  c.add_option("-s,--seq-len", o.seq, "Sequence length in tokens [2048]");
  c.add_option("-p,--precision", o.precision, "Training precision: fp32, tf32, fp16, bf16 [bf16]");
  c.add_option("-g,--gpu", o.gpu, "GPU name or alias, or none [A100]");
  c.add_option("--gpu-file", o.gpu_file, "Custom accelerator JSON (data/gpus.json record format)");
  c.add_option("--optimizer", o.optimizer, "adam, adamw, sgd (with momentum), none [adam]");
  c.add_flag("--fused-optimizer", o.fused, "The optimizer runs as one fused kernel");
  c.add_option("--recompute", o.recompute, "Activation recompute: none, selective, full [full]");
  c.add_flag("--no-clip", o.no_clip, "No gradient clipping");
  c.add_option("--tokens", o.tokens, "Token budget D, e.g. 1e12 or 15T [20 per parameter]");
  c.add_option("--mfu", o.mfu, "Model FLOPs utilisation for the budget's time, (0,1] [compute efficiency]");
  c.add_option("--gpus", o.gpus, "Data-parallel GPUs for the budget and ZeRO sizing [1]");
  c.add_option("--lora-rank", o.lora_rank, "LoRA rank (0: full fine-tuning) [0]");
  c.add_option("--lora-targets", o.lora_targets, "all, attention, mlp, or a list of q,k,v,o,gate,up,down [all]");
  c.add_flag("--qlora", o.qlora, "QLoRA: frozen base in int4 (NF4), rank 64 unless --lora-rank");
  c.add_option("--base-precision", o.base_precision, "Frozen LoRA base: int8, int4, or the training precision");
  c.add_option("--compute-efficiency", o.compute_eff, "Fraction of peak FLOP/s achieved, (0,1] [0.5]");
  c.add_option("--mem-efficiency", o.mem_eff, "Fraction of peak bandwidth achieved, (0,1] [0.8]");
  c.add_flag("--causal", o.causal, "Count only the attention pairs a causal mask keeps");
  c.add_flag("--no-flash-attention", o.no_flash, "Attention with materialised score matrices");
  c.add_flag("--json", o.json, "Print JSON (SI units)");
  cmd.run = [options] {
    try {
      return run_train(*options);
    } catch (const error& e) {
      throw as_option_error(e);
    }
  };
  return cmd;
}

}  // namespace flopcast::cli
