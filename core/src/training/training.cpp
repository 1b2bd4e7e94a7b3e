// Training-step analysis: the step model (training_flops.cpp, training_memory.cpp,
// training_phases.cpp; the same one estimate() reports with settings.training), and on top
// of it the 6ND cross-check, the token budget, LoRA, notes and recommendations.
// The counting conventions are written at the top of training_flops.cpp.
#include "flopcast/training/training.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <string>

#include "estimate/estimate_parts.hpp"
#include "flopcast/base/error.hpp"
#include "training/training_parts.hpp"

namespace flopcast {

std::string_view to_string(recompute_policy p) noexcept {
  switch (p) {
    case recompute_policy::none:
      return "none";
    case recompute_policy::selective:
      return "selective";
    case recompute_policy::full:
      return "full";
  }
  return "full";
}

std::string_view to_string(training_phase p) noexcept {
  switch (p) {
    case training_phase::forward:
      return "forward";
    case training_phase::backward_input_gradients:
      return "backward_input_gradients";
    case training_phase::backward_attention_core:
      return "backward_attention_core";
    case training_phase::backward_weight_gradients:
      return "backward_weight_gradients";
    case training_phase::recompute:
      return "recompute";
    case training_phase::gradient_clipping:
      return "gradient_clipping";
    case training_phase::mixed_precision:
      return "mixed_precision";
    case training_phase::optimizer:
      return "optimizer";
  }
  return "forward";
}

namespace {

using detail::d;
using detail::format_number;

constexpr double default_tokens_per_parameter = 20.0;  // Hoffmann et al. 2022 (Chinchilla)

std::string trim(std::string s) {
  const auto not_space = [](unsigned char c) { return !std::isspace(c); };
  s.erase(s.begin(), std::find_if(s.begin(), s.end(), not_space));
  s.erase(std::find_if(s.rbegin(), s.rend(), not_space).base(), s.end());
  return s;
}

struct module_name {
  std::string_view name;
  std::uint32_t bit;
};
constexpr module_name k_modules[] = {{"q", lora_q},       {"k", lora_k},   {"v", lora_v},      {"o", lora_o},
                                     {"gate", lora_gate}, {"up", lora_up}, {"down", lora_down}};

// The roofline of each phase, the step, throughput and MFU (on the layout when there is one).
void training_roofline(training_analysis& r, const model_spec& m, const hardware_spec* gpu) {
  const settings& s = r.config.base;
  const estimate_result& e = r.estimate;
  r.has_performance = e.has_performance;
  double pc = 0, pm = 0;
  if (e.has_performance) {
    r.peak_flops_per_s = e.perf.peak_flops_per_s;
    r.memory_bandwidth_bytes_per_s = e.perf.memory_bandwidth_bytes_per_s;
    pc = r.peak_flops_per_s * s.compute_efficiency * detail::training_efficiency_scale(m, s);  // as estimate()'s
    pm = r.memory_bandwidth_bytes_per_s * s.mem_efficiency;
  }
  const double pa = gpu != nullptr ? pc * detail::attention_peak_ratio(s, *gpu) : pc;
  for (phase_cost& c : r.phases) detail::time_phase(c, pc, pm, pa);
  r.backward_phase = detail::sum_phases(r.phases, 1, 4);
  r.step = detail::sum_phases(r.phases, 0, r.phases.size());
  step_flops& f = r.flops;
  f.sum_of_parts = r.step.flops;
  f.sum_of_parts_ratio = f.sum_of_parts > 0 ? f.total_step / f.sum_of_parts : 0.0;
  const bool layout = !s.parallel.trivial();
  r.step_time_s = layout && e.has_performance ? e.parallel.training_step_s : r.step.time_s;
  // Context-parallel ranks multiply the layout's GPUs (training.hpp).
  const double gpus =
      layout ? d(s.parallel.total_gpus()) * d(r.config.context_parallel) : 1.0;  // = parallel.total_gpus
  if (r.has_performance && r.step_time_s > 0) {
    r.tokens_per_second = d(s.batch_size) * d(s.sequence_length) / r.step_time_s;
    r.model_flops_utilization = f.model_flops / (r.step_time_s * r.peak_flops_per_s * gpus);
  }
}

// 6ND cross-check (per step).
cross_check_6nd cross_check_of(const training_analysis& r) {
  const estimate_result& e = r.estimate;
  cross_check_6nd x;
  const double T = d(r.config.base.batch_size) * d(r.config.base.sequence_length);
  x.parameters = d(e.parameters.active);  // all for dense models, the active path for MoE
  x.non_embedding_parameters = x.parameters - d(e.parameters.embedding);
  x.tokens = T;
  x.forward_plus_backward = r.flops.model_flops;
  x.flops_6nt = 6 * x.parameters * T;
  x.ratio = r.flops.model_flops / x.flops_6nt;
  x.flops_6nt_non_embedding = 6 * x.non_embedding_parameters * T;
  x.ratio_non_embedding = x.flops_6nt_non_embedding > 0 ? r.flops.model_flops / x.flops_6nt_non_embedding : 0.0;
  return x;
}

// The cost of the token budget; sets config.tokens.
token_budget token_budget_of(training_analysis& r) {
  training_settings& t = r.config;
  const step_flops& f = r.flops;
  const double T = d(t.base.batch_size) * d(t.base.sequence_length);
  token_budget tb;
  tb.default_tokens = !t.tokens;
  tb.tokens = t.tokens.value_or(default_tokens_per_parameter * d(r.estimate.parameters.total));
  t.tokens = tb.tokens;
  tb.tokens_per_step = T;
  const double steps = tb.tokens / T;
  tb.steps = std::ceil(steps);
  tb.total_flops = steps * f.total_step;
  tb.model_flops = steps * f.model_flops;
  tb.mfu = *t.mfu;
  tb.gpus = t.gpus;
  tb.flops_6nd = 6 * r.cross_check.parameters * tb.tokens;
  tb.ratio_total_to_6nd = tb.total_flops / tb.flops_6nd;
  tb.ratio_model_to_6nd = tb.model_flops / tb.flops_6nd;
  if (r.has_performance) {
    tb.has_time = true;
    tb.time_s = tb.model_flops / (d(t.gpus) * r.peak_flops_per_s * tb.mfu);
    tb.gpu_hours = tb.time_s * d(t.gpus) / 3600.0;
    tb.cost_usd = tb.gpu_hours * r.estimate.perf.cost_per_hour_usd;
    // One step of the whole batch on the layout, or on one GPU scaled ideally over the GPUs.
    tb.roofline_time_s = t.base.parallel.trivial() ? steps * r.step.time_s / d(t.gpus) : steps * r.step_time_s;
  }
  return tb;
}

lora_analysis lora_analysis_of(const training_analysis& r, const detail::training_core& c) {
  const training_settings& t = r.config;
  const estimate_result& e = r.estimate;
  lora_analysis l;
  l.rank = t.lora.rank;
  l.targets = t.lora.targets;
  l.base_precision = c.base_precision;
  l.quantized = c.quantized;
  l.base_bits_per_quantized_weight =
      c.quantized ? detail::quantized_bits(c.base_precision) : 8.0 * storage_bytes(c.base_precision);
  l.trainable_parameters = c.lora.params;
  l.base_parameters = e.parameters.total;
  l.all_parameters = e.parameters.total + c.lora.params;
  l.trainable_percent = 100.0 * d(c.lora.params) / d(l.all_parameters);
  l.adapted_matrices = c.lora.matrices;
  l.quantized_parameters = c.quantized ? static_cast<std::int64_t>(c.split.quantizable) : 0;
  l.base_weight_bytes = c.base_weight_bytes;
  l.adapter_bytes = d(c.trainable_parameters) * r.memory.bytes_per_trainable_parameter;
  return l;
}

std::vector<std::string> training_notes(const training_analysis& r) {
  const settings& s = r.config.base;
  std::vector<std::string> notes;
  notes.emplace_back(
      "activation memory, memory traffic and times are ESTIMATES (first-order roofline); FLOP counts are exact under "
      "the stated conventions");
  if (s.flash_attention)
    notes.emplace_back(
        "FlashAttention: the backward kernel recomputes scores and softmax (recompute.flash_attention_kernel); "
        "selective recompute adds nothing to it");
  notes.emplace_back(
      "token budget time: model FLOPs (forward + backward) at the given MFU; recompute, optimizer, clipping and casts "
      "are not model FLOPs");
  if (r.config.lora.rank > 0)
    notes.emplace_back("LoRA: no weight gradients for the frozen base, so forward + backward is near 4·N·T, not 6·N·T");
  for (std::uint32_t bit = 1; bit != 0; bit <<= 1)  // the estimate's notes that concern training
    if ((r.estimate.notes & bit) && bit != note_encoder_no_decode && bit != note_mla_absorbed_decode &&
        *note_text(static_cast<note>(bit)) != '\0')
      notes.emplace_back(note_text(static_cast<note>(bit)));
  return notes;
}

}  // namespace

recompute_policy parse_recompute_policy(std::string_view name, std::string_view field) {
  const std::string key = detail::lower(trim(std::string(name)));
  for (recompute_policy p : {recompute_policy::none, recompute_policy::selective, recompute_policy::full})
    if (to_string(p) == key) return p;
  throw error(error_code::invalid_argument, std::string(field),
              "unknown recompute policy \"" + std::string(name) + "\": expected one of none, selective, full");
}

std::uint32_t parse_lora_targets(std::string_view text, std::string_view field) {
  const std::string all = detail::lower(trim(std::string(text)));
  if (all == "all" || all == "all-linear") return lora_all_modules;
  if (all == "attention" || all == "attn") return lora_attention_modules;
  if (all == "mlp") return lora_mlp_modules;
  std::uint32_t bits = 0;
  std::size_t start = 0;
  while (start <= all.size()) {
    const std::size_t comma = all.find(',', start);
    std::string item = trim(all.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (item.size() > 5 && item.compare(item.size() - 5, 5, "_proj") == 0) item.resize(item.size() - 5);
    std::uint32_t bit = 0;
    for (const auto& mod : k_modules)
      if (mod.name == item) bit = mod.bit;
    if (bit == 0)
      throw error(error_code::invalid_argument, std::string(field),
                  "unknown LoRA target \"" + item + "\" in \"" + std::string(text) +
                      "\": expected all, attention, mlp or a comma list of q, k, v, o, gate, up, down");
    bits |= bit;
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return bits;
}

std::string lora_targets_name(std::uint32_t targets) {
  if (targets == lora_all_modules) return "all";
  if (targets == lora_attention_modules) return "attention";
  if (targets == lora_mlp_modules) return "mlp";
  std::string out;
  for (const auto& mod : k_modules)
    if (targets & mod.bit) out += (out.empty() ? "" : ",") + std::string(mod.name);
  return out;
}

void validate(const training_settings& t) {
  settings s = t.base;
  s.training = true;
  validate(s);
  detail::check_training(t);  // bounds and messages from the request table
  if (!t.base.parallel.trivial() && t.gpus != 1 && t.gpus != t.base.parallel.total_gpus() * t.context_parallel)
    throw error(error_code::invalid_argument, "/training_analysis/gpus",
                "expected 1 or the layout's " + std::to_string(t.base.parallel.total_gpus() * t.context_parallel) +
                    " GPUs (tensor x pipeline x data x expert x context parallel), but got " + std::to_string(t.gpus));
  if (t.virtual_pipeline < 1 || t.virtual_pipeline > 1024)
    throw error(error_code::invalid_argument, "/training_analysis/virtual_pipeline",
                "expected model chunks per pipeline GPU in [1, 1024], but got " + std::to_string(t.virtual_pipeline));
  if (t.context_parallel < 1 || t.context_parallel > 65536)
    throw error(error_code::invalid_argument, "/training_analysis/context_parallel",
                "expected context-parallel ranks in [1, 65536], but got " + std::to_string(t.context_parallel));
  if (t.virtual_pipeline > 1 && t.base.parallel.pipeline_parallel < 2)
    throw error(error_code::invalid_argument, "/training_analysis/virtual_pipeline",
                "model chunks per pipeline GPU need a pipeline: expected 1 with pipeline_parallel 1, but got " +
                    std::to_string(t.virtual_pipeline));
  // The layout's step (parallel.cpp) runs only for a multi-GPU layout; context ranks alone are not
  // modelled as one (their share of the replica's work needs the layout's step).
  if (t.context_parallel > 1 && t.base.parallel.trivial())
    throw error(error_code::invalid_argument, "/training_analysis/context_parallel",
                "context parallelism is modelled inside a multi-GPU layout: expected 1 when tensor, pipeline, data "
                "and expert parallel are all 1, but got " +
                    std::to_string(t.context_parallel));
  if ((t.lora.targets & lora_all_modules) == 0 || (t.lora.targets & ~lora_all_modules) != 0)
    throw error(error_code::invalid_argument, "/training_analysis/lora_targets",
                "expected a non-empty set of q, k, v, o, gate, up, down");
  if (t.lora.base_precision) {
    const precision p = *t.lora.base_precision;
    if (t.lora.rank == 0)
      throw error(error_code::invalid_argument, "/training_analysis/base_precision",
                  "a frozen base precision applies to LoRA only: expected a LoRA rank > 0 with it");
    if (p == precision::fp8 || p == precision::tf32)
      throw error(
          error_code::invalid_argument, "/training_analysis/base_precision",
          "expected int8, int4 (QLoRA), fp16, bf16 or fp32 for the frozen base, but got " + std::string(to_string(p)));
  }
}

namespace detail {

training_settings resolve_training(const settings& s, const training_settings* in) {
  training_settings t = in != nullptr ? *in : training_settings{};
  if (in == nullptr) t.lora = s.lora;  // estimate(): the settings' adapters
  t.base = s;
  t.base.training = true;
  if (!t.recompute) t.recompute = s.gradient_checkpointing ? recompute_policy::full : recompute_policy::none;
  t.base.gradient_checkpointing = *t.recompute == recompute_policy::full;
  return t;
}

training_core training_step(const model_spec& m, const training_settings& resolved, const estimate_result& r) {
  training_core c;
  c.config = resolved;
  const settings& s = c.config.base;
  const precision wp = s.weight_precision;
  const double T = d(s.batch_size) * d(s.sequence_length), P = d(r.parameters.total);
  const bool lora = c.config.lora.rank > 0;
  c.split = split_forward(m, T);
  c.lora = lora_adapters(m, c.config, T);
  c.trainable_parameters = lora ? c.lora.params : r.parameters.total;
  c.base_precision = c.config.lora.base_precision.value_or(wp);
  c.quantized = lora && is_weight_only(c.base_precision);
  if (lora)
    c.base_weight_bytes = c.quantized ? c.split.quantizable * quantized_bits(c.base_precision) / 8.0 +
                                            (P - c.split.quantizable) * storage_bytes(wp)
                                      : P * storage_bytes(c.base_precision);
  c.acts = training_activations(m, s);
  c.flops = training_flops(m, c, r.forward);
  c.memory = training_memory_of(c, P);
  c.phases = training_phases(m, c, P);
  return c;
}

}  // namespace detail

training_analysis analyze_training(const model_spec& m, const training_settings& in, const hardware_spec* gpu) {
  validate(in);
  training_analysis r;
  r.config = detail::resolve_training(in.base, &in);
  training_settings& t = r.config;
  if (!t.mfu)
    t.mfu = t.base.compute_efficiency * detail::training_efficiency_scale(m, t.base);  // the step's efficiency
  if (!t.base.parallel.trivial()) t.gpus = t.base.parallel.total_gpus() * t.context_parallel;

  // The estimate at these settings carries the step model (its training memory and step time).
  detail::training_core core;
  r.estimate = detail::estimate_with(m, t.base, gpu, &t, &core);
  r.parameters = r.estimate.parameters.total;
  r.trainable_parameters = core.trainable_parameters;
  r.flops = core.flops;
  r.memory = core.memory;
  if (gpu != nullptr) {
    r.memory.gpu_memory = gpu->memory_bytes;
    settings fit = r.config.base;
    fit.training = true;  // the training analysis: the process owns the device (utilization 1 unless set)
    r.memory.usable_gpu_memory = detail::usable_memory(fit, *gpu);
    r.memory.fits_on_gpu = r.memory.total <= r.memory.usable_gpu_memory;
    // With a layout the fit is each GPU's share (the configuration asked for).
    if (!t.base.parallel.trivial() && r.estimate.has_performance)
      r.memory.fits_on_gpu = r.estimate.parallel.fits_per_gpu;
  }
  r.phases = core.phases;
  training_roofline(r, m, gpu);
  r.cross_check = cross_check_of(r);
  r.budget = token_budget_of(r);
  if (t.lora.rank > 0) r.lora = lora_analysis_of(r, core);
  r.notes = training_notes(r);
  detail::recommend(r, m, gpu);
  return r;
}

}  // namespace flopcast
