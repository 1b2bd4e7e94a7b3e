#include "report_text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "flopcast/serving/engine.hpp"

namespace flopcast::cli {
namespace {

std::string grouped(std::int64_t n) { return format_integer(static_cast<double>(n)); }

const char* yes_no(bool b) { return b ? "yes" : "NO"; }

}  // namespace

// The same mapping as web/src/format.js formatByKind (the core's one "number" field is cost_usd).
std::string format_value(const field_value& v) {
  if (!v.has_value) return std::string(none_text);
  switch (v.kind) {
    case field_kind::text:
      return v.text;
    case field_kind::count:
      return format_count(v.number);
    case field_kind::flops:
      return format_flops(v.number);
    case field_kind::bytes:
      return format_bytes(v.number);
    case field_kind::seconds:
      return format_seconds(v.number);
    case field_kind::rate:
      return format_rate(v.number);
    case field_kind::joules:
      return format_joules(v.number);
    case field_kind::boolean:
      return format_as("boolean", v.number);
    case field_kind::bound:
      return format_as("bound", v.number);
    case field_kind::number:
      return format_usd(v.number);
  }
  return "";
}

std::string table(const std::vector<std::vector<field_value>>& rows, const std::vector<std::size_t>& columns) {
  std::vector<std::vector<std::string>> cells;
  std::vector<std::size_t> width;
  for (std::size_t c : columns) width.push_back(row_fields()[c].header.size());
  for (const auto& row : rows) {
    std::vector<std::string> line;
    for (std::size_t i = 0; i < columns.size(); ++i) {
      line.push_back(format_value(row[columns[i]]));
      width[i] = std::max(width[i], line.back().size());
    }
    cells.push_back(std::move(line));
  }
  std::string out;
  const auto emit = [&](const std::vector<std::string>& line) {
    for (std::size_t i = 0; i < line.size(); ++i)
      out += fmt::format("{:<{}}{}", line[i], width[i], i + 1 < line.size() ? "  " : "");
    out += '\n';
  };
  std::vector<std::string> header, rule;
  for (std::size_t i = 0; i < columns.size(); ++i) {
    header.emplace_back(row_fields()[columns[i]].header);
    rule.emplace_back(width[i], '-');
  }
  emit(header);
  emit(rule);
  for (const auto& line : cells) emit(line);
  return out;
}

std::string report(const estimate_context& c) {
  const model_spec& m = c.model;
  const settings& s = c.config;
  const estimate_result& r = c.result;
  const flops_breakdown& f = r.forward.parts;
  const memory_breakdown& mem = r.memory;
  const performance& p = r.perf;
  const std::string rule(66, '='), thin(66, '-');
  std::string o;
  const auto line = [&](const std::string& label, const std::string& value) {
    o += fmt::format(" {:<18}: {}\n", label, value);
  };

  o += rule + "\n";
  o += fmt::format(" flopcast estimate: {}\n", m.name);
  std::string parts;  // the parts stored in another format than the rest
  for (std::size_t i = 0; i < weight_component_count; ++i) {
    const auto part = static_cast<weight_component>(i);
    const precision pp = precision_of(s, part);
    if (pp != s.weight_precision && r.memory.weights_by_component[i] > 0)
      parts += fmt::format("{}{} {}", parts.empty() ? " (" : ", ", to_string(part), to_string(pp));
  }
  if (!parts.empty()) parts += ")";
  o += fmt::format("  batch={}  seq_len={}  gen={}  precision={}{}  gpu={}{}\n", s.batch_size, s.sequence_length,
                   s.num_generated_tokens, to_string(s.weight_precision), parts, c.gpu ? c.gpu->name : "none",
                   s.training ? "  mode=training" : "");
  if (!m.quantization.method.empty())
    o += fmt::format("  checkpoint format: {} (config.json quantization_config{})\n", m.quantization.note,
                     s.component_precision == m.quantization.parts && s.weight_precision == m.quantization.weights
                         ? ", used"
                         : "; the request's precision is used");
  o += rule + "\n";
  line("Parameters",
       fmt::format("{}  ({})", format_count(static_cast<double>(r.parameters.total)), grouped(r.parameters.total)));
  if (r.parameters.vision > 0)
    line("  vision tower", fmt::format("{}  ({}; in the total, not per text token)",
                                       format_count(static_cast<double>(r.parameters.vision)), m.vision_model_type));
  if (r.parameters.active != r.parameters.total)
    line("  active / token",
         fmt::format("{}  ({})", format_count(static_cast<double>(r.parameters.active)), grouped(r.parameters.active)));
  o += thin + "\n";
  o += fmt::format(" FLOPs (one forward pass over batch x seq{})\n", s.causal ? ", causal" : "");
  line("  Forward", format_flops(f.total));
  line("  Backward", format_flops(r.backward_flops) + "  (2 x forward)");
  line("    - attention", format_flops(f.attention));
  line("    - mlp", format_flops(f.mlp));
  line("    - embedding", format_flops(f.embedding));
  line("    - layernorm", format_flops(f.norm));
  line("    - output head", format_flops(f.output_head));
  if (f.mixer > 0) line("    - ssm / linear", format_flops(f.mixer) + "  (Mamba / Gated DeltaNet / short-conv mixers)");
  line("  Prefill", format_flops(r.prefill.parts.total) + "  (logits for the last position)");
  if (m.arch != architecture::encoder)
    line("  Decode step", format_flops(r.decode_step.parts.total) + "  (whole batch, first step)");
  o += thin + "\n";
  if (s.training) {
    const bool quantized_base = s.lora.base_precision && is_weight_only(*s.lora.base_precision);
    o +=
        fmt::format(" Memory (training{}, {}{})\n",
                    s.lora.rank == 0 ? "" : fmt::format(", {} rank {}", quantized_base ? "QLoRA" : "LoRA", s.lora.rank),
                    to_string(s.optim), s.gradient_checkpointing ? ", gradient checkpointing" : "");
    line("  Total", format_bytes(mem.train_total));
    line("    - weights", format_bytes(mem.train_weights));
    line("    - gradients", format_bytes(mem.train_gradients));
    line("    - optimizer", format_bytes(mem.train_optimizer_state));
    line("    - activations", format_bytes(mem.train_activations) + "  (ESTIMATED)");
  } else {
    o += " Memory (inference)\n";
    line("  Total", format_bytes(mem.total));
    line("    - weights",
         format_bytes(mem.weights) + (!s.weight_bytes                 ? std::string()
                                      : s.weight_bytes_source.empty() ? std::string("  (EXACT: weight_bytes)")
                                                                      : "  (EXACT: " + s.weight_bytes_source + ")"));
    line("    - kv cache", fmt::format("{}  ({}, {})", format_bytes(mem.kv_cache), to_string(r.kv_precision),
                                       plural(static_cast<double>(m.arch == architecture::encoder_decoder
                                                                      ? s.num_generated_tokens
                                                                      : s.sequence_length + s.num_generated_tokens),
                                              "token")));
    if (mem.recurrent_state > 0)
      line("      of which state",
           format_bytes(mem.recurrent_state) + "  (constant per sequence: SSM / linear / short-conv layers)");
    line("    - activations", format_bytes(mem.activations) + "  (ESTIMATED)");
  }
  const std::int64_t gpus = r.has_performance ? r.parallel.total_gpus : 1;
  const double usable = mem.usable_gpu_memory;
  if (r.has_performance && gpus == 1)
    line("  Fits on GPU", fmt::format("{}  (usable {} of {} on {})", yes_no(mem.fits_on_gpu), format_bytes(usable),
                                      format_bytes(mem.gpu_memory), c.gpu->name));
  if (r.has_performance && gpus > 1) {
    // The layout asked for: every figure below is its own (per GPU, or all GPUs together).
    const parallel_result& q = r.parallel;
    const parallel_layout& l = q.layout;
    o += thin + "\n";
    o += fmt::format(" Layout: {} x {} (TP={} PP={} DP={} EP={})\n", gpus, c.gpu->name, l.tensor_parallel,
                     l.pipeline_parallel, l.data_parallel, l.expert_parallel);
    line("  Memory per GPU", format_bytes(q.memory_per_gpu));
    line(s.training ? "    - train state" : "    - weights",
         format_bytes(s.training ? q.training_state_per_gpu : q.weights_per_gpu));
    if (!s.training) line("    - kv cache", format_bytes(q.kv_cache_per_gpu));
    line("    - activations", format_bytes(q.activations_per_gpu) + "  (ESTIMATED)");
    line("  Fits per GPU", fmt::format("{}  (usable {} of {} on each {})", yes_no(mem.fits_on_gpu),
                                       format_bytes(usable), format_bytes(mem.gpu_memory), c.gpu->name));
  }
  const fit_advice fit = advise_fit(c);
  if (fit.hypothetical) {
    o += thin + "\n";
    o += " " + fit.text + "\n";
  }
  if (r.has_performance) {
    o += thin + "\n";
    o += fmt::format(" Performance{} (roofline, ESTIMATED; {} peak at {}, bandwidth at {}{})\n",
                     fit.hypothetical ? " IF IT FITTED" : "", to_string(p.compute_precision),
                     format_percent(s.compute_efficiency), format_percent(s.mem_efficiency),
                     gpus > 1 ? fmt::format("; {} GPUs with their communication", gpus) : std::string());
    if (!s.engine.empty()) o += fmt::format("   engine {}: {}\n", s.engine, find_engine(s.engine).basis(c.gpu));
    if (!s.engine_rule.empty()) o += fmt::format("   {}\n", s.engine_rule);
    if (!s.calibration_store.empty())
      o += fmt::format("   calibrated efficiencies applied from {}{}\n", s.calibration_store,
                       s.calibration_source.empty() ? "" : " (" + s.calibration_source + ")");
    if (s.training) line("  Training step", format_seconds(p.training_step_s));
    line("  Prefill latency",
         fmt::format("{}  [{}-bound]", format_seconds(p.prefill_latency_s), to_string(p.prefill_bound)));
    if (m.arch != architecture::encoder) {
      line("  Decode/token", fmt::format("{}  ({}, [{}-bound])", format_seconds(p.decode_latency_per_token_s),
                                         format_rate(p.decode_tokens_per_second), to_string(p.decode_bound)));
      line("  Request total", format_seconds(p.total_request_latency_s));
    }
    line("  Energy", fmt::format("{} ({}), prefill {}", format_joules(p.energy_total_joules),
                                 format_wh(p.energy_total_joules / 3600.0), format_joules(p.energy_prefill_joules)));
    line("  CO2", format_grams(p.co2_grams));
    line("  Cost", gpus > 1 ? fmt::format("{} for {} GPUs at {}/h each", format_usd(p.cost_usd), gpus,
                                          format_usd(p.cost_per_hour_usd))
                            : fmt::format("{} at {}/h", format_usd(p.cost_usd), format_usd(p.cost_per_hour_usd)));
  }
  for (std::uint32_t bit = 1; bit != 0 && bit <= r.notes; bit <<= 1)
    if (r.notes & bit) o += fmt::format(" note: {}\n", note_text(static_cast<note>(bit)));
  o += rule + "\n";
  return o;
}

}  // namespace flopcast::cli
