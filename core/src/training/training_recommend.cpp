// Recommendations on top of the training-step analysis: a fused optimizer, ZeRO sharding,
// the recompute policy, FlashAttention.
#include <algorithm>
#include <cmath>
#include <string>

#include "flopcast/base/format.hpp"
#include "training/training_parts.hpp"

namespace flopcast::detail {
namespace {

constexpr double fused_optimizer_min_share = 0.03;  // recommend fusing above 3% of the step

// The display rules of the CLI and the page (flopcast/format.hpp = web/src/format.js).
std::string bytes_text(double bytes) { return display::format_bytes(bytes); }
std::string time_text(double s) { return display::format_seconds(s); }
std::string share_text(double x) { return display::format_percent(x); }

// The lowest ZeRO stage that fits on `n` GPUs (0: none needed, -1: none fits).
struct zero_state {
  double weights, gradients, optimizer, activations, capacity;
  [[nodiscard]] double per_gpu(int stage, double n) const {
    switch (stage) {
      case 0:
        return weights + gradients + optimizer + activations;
      case 1:
        return weights + gradients + optimizer / n + activations;
      case 2:
        return weights + (gradients + optimizer) / n + activations;
      default:
        return (weights + gradients + optimizer) / n + activations;
    }
  }
  // Fewest GPUs on which `stage` fits (0: never).
  [[nodiscard]] double min_gpus(int stage) const {
    const double unsharded = stage == 1 ? weights + gradients : stage == 2 ? weights : 0.0;
    const double sharded = weights + gradients + optimizer - unsharded;
    const double room = capacity - activations - unsharded;
    if (stage == 0) return per_gpu(0, 1) <= capacity ? 1 : 0;
    if (room <= 0) return 0;
    return std::max(1.0, std::ceil(sharded / room));
  }
};

}  // namespace

void recommend(training_analysis& r, const model_spec& m, const hardware_spec* gpu) {
  const training_settings& t = r.config;
  const settings& s = t.base;
  const recompute_policy policy = *t.recompute;
  auto& out = r.recommendations;
  const phase_cost& opt = r.phases[static_cast<std::size_t>(training_phase::optimizer)];

  // Fused optimizer.
  if (r.has_performance && !t.fused_optimizer && s.optim != optimizer::none && opt.limit == bound::memory &&
      opt.time_s > fused_optimizer_min_share * r.step.time_s) {
    const optimizer_cost c = cost_of(s.optim);
    const double fused_s =
        std::max(opt.compute_s, opt.memory_s * (c.read_fused + c.write_fused) / (c.read_unfused + c.write_unfused));
    out.push_back({"use a fused optimizer (e.g. torch.optim.AdamW(fused=True), apex FusedAdam)",
                   "the " + std::string(to_string(s.optim)) + " step is memory-bound and takes " +
                       time_text(opt.time_s) + " (" + share_text(opt.time_s / r.step.time_s) +
                       " of the step): one fused kernel moves " +
                       format_number((c.read_fused + c.write_fused) * fp32_bytes) + " instead of " +
                       format_number((c.read_unfused + c.write_unfused) * fp32_bytes) + " bytes per parameter, about " +
                       time_text(fused_s)});
  }

  if (gpu == nullptr) return;
  const training_memory& mem = r.memory;
  const double capacity = gpu->memory_bytes, n = d(t.gpus);
  zero_state z{mem.weights, mem.gradients, mem.optimizer_state, mem.activations, capacity};
  // ZeRO: the lowest stage that fits on the given GPUs, or the fewest GPUs that make one fit.
  int stage_used = 0;
  double gpus_used = n;
  if (z.per_gpu(0, n) > capacity) {
    int fits = -1;
    for (int k = 1; k <= 3 && n > 1; ++k)
      if (z.per_gpu(k, n) <= capacity) {
        fits = k;
        break;
      }
    const std::string need = "weights " + bytes_text(mem.weights) + ", gradients " + bytes_text(mem.gradients) +
                             ", optimizer state " + bytes_text(mem.optimizer_state) + " and activations " +
                             bytes_text(mem.activations) + " need " + bytes_text(z.per_gpu(0, 1)) + " against " +
                             bytes_text(capacity) + " on " + gpu->name;
    if (fits > 0) {
      stage_used = fits;
      out.push_back(
          {"shard with ZeRO stage " + std::to_string(fits) + " over the " + std::to_string(t.gpus) + " GPUs",
           need + "; stage " + std::to_string(fits) + " brings it to " + bytes_text(z.per_gpu(fits, n)) + " per GPU"});
    } else {
      double best = 0;
      int best_stage = 0;
      std::string options;
      for (int k = 1; k <= 3; ++k) {
        const double g = z.min_gpus(k);
        if (g <= 0) continue;
        options += (options.empty() ? "" : ", ") + std::string("stage ") + std::to_string(k) + " from " +
                   format_number(g) + " GPUs";
        if (best == 0 || g < best) {
          best = g;
          best_stage = k;
        }
      }
      if (best_stage > 0) {
        stage_used = best_stage;
        gpus_used = best;
        out.push_back(
            {"shard with ZeRO stage " + std::to_string(best_stage) + " over at least " + format_number(best) + " GPUs",
             need + (t.gpus > 1 ? " (more than " + std::to_string(t.gpus) + " GPUs can hold)" : "") +
                 "; ZeRO fits with " + options});
      } else {
        out.push_back({"reduce the activations (smaller micro-batch or sequence, tensor or sequence parallelism)",
                       need + "; activations are not sharded by ZeRO and leave no room for the training state"});
      }
    }
  }

  // Recompute policy: the least recomputation whose activations fit beside the state.
  zero_state rest = z;
  rest.activations = 0;
  const double state = rest.per_gpu(stage_used, gpus_used);
  const double room = capacity - state;
  recompute_policy best = recompute_policy::full;
  if (mem.activations_none <= room)
    best = recompute_policy::none;
  else if (mem.activations_selective <= room)
    best = recompute_policy::selective;
  const double acts = best == recompute_policy::none        ? mem.activations_none
                      : best == recompute_policy::selective ? mem.activations_selective
                                                            : mem.activations_full;
  const char* with = best == recompute_policy::none        ? "without recompute"
                     : best == recompute_policy::selective ? "with selective recompute"
                                                           : "with full recompute";
  std::string reason = "activations take " + bytes_text(acts) + " " + with + " beside " + bytes_text(state) +
                       " of weights, gradients and optimizer state per GPU (" + bytes_text(capacity) + ")";
  if (best == recompute_policy::full && mem.activations_full > room)
    reason +=
        "; even full recompute leaves " + bytes_text(mem.activations_full - room) + " over: lower the micro-batch";
  if (best == policy) {
    out.push_back({"keep recompute policy " + std::string(to_string(policy)), reason});
  } else {
    const bool less = static_cast<int>(best) < static_cast<int>(policy);
    if (less && r.has_performance) {
      // What the current policy recomputes beyond the recommended one.
      const recompute_flops& rc = r.flops.recompute;
      double saved = rc.layers;
      if (best == recompute_policy::none) saved += rc.attention_core;
      if (best == recompute_policy::selective && !s.flash_attention && policy == recompute_policy::full)
        saved -= r.estimate.forward.attention.attention_scores + r.estimate.forward.attention.softmax +
                 r.estimate.forward.attention.attention_values;
      reason += "; saves about " + time_text(std::max(0.0, saved) / (r.peak_flops_per_s * s.compute_efficiency)) +
                " of recompute per step";
    }
    out.push_back({"use recompute policy " + std::string(to_string(best)), reason});
  }

  if (!s.flash_attention && m.arch != architecture::encoder_decoder && mem.activations_none > mem.activations_selective)
    out.push_back({"use FlashAttention",
                   "the score matrices take " + bytes_text(mem.activations_none - mem.activations_selective) +
                       " of activations without recompute and make the attention core memory-bound"});
}

}  // namespace flopcast::detail
